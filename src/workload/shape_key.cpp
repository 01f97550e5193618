// Shape keys of layers (workload/shape_key.h).
#include "sparsemap/workload/shape_key.h"

#include <sstream>

namespace sparsemap::workload {

std::string shape_key(const Layer& l) {
  std::ostringstream os;
  os << static_cast<int>(l.kind);
  for (int64_t d : l.dims) os << ',' << d;
  os << ';' << l.stride.y << ',' << l.stride.x << ';' << l.pad.y << ',' << l.pad.x << ';'
     << l.dilation.y << ',' << l.dilation.x;
  return os.str();
}

}  // namespace sparsemap::workload

// io::parse_onnx and read_onnx (include/sparsemap/io/onnx_import.h) through the ONNX plugin
// (onnx_linked.h says why).
#include <stdexcept>

#include "sparsemap/error.h"
#include "sparsemap/io/onnx_import.h"
#include "sparsemap/io/util.h"
#include "sparsemap/sys/plugin.h"

namespace sparsemap::io {

workload::Model parse_onnx(const std::string& bytes, const std::string& file) {
  using Parse = int (*)(const std::string*, const std::string*, workload::Model*, SourceLocation*,
                        std::string*);
  static const Parse parse = reinterpret_cast<Parse>(
      sys::plugin_symbol(sys::open_plugin("onnx"), "onnx", "sparsemap_onnx_parse"));
  workload::Model m;
  SourceLocation where;
  std::string message;
  switch (parse(&bytes, &file, &m, &where, &message)) {
    case 0:
      return m;
    case 1:
      throw InputError(where, message);
    default:
      throw std::runtime_error(message);
  }
}

// Up to 2 GiB, protobuf's own limit on a message.
workload::Model read_onnx(const std::string& path) {
  return parse_onnx(read_file(path, size_t{2} << 30), path);
}

}  // namespace sparsemap::io

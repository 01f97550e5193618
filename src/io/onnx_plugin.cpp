// The ONNX plugin's entry point (libsparsemap_onnx.so; onnx_linked.h). Its arguments are C++
// objects: the plugin is built with the same compiler and library as the core that opens it
// (onnx_load.cpp), never by a third party. Exceptions stay inside the plugin.
#include <exception>
#include <string>

#include "onnx_linked.h"
#include "sparsemap/error.h"

// Parses `bytes` (read from `file`) into *out. Returns 0 on success; 1 for bad input, with
// *where and *message set to the InputError's location and message; 2 for any other failure,
// with *message set.
extern "C" int sparsemap_onnx_parse(const std::string* bytes, const std::string* file,
                                    sparsemap::workload::Model* out,
                                    sparsemap::SourceLocation* where, std::string* message) {
  try {
    *out = sparsemap::io::onnx_detail::parse_onnx_linked(*bytes, *file);
    return 0;
  } catch (const sparsemap::InputError& e) {
    *where = e.where();
    *message = e.message();
    return 1;
  } catch (const std::exception& e) {
    *message = e.what();
    return 2;
  }
}

// libFuzzer target for ConfuciuX model CSVs (io::parse_confuciux_csv, `hwalloc --model
// FILE.csv`). Checked on every input: the reader returns or throws InputError (no crash, hang,
// leak or UB), and the layer arithmetic on what it accepts stays free of UB (layer_check.h).
#include "fuzz_main.h"
#include "layer_check.h"
#include "sparsemap/io/confuciux_csv.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"small.csv", "K,C,Y,X,R,S,T\n64,3,224,224,11,11,1\n1,32,112,112,3,3,2\n"},
          {"order.csv", "T,S,R,X,Y,C,K\n2,3,3,17,17,32,1\n1,1,1,7,7,128,256\n"},
          {"crlf.csv", "K,C,Y,X,R,S,T\r\n8,8,8,8,1,1,1\r\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  workload::Model m;
  if (!fuzz::accepts([&] { m = io::parse_confuciux_csv(text, "fuzz.csv"); })) return 0;
  fuzz::check_layers(m.layers);
  (void)m.total_macs();
  return 0;
}

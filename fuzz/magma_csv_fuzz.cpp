// libFuzzer target for the three CSV readers of `sparsemap schedule` (io/magma_csv.h): MAGMA job
// files, MAGMA job tables and platform files. The first byte picks the reader (byte % 3: 0 job
// file, 1 job table, 2 platform), the rest is the file. Checked on every input: the reader and
// what `schedule` does next with what it accepts return or throw InputError (no crash, hang,
// leak or UB): job lines become layers (dse::schedule::layer_from_magma, then the layer
// arithmetic), tables become a JobTable that is validated and simulated once, platforms are read
// through dse::schedule::load_platform and one small conv job is costed on every core.
#include <random>

#include "fuzz_main.h"
#include "layer_check.h"
#include "sparsemap/dse/schedule/heuristics.h"
#include "sparsemap/dse/schedule/jobs.h"
#include "sparsemap/dse/schedule/simulator.h"
#include "sparsemap/io/magma_csv.h"
#include "sparsemap/workload/layer.h"

namespace sc = sparsemap::dse::schedule;

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  // The selector byte, then the file (a "\x00" inside a literal would end a C string).
  const auto with = [](char reader, const char* file) { return std::string(1, reader) + file; };
  return {
      {"jobs.csv", with(0,
                        "1,1,20,512,128,1,1,1,3\n1,2,64,3,224,224,7,7,1\n2,1,32,32,56,56,3,3,2\n"
                        "3,1,1000,512,1,1,1,1,0\n")},
      {"table.csv",
       with(1,
            "job,core,latency_cycles,req_dram_bw\n0,0,184321,0.1032986111\n0,1,184321,0.1\n"
            "1,0,5121,0.41875\n1,1,4000,0\n")},
      {"table_full.csv",
       with(1,
            "job,thread,layer,K,C,Y,X,R,S,T,core,latency_cycles,req_dram_bw\n"
            "0,1,1,64,3,224,224,7,7,1,0,1e5,0.5\n1,1,2,512,128,1,1,1,3,3,0,2e3,1.5\n")},
      {"platform.csv",
       with(2, "# two cores\nname,pes,dataflow\nbig,4096,kcp_ws\nsmall,1024,yxp_os\n")},
      {"platform_buffers.csv",
       with(2, "name,pes,dataflow,l1_bytes,l2_bytes\nc0,256,dla,512,1048576\nc1,64,shi,0,0\n")}};
}

namespace {

void jobs(const std::string& text) {
  using namespace sparsemap;
  std::vector<io::MagmaJob> js;
  if (!fuzz::accepts([&] { js = io::parse_magma_jobs(text, "fuzz.csv"); })) return;
  std::vector<workload::Layer> layers;
  fuzz::accepts([&] {
    for (const auto& j : js) layers.push_back(sc::layer_from_magma(j));
  });
  fuzz::check_layers(layers);
}

void table(const std::string& text) {
  using namespace sparsemap;
  io::MagmaTable t;
  if (!fuzz::accepts([&] { t = io::parse_magma_job_table(text, "fuzz.csv"); })) return;
  fuzz::accepts([&] {
    const sc::JobTable jt = sc::job_table_from_magma(t);
    sc::validate(jt, "fuzz.csv");
    sc::Simulator sim(jt, 1.0);
    std::mt19937_64 rng(1);
    const sc::Schedule s = sc::list_heuristic(jt, sc::JobOrder::Sjf, sc::CoreSelect::Greedy, rng);
    (void)sim.run(s, true);
    (void)sc::lower_bound_cycles(jt, 1.0);
  });
}

void platform(const std::string& text) {
  using namespace sparsemap;
  static const std::string path = fuzz::scratch_path(".platform.csv");
  fuzz::write_bytes(path, text);
  fuzz::accepts([&] {
    const sc::Platform p = sc::load_platform(path);
    std::vector<sc::Job> js(1);
    js[0].info.name = "c";
    js[0].layer = workload::conv2d("c", 1, 8, 8, 8, 8, 3, 1, 1);
    (void)sc::build_job_table(js, p);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      jobs(text);
      break;
    case 1:
      table(text);
      break;
    default:
      platform(text);
      break;
  }
  return 0;
}

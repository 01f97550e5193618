// Shared by the libFuzzer targets: the one contract every target checks (a reader returns or
// throws InputError; anything else is a finding), a scratch file for readers that take only a
// path, and the built-in seeds each target writes when SPARSEMAP_FUZZ_SEEDS names a folder.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::fuzz {

// (file name, bytes) of the inputs a target seeds its corpus with; each target defines it.
using Seeds = std::vector<std::pair<std::string, std::string>>;
Seeds builtin_seeds();

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "sparsemap fuzz finding: %s\n", what.c_str());
  std::abort();  // libFuzzer saves the input under -artifact_prefix
}

// Runs `f`; InputError is the expected outcome for bad bytes (returns false), any other
// exception is a finding. Returns true when `f` returned normally.
template <class F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const InputError&) {
    return false;
  } catch (const std::exception& e) {
    finding(std::string("exception other than InputError: ") + e.what());
  } catch (...) {
    finding("exception of unknown type");
  }
}

// A per-process scratch file name in $TMPDIR (or /tmp) ending in `suffix`.
inline std::string scratch_path(const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/sparsemap_fuzz_" + std::to_string(::getpid()) +
         suffix;
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) finding("cannot write the scratch file " + path);
}

// A run's checkpoint and its search in progress in one fuzz input: the checkpoint's bytes,
// optionally followed by kSearchSeparator and FILE.search's bytes.
inline const std::string kSearchSeparator = "\n#search\n";

// Writes `bytes` (split at kSearchSeparator) to `path` and path + ".search" (removed when the
// input holds no second part).
inline void write_checkpoint_pair(const std::string& path, const std::string& bytes) {
  const size_t cut = bytes.find(kSearchSeparator);
  write_bytes(path, bytes.substr(0, cut));
  if (cut == std::string::npos)
    std::remove((path + ".search").c_str());
  else
    write_bytes(path + ".search", bytes.substr(cut + kSearchSeparator.size()));
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Seeds of a checkpoint target: per algorithm, the checkpoint at `path` that a finished run
// leaves, and the one a run stopped mid-way leaves (stopped at the progress call after the one
// that reached `stop_at` samples: the driver reports progress before it writes the batch's
// checkpoint). A run that ends first leaves no mid seed. run(algo, progress) runs the search
// with its checkpoint at `path` and `progress` as its (samples, best) callback.
using Progress = std::function<void(int64_t, double)>;
inline Seeds checkpoint_seeds(const std::string& path, const std::vector<std::string>& algos,
                              int64_t stop_at,
                              const std::function<void(const std::string&, const Progress&)>& run) {
  Seeds s;
  for (const std::string& algo : algos) {
    std::remove(path.c_str());
    run(algo, nullptr);
    s.push_back({algo + "_done.json", read_bytes(path)});
    std::remove(path.c_str());
    int past = 0;  // progress calls at or after stop_at
    try {
      run(algo, [stop_at, &past](int64_t samples, double) {
        if (samples >= stop_at && past++ > 0) throw std::runtime_error("stop");
      });
    } catch (const std::runtime_error&) {
      s.push_back({algo + "_mid.json", read_bytes(path)});
    }
  }
  std::remove(path.c_str());
  return s;
}

}  // namespace sparsemap::fuzz

// libFuzzer calls this once before fuzzing. With SPARSEMAP_FUZZ_SEEDS=DIR it writes the
// built-in seeds into DIR and exits (scripts/fuzz.sh seeds every corpus this way).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("SPARSEMAP_FUZZ_SEEDS")) {
    for (const auto& [name, bytes] : sparsemap::fuzz::builtin_seeds())
      sparsemap::fuzz::write_bytes(std::string(dir) + "/" + name, bytes);
    std::exit(0);
  }
  return 0;
}

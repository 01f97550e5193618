// Starting external programs without a shell: an argument vector, never a command line.
#pragma once

#include <string>
#include <vector>

namespace sparsemap::plot {

// What a finished program left behind.
struct ProcessResult {
  int exit_status = -1;  // the program's exit status; -1 when it could not start or was killed
  std::string out;       // its standard output, when asked for (else empty)
  std::string err;       // its standard error (the first 64 KiB), always captured
};

// The absolute path of `program` found on PATH (as execvp would find it), or "" when none is
// executable. A name containing '/' is returned as is when it is executable.
std::string find_program(const std::string& program);

// Runs argv[0] (looked up on PATH) with the arguments argv[1..], no shell involved: no
// character of any argument is interpreted. `input` is written to its standard input, which is
// then closed; its standard output is captured when `capture_stdout` (else discarded) and its
// standard error always. Blocks until it exits. SIGPIPE is ignored while writing `input`, so a
// program that exits without reading all of it cannot kill the caller.
// Throws std::runtime_error only when the pipes or the process cannot be created by the OS;
// a program that is missing gives exit_status -1 and a reason in `err`.
ProcessResult run_program(const std::vector<std::string>& argv, const std::string& input = "",
                          bool capture_stdout = false);

}  // namespace sparsemap::plot

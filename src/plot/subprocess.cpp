// Starting external programs with posix_spawn: argv in, pipes for stdin, stdout and stderr.
#include "sparsemap/plot/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace sparsemap::plot {
namespace {

constexpr size_t kMaxErrBytes = 64 * 1024;

// A pipe whose ends close themselves.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

// Ignores SIGPIPE for its lifetime and restores the previous disposition.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_);
  }
  ~IgnoreSigpipe() { sigaction(SIGPIPE, &old_, nullptr); }

 private:
  struct sigaction old_ {};
};

// Feeds `input` to `in_fd` and drains `out_fd` / `err_fd` until both reach end of file, without
// deadlocking on full pipes. Closes in_fd once everything is written (or the reader went away).
void pump(int& in_fd, int& out_fd, int& err_fd, const std::string& input, ProcessResult& r) {
  size_t written = 0;
  // Non-blocking, so that a write never waits on a child that waits for us to read its output.
  if (in_fd >= 0) fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK);
  if (input.empty() && in_fd >= 0) {
    ::close(in_fd);
    in_fd = -1;
  }
  char buf[65536];
  while (in_fd >= 0 || out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3] = {{in_fd, POLLOUT, 0}, {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    if (in_fd >= 0 && fds[0].revents != 0) {
      const ssize_t n = ::write(in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();  // reader gone
      if (written == input.size()) {
        ::close(in_fd);
        in_fd = -1;
      }
    }
    for (int k = 1; k <= 2; ++k) {
      int& fd = k == 1 ? out_fd : err_fd;
      if (fd < 0 || fds[k].revents == 0) continue;
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0 && k == 1) r.out.append(buf, static_cast<size_t>(n));
      if (n > 0 && k == 2 && r.err.size() < kMaxErrBytes)
        r.err.append(buf, std::min(static_cast<size_t>(n), kMaxErrBytes - r.err.size()));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        ::close(fd);
        fd = -1;
      }
    }
  }
}

}  // namespace

std::string find_program(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos)
    return access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

ProcessResult run_program(const std::vector<std::string>& argv, const std::string& input,
                          bool capture_stdout) {
  ProcessResult r;
  const std::string exe = argv.empty() ? "" : find_program(argv[0]);
  if (exe.empty()) {
    r.err = (argv.empty() ? std::string("(no program)") : argv[0]) + ": not found on PATH";
    return r;
  }
  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
  if (capture_stdout)
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.err = argv[0] + ": cannot start: " + std::strerror(rc);
    return r;
  }
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  if (!capture_stdout) out.close_end(0);
  {
    const IgnoreSigpipe guard;
    pump(in.fd[1], out.fd[0], err.fd[0], input, r);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace sparsemap::plot

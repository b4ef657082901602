// Running the built `dfx` binary from tests: RunDfx spawns it with a time
// limit and collects its output. TempDir (tests/testing/temp_dir.h) is the
// scratch folder a test writes into.
#ifndef DFX_TESTS_TOOLS_CLI_TEST_UTIL_H_
#define DFX_TESTS_TOOLS_CLI_TEST_UTIL_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/testing/temp_dir.h"
#include "tests/testing/time_scale.h"

extern char** environ;

namespace dfx::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs the dfx binary with `args`, collecting stdout and stderr. A run that
// has not finished after `limit` (times TestTimeScale()) is killed (so a
// hang fails the test instead of blocking the suite).
inline ProcessResult RunDfx(const std::vector<std::string>& args,
                     std::chrono::seconds limit = std::chrono::seconds(120)) {
  const std::string bin = DFX_BIN_DIR "/dfx";
  REQUIRE(std::filesystem::exists(bin));
  int out_pipe[2], err_pipe[2];
  REQUIRE(::pipe2(out_pipe, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(err_pipe, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<std::string> argv_storage = {bin};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  const int spawned =
      ::posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ProcessResult result;
  if (spawned != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    FAIL("posix_spawn failed: " << spawned);
  }
  const auto deadline =
      std::chrono::steady_clock::now() + limit * TestTimeScale();
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof(buf));
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

inline std::string Describe(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) +
         (r.timed_out ? " (timed out)" : "") + "\nstdout: " + r.out +
         "\nstderr: " + r.err;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TOOLS_CLI_TEST_UTIL_H_

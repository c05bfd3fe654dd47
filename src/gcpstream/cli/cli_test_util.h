#ifndef GCPSTREAM_CLI_CLI_TEST_UTIL_H_
#define GCPSTREAM_CLI_CLI_TEST_UTIL_H_

// Runs the gcpstream binary (GCPSTREAM_CLI, set by CMake) for tests.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"

namespace gcpstream::cli::testing {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs `command` through the shell, stdout and stderr captured.
inline Outcome RunShell(const std::string& command) {
  Outcome outcome;
  FILE* pipe = popen(absl::StrCat(command, " 2>&1").c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    outcome.output.append(buffer, n);
  }
  const int status = pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

inline Outcome Gcpstream(const std::string& arguments) {
  return RunShell(absl::StrCat(GCPSTREAM_CLI, " ", arguments));
}

// The binary running in the background, its output going to `log`, so a
// test can signal it.
class Background {
 public:
  Background(const std::string& arguments, std::string log)
      : log_(std::move(log)) {
    const std::string command = absl::StrCat("exec ", GCPSTREAM_CLI, " ",
                                             arguments, " >", log_, " 2>&1");
    pid_ = fork();
    if (pid_ == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
      _exit(127);
    }
  }
  ~Background() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  void Signal(int signal) const { kill(pid_, signal); }
  std::string Output() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  Outcome Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, Output()};
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
};

}  // namespace gcpstream::cli::testing

#endif  // GCPSTREAM_CLI_CLI_TEST_UTIL_H_

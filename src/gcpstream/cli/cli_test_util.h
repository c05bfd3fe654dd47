#ifndef GCPSTREAM_CLI_CLI_TEST_UTIL_H_
#define GCPSTREAM_CLI_CLI_TEST_UTIL_H_

// Runs the gcpstream binary (GCPSTREAM_CLI, set by CMake), or any shell
// command, for tests; testing::CliProcess runs one in the background.

#include <sys/wait.h>

#include <cstdio>
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

}  // namespace gcpstream::cli::testing

#endif  // GCPSTREAM_CLI_CLI_TEST_UTIL_H_

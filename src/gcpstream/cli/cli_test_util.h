#ifndef GCPSTREAM_CLI_CLI_TEST_UTIL_H_
#define GCPSTREAM_CLI_CLI_TEST_UTIL_H_

// Runs the gcpstream binary (GCPSTREAM_CLI, set by CMake) for tests.

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"

namespace gcpstream::cli::testing {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline Outcome Gcpstream(const std::string& arguments) {
  const std::string command =
      absl::StrCat(GCPSTREAM_CLI, " ", arguments, " 2>&1");
  Outcome outcome;
  FILE* pipe = popen(command.c_str(), "r");
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

}  // namespace gcpstream::cli::testing

#endif  // GCPSTREAM_CLI_CLI_TEST_UTIL_H_

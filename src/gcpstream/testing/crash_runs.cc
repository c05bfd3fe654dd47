#include "gcpstream/testing/crash_runs.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace gcpstream::testing {
namespace {

namespace fs = std::filesystem;

std::string LogOf(const CrashRuns& runs, int run) {
  return absl::StrCat(runs.log_dir, "/run-", run, ".log");
}

pid_t Launch(const CrashRuns& runs, int run) {
  const std::string log = LogOf(runs, run);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(runs.program.c_str()));
  for (const std::string& arg : runs.args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execv(runs.program.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// A completed checkpoint (written to a temporary file, then renamed).
bool HasCheckpoint(const std::string& directory) {
  std::error_code error;
  return std::ranges::any_of(fs::directory_iterator(directory, error),
                             [](const fs::directory_entry& entry) {
                               return entry.path().extension() == ".json";
                             });
}

}  // namespace

absl::StatusOr<std::string> RunWithRandomKills(const CrashRuns& runs) {
  std::mt19937 random(runs.seed);
  for (int run = 0; run < runs.kills; ++run) {
    const pid_t pid = Launch(runs, run);
    // On a loaded machine every random kill can land before the first
    // checkpoint: the last one waits for a checkpoint if none was written.
    if (run == runs.kills - 1) {
      const absl::Time give_up = absl::Now() + absl::Seconds(60);
      while (!HasCheckpoint(runs.checkpoint_dir) && absl::Now() < give_up) {
        absl::SleepFor(absl::Milliseconds(20));
      }
    }
    absl::SleepFor(absl::Milliseconds(
        std::uniform_int_distribution<int>(300, 900)(random)));
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return absl::InternalError(absl::StrCat("run ", run,
                                              " ended before it was killed; "
                                              "see ",
                                              LogOf(runs, run)));
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  const pid_t pid = Launch(runs, runs.kills);
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream log(LogOf(runs, runs.kills));
  std::string output((std::istreambuf_iterator<char>(log)),
                     std::istreambuf_iterator<char>());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(
        "the final run failed; see ", LogOf(runs, runs.kills), ":\n", output));
  }
  return output;
}

}  // namespace gcpstream::testing

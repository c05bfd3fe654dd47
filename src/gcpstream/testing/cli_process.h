#ifndef GCPSTREAM_TESTING_CLI_PROCESS_H_
#define GCPSTREAM_TESTING_CLI_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "absl/time/time.h"

namespace gcpstream::testing {

// The whole answer to `GET path` on a loopback port ("" when nothing
// answers).
std::string HttpGet(int port, const std::string& path);

// One `gcpstream` CLI process (a replica, in scale-out tests and the
// scale-out benchmark), its output in a log file. Killed when destroyed.
class CliProcess {
 public:
  // Runs `cli arguments` through /bin/sh with `environment` ("NAME=value
  // ..." prepended through env(1), may be empty), stdout and stderr to
  // `log`.
  CliProcess(const std::string& cli, const std::string& arguments,
             const std::string& environment, std::string log);
  ~CliProcess();
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  pid_t pid() const { return pid_; }
  std::string Log() const;
  // The port of `run --metrics-port 0`, once the process printed it.
  std::optional<int> MetricsPort() const;
  // Waits until its /readyz answers 200 (sources open); false at once if
  // the process ended.
  bool AwaitReady(absl::Duration timeout);
  // GET `path` on its metrics port ("" before it serves).
  std::string Get(const std::string& path) const;

  void Kill();
  // SIGTERM (the graceful drain), then the exit status (-1: killed).
  int Stop();

 private:
  // Reaps the process if it ended; true then.
  bool Ended();

  std::string log_;
  pid_t pid_ = -1;
  int exit_status_ = -1;
};

// User plus system CPU seconds of a process, or of every process of a
// process group (`group`), from /proc.
double ProcessCpuSeconds(pid_t pid);
double ProcessGroupCpuSeconds(pid_t group);

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_CLI_PROCESS_H_

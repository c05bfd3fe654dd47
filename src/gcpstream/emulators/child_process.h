#ifndef GCPSTREAM_EMULATORS_CHILD_PROCESS_H_
#define GCPSTREAM_EMULATORS_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gcpstream::emulators {

struct ChildProcessOptions {
  std::vector<std::string> argv;  // argv[0] is the program path.
  // stdout and stderr both go to this file (created or truncated).
  std::string log_path;
  // Kill the child when the thread that started it dies (Linux
  // PR_SET_PDEATHSIG), so a crashed or SIGKILLed parent leaves nothing
  // behind, and when this process gets SIGINT/SIGTERM/SIGHUP (see
  // emergency_stop.h). Off for daemons that must outlive their starter.
  bool die_with_parent = true;
};

// A process started in a process group of its own, so that stopping it also
// stops anything it spawned and a Ctrl-C aimed at our terminal's foreground
// group does not race our own orderly shutdown.
class ChildProcess {
 public:
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const ChildProcessOptions& options);

  ~ChildProcess();  // Stops the process if still running.
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Returns the exit description ("exited with 3", "killed by signal 9") if
  // the process has ended, nullopt while it runs. Never blocks.
  std::optional<std::string> Poll();

  // SIGTERM to the group, then SIGKILL after `grace`. Idempotent.
  void Stop(absl::Duration grace = absl::Seconds(5));

  // Leaves the process running when this object goes away (daemon mode).
  void Detach();

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}

  pid_t pid_;
  bool detached_ = false;
  bool emergency_registered_ = false;
  std::optional<std::string> exit_description_;
};

// True once `pid` no longer runs: gone, or a zombie waiting to be reaped
// (kill(pid, 0) alone still answers for a zombie).
bool ProcessEnded(pid_t pid);

// Sends SIGTERM to the process group `pgid`, waits up to `grace` for the
// leader `pid` to vanish, then SIGKILLs the group. For processes we did not
// start in this process (the `stop` command of a daemonised set).
void StopProcessGroup(pid_t pgid, absl::Duration grace);

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_CHILD_PROCESS_H_

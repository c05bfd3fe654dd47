#ifndef GCPSTREAM_EMULATORS_EMULATOR_SET_H_
#define GCPSTREAM_EMULATORS_EMULATOR_SET_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/emulators/child_process.h"
#include "gcpstream/emulators/emulator_kind.h"

namespace gcpstream::emulators {

struct EmulatorSetOptions {
  std::vector<EmulatorKind> kinds;
  // Directory for the emulators' logs; created if missing. Empty means
  // $GCPSTREAM_EMULATOR_LOG_DIR, else a fresh directory under $TMPDIR.
  std::string log_dir;
  // The Pub/Sub emulator is a JVM: allow for a slow first start.
  absl::Duration startup_timeout = absl::Seconds(90);
  // Daemons outlive this process (the `start` command); otherwise the
  // emulators die with it, even on SIGKILL.
  bool daemon = false;
  // A port picked free may be taken before the emulator binds it.
  int port_attempts = 3;
  // The Cloud Storage emulator's filesystem root, which the BigQuery
  // emulator reads gs:// URIs from (EmulatorListen::storage_root). Empty
  // means <log_dir>/storage. Created if missing; its objects are removed
  // with the logs when Stop() does not keep them.
  std::string storage_root{};
};

struct RunningEmulator {
  EmulatorKind kind;
  std::string host;  // "127.0.0.1:<port>"
  pid_t pid = 0;     // also the process group id
  std::string log_path;
  std::string second_host{};  // HasSecondPort kinds only

  // The variables that point clients at it, with their values.
  std::vector<std::pair<std::string, std::string>> Environment() const;
};

// Starts emulators on free loopback ports, waits until each answers gRPC,
// and stops them all when asked or when destroyed.
class EmulatorSet {
 public:
  static absl::StatusOr<std::unique_ptr<EmulatorSet>> Start(
      const EmulatorSetOptions& options);

  // Stops whatever still runs, keeping the logs (an owner that did not call
  // Stop() explicitly cannot vouch that all went well).
  ~EmulatorSet();
  EmulatorSet(const EmulatorSet&) = delete;
  EmulatorSet& operator=(const EmulatorSet&) = delete;

  const std::vector<RunningEmulator>& emulators() const { return running_; }
  const std::string& log_dir() const { return log_dir_; }
  std::optional<std::string> HostOf(EmulatorKind kind) const;

  // Sets the *_EMULATOR_HOST variables in this process's environment.
  void ExportEnvironment() const;
  // `export NAME=host` lines for a shell.
  std::string ShellExports() const;

  // Stops every emulator; deletes their logs unless `keep_logs`.
  void Stop(bool keep_logs);

  // Leaves the emulators running after this object is gone (daemon mode).
  void Detach();

 private:
  EmulatorSet() = default;

  std::string log_dir_;
  bool created_log_dir_ = false;
  std::string storage_root_;
  bool created_storage_root_ = false;
  std::vector<std::unique_ptr<ChildProcess>> processes_;
  std::vector<RunningEmulator> running_;
};

// The last lines of a log file, for error messages.
std::string TailOfFile(const std::string& path, int lines);

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_EMULATOR_SET_H_

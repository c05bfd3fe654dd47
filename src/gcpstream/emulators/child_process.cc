#include "gcpstream/emulators/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/emulators/emergency_stop.h"

namespace gcpstream::emulators {
namespace {

std::string Describe(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return absl::StrCat("exited with status ", WEXITSTATUS(wait_status));
  }
  if (WIFSIGNALED(wait_status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(wait_status));
  }
  return "ended";
}

// Runs in the forked child: only async-signal-safe calls until execv.
[[noreturn]] void ExecChild(char* const* argv, int log_fd, bool die_with_parent,
                            pid_t parent) {
  if (die_with_parent) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent may have died between fork and prctl.
    if (getppid() != parent) _exit(127);
  } else {
    // A daemon gets a session of its own (and with it a process group), so
    // closing the terminal that started it does not hang it up.
    setsid();
  }
  // Restore default dispositions the parent may have changed.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  execv(argv[0], argv);
  static constexpr char kMessage[] = "gcpstream: exec failed\n";
  [[maybe_unused]] auto ignored =
      write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  _exit(127);
}

bool WaitGone(pid_t pid, absl::Duration grace, int* wait_status) {
  const absl::Time deadline = absl::Now() + grace;
  while (true) {
    const pid_t r = waitpid(pid, wait_status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno == ECHILD) {
      // Not our child (stop command): poll for existence instead.
      if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    }
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const ChildProcessOptions& options) {
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("ChildProcess: empty argv");
  }
  if (access(options.argv[0].c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot execute '", options.argv[0],
                                            "': ", std::strerror(errno)));
  }
  const int log_fd = open(options.log_path.c_str(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open log file '",
                                            options.log_path,
                                            "': ", std::strerror(errno)));
  }
  // Everything the child needs is prepared before fork: after it, the child
  // of a multi-threaded parent may only make async-signal-safe calls.
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return absl::InternalError(
        absl::StrCat("fork failed: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // dup2 clears O_CLOEXEC on the duplicates, so the log survives exec.
    ExecChild(argv.data(), log_fd, options.die_with_parent, parent);
  }
  close(log_fd);
  // Also set the group from the parent, so Stop() works even if it runs
  // before the child reached its own setpgid. Not for a daemon: a group
  // leader cannot call setsid().
  if (options.die_with_parent) setpgid(pid, pid);
  auto child = std::unique_ptr<ChildProcess>(new ChildProcess(pid));
  if (options.die_with_parent) {
    InstallEmergencyStopHandlers();
    RegisterForEmergencyStop(pid);
    child->emergency_registered_ = true;
  }
  return child;
}

ChildProcess::~ChildProcess() {
  if (!detached_) Stop();
}

void ChildProcess::Detach() {
  detached_ = true;
  if (emergency_registered_) {
    UnregisterForEmergencyStop(pid_);
    emergency_registered_ = false;
  }
}

std::optional<std::string> ChildProcess::Poll() {
  if (exit_description_.has_value()) return exit_description_;
  int wait_status = 0;
  if (waitpid(pid_, &wait_status, WNOHANG) == pid_) {
    exit_description_ = Describe(wait_status);
  }
  return exit_description_;
}

void ChildProcess::Stop(absl::Duration grace) {
  if (emergency_registered_) {
    UnregisterForEmergencyStop(pid_);
    emergency_registered_ = false;
  }
  if (Poll().has_value()) {
    // The leader is gone; anything it left in its group goes too.
    kill(-pid_, SIGKILL);
    return;
  }
  kill(-pid_, SIGTERM);
  int wait_status = 0;
  if (!WaitGone(pid_, grace, &wait_status)) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, &wait_status, 0);
  } else {
    kill(-pid_, SIGKILL);
  }
  exit_description_ = Describe(wait_status);
}

bool ProcessEnded(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string pid_field;
  std::string command;
  std::string state;
  stat >> pid_field >> command >> state;
  return state == "Z";
}

void StopProcessGroup(pid_t pgid, absl::Duration grace) {
  if (kill(-pgid, SIGTERM) != 0) return;  // Already gone.
  int wait_status = 0;
  WaitGone(pgid, grace, &wait_status);
  kill(-pgid, SIGKILL);
}

}  // namespace gcpstream::emulators

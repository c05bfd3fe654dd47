#include "gcpstream/emulators/emergency_stop.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>

namespace gcpstream::emulators {
namespace {

// A fixed table of atomics: the signal handler may only touch lock-free
// state. Far more slots than emulators a process ever runs.
constexpr int kSlots = 64;
std::array<std::atomic<pid_t>, kSlots> registered_groups{};
std::atomic<bool> handlers_installed{false};

void OnTerminatingSignal(int signal_number) {
  for (auto& slot : registered_groups) {
    const pid_t pgid = slot.load();
    if (pgid > 0) kill(-pgid, SIGKILL);
  }
  static constexpr char kMessage[] =
      "gcpstream: interrupted; emulators stopped, their logs are kept\n";
  [[maybe_unused]] auto ignored =
      write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

}  // namespace

void RegisterForEmergencyStop(pid_t pgid) {
  for (auto& slot : registered_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pgid)) return;
  }
  // Table full: the parent-death signal still covers this child.
}

void UnregisterForEmergencyStop(pid_t pgid) {
  for (auto& slot : registered_groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void InstallEmergencyStopHandlers() {
  if (handlers_installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_handler = OnTerminatingSignal;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace gcpstream::emulators

// A test run killed midway must leave no emulator behind. A child process
// stands in for the test binary: it starts real emulators, reports their
// pids, and is then killed; every emulator must be gone shortly after.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gcpstream/emulators/emulator_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::emulators {
namespace {

struct Victim {
  pid_t pid = 0;
  std::vector<pid_t> emulator_pids;
  std::string log_dir;
};

// Forks a process that starts every emulator, writes "<pid> ..." and its log
// directory to `report`, then waits to be killed.
Victim StartVictim(const std::string& report) {
  const std::string log_dir = report + ".logs";
  Victim victim;
  victim.log_dir = log_dir;
  victim.pid = fork();
  if (victim.pid == 0) {
    auto set =
        EmulatorSet::Start({.kinds = AllEmulatorKinds(), .log_dir = log_dir});
    if (!set.ok()) _exit(3);
    std::ofstream out(report + ".tmp");
    for (const RunningEmulator& emulator : (*set)->emulators()) {
      out << emulator.pid << "\n";
    }
    out.close();
    std::filesystem::rename(report + ".tmp", report);
    while (true) pause();
  }
  for (int i = 0; i < 1200 && !std::filesystem::exists(report); ++i) {
    usleep(100'000);
  }
  std::ifstream in(report);
  for (pid_t pid = 0; in >> pid;) victim.emulator_pids.push_back(pid);
  return victim;
}

bool AllGone(const std::vector<pid_t>& pids) {
  for (int i = 0; i < 500; ++i) {
    bool gone = true;
    for (pid_t pid : pids) gone = gone && ProcessEnded(pid);
    if (gone) return true;
    usleep(10'000);
  }
  return false;
}

class EmulatorCleanupIntegrationTest : public ::testing::TestWithParam<int> {};

TEST_P(EmulatorCleanupIntegrationTest, KilledOwnerLeavesNoEmulatorBehind) {
  const int signal_number = GetParam();
  const std::string report = ::testing::TempDir() + "/cleanup-" +
                             std::to_string(getpid()) + "-" +
                             std::to_string(signal_number);
  Victim victim = StartVictim(report);
  ASSERT_EQ(victim.emulator_pids.size(), AllEmulatorKinds().size())
      << "the emulators did not start; logs in " << victim.log_dir;
  for (pid_t pid : victim.emulator_pids) ASSERT_FALSE(ProcessEnded(pid));

  kill(victim.pid, signal_number);
  int wait_status = 0;
  waitpid(victim.pid, &wait_status, 0);
  ASSERT_TRUE(WIFSIGNALED(wait_status));
  EXPECT_EQ(WTERMSIG(wait_status), signal_number);
  EXPECT_TRUE(AllGone(victim.emulator_pids));
  // Interrupted runs keep the emulators' logs for the post-mortem.
  EXPECT_TRUE(std::filesystem::exists(victim.log_dir + "/pubsub.log"));
  std::filesystem::remove_all(victim.log_dir);
  std::filesystem::remove(report);
}

INSTANTIATE_TEST_SUITE_P(Signals, EmulatorCleanupIntegrationTest,
                         ::testing::Values(SIGKILL, SIGINT, SIGTERM),
                         [](const auto& param_info) {
                           return std::string(sigabbrev_np(param_info.param));
                         });

}  // namespace
}  // namespace gcpstream::emulators

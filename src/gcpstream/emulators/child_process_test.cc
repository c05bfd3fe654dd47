#include "gcpstream/emulators/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::emulators {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name + "-" + std::to_string(getpid());
}

bool GroupExists(pid_t pgid) { return kill(-pgid, 0) == 0; }

TEST(ChildProcessTest, CapturesOutputAndExitStatus) {
  const std::string log = TempPath("exit");
  auto child = ChildProcess::Start(
      {.argv = {"/bin/sh", "-c", "echo hello; echo oops >&2; exit 3"},
       .log_path = log});
  ASSERT_TRUE(child.ok()) << child.status();
  std::optional<std::string> ended;
  for (int i = 0; i < 500 && !ended.has_value(); ++i) {
    ended = (*child)->Poll();
    if (!ended) usleep(10000);
  }
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(*ended, "exited with status 3");
  std::ifstream in(log);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(content, HasSubstr("hello"));
  EXPECT_THAT(content, HasSubstr("oops"));
}

TEST(ChildProcessTest, StopKillsTheWholeProcessGroup) {
  // The shell leaves a grandchild behind, as a wrapper script around a JVM
  // would; stopping the child must take the grandchild with it.
  auto child =
      ChildProcess::Start({.argv = {"/bin/sh", "-c", "sleep 300 & wait"},
                           .log_path = TempPath("group")});
  ASSERT_TRUE(child.ok()) << child.status();
  const pid_t pgid = (*child)->pid();
  usleep(100000);
  ASSERT_TRUE(GroupExists(pgid));
  (*child)->Stop(absl::Seconds(2));
  for (int i = 0; i < 200 && GroupExists(pgid); ++i) usleep(10000);
  EXPECT_FALSE(GroupExists(pgid));
}

TEST(ChildProcessTest, IgnoringSigtermIsEndedBySigkillAfterGrace) {
  auto child = ChildProcess::Start(
      {.argv = {"/bin/sh", "-c", "trap '' TERM; while true; do sleep 1; done"},
       .log_path = TempPath("stubborn")});
  ASSERT_TRUE(child.ok()) << child.status();
  usleep(100000);
  (*child)->Stop(absl::Milliseconds(200));
  EXPECT_THAT((*child)->Poll().value_or(""), HasSubstr("signal 9"));
}

TEST(ChildProcessTest, DiesWithItsParent) {
  // A middle process starts a child, then is SIGKILLed: nothing may survive
  // it. This is what keeps a killed test run from leaking emulators.
  const std::string pid_file = TempPath("orphan-pid");
  const pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    auto child = ChildProcess::Start(
        {.argv = {"/bin/sleep", "300"}, .log_path = TempPath("orphan")});
    if (!child.ok()) _exit(1);
    std::ofstream(pid_file) << (*child)->pid();
    pause();
    _exit(0);
  }
  pid_t grandchild = 0;
  for (int i = 0; i < 500 && grandchild == 0; ++i) {
    std::ifstream in(pid_file);
    if (!(in >> grandchild)) grandchild = 0;
    if (grandchild == 0) usleep(10000);
  }
  ASSERT_GT(grandchild, 0);
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ProcessEnded(grandchild);
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone) << "grandchild " << grandchild << " outlived its parent";
  std::filesystem::remove(pid_file);
}

TEST(ChildProcessTest, MissingBinaryIsAClearError) {
  auto child = ChildProcess::Start(
      {.argv = {"/nonexistent/emulator"}, .log_path = TempPath("missing")});
  ASSERT_FALSE(child.ok());
  EXPECT_THAT(child.status().message(), HasSubstr("/nonexistent/emulator"));
}

}  // namespace
}  // namespace gcpstream::emulators

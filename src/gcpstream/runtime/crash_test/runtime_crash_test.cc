// Kills the crash pipeline with SIGKILL at random moments, restarts it on
// the same checkpoint directory each time, lets it finish, and counts what
// reached the output: exactly-once output equals the input; at-least-once
// output loses nothing and repeats only records after the checkpoint a
// restart resumed from.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "gcpstream/runtime/checkpoint_storage.h"
#include "gcpstream/runtime/connectors/generator_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRecords = 300'000;
constexpr int kKills = 12;

class RuntimeCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/crash-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            "-" + std::to_string(getpid());
    fs::remove_all(root_);
    fs::create_directories(root_);
    seed_ = static_cast<uint32_t>(absl::ToUnixMicros(absl::Now()));
    std::cout << "random seed " << seed_ << "\n";
    random_.seed(seed_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(root_);
  }

  pid_t Launch(const std::string& delivery, int run) {
    const std::string log = root_ + "/run-" + std::to_string(run) + ".log";
    std::cout.flush();  // Or the child would print our buffer again.
    const pid_t pid = fork();
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execl(GCPSTREAM_CRASH_PIPELINE, GCPSTREAM_CRASH_PIPELINE,
            "--checkpoint-dir", (root_ + "/checkpoints").c_str(),
            "--output-dir", (root_ + "/output").c_str(), "--records",
            std::to_string(kRecords).c_str(), "--rate", "50000", "--delivery",
            delivery.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }

  // Runs, killing the process kKills times; returns the generator's
  // restored next index per split before each restart.
  std::vector<std::map<int64_t, int64_t>> RunWithKills(
      const std::string& delivery) {
    std::vector<std::map<int64_t, int64_t>> resumed_at;
    int kills = 0;
    for (int run = 0; kills < kKills; ++run) {
      resumed_at.push_back(RestoredOffsets());
      const pid_t pid = Launch(delivery, run);
      const int delay_ms = std::uniform_int_distribution<int>(40, 350)(random_);
      absl::SleepFor(absl::Milliseconds(delay_ms));
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        ADD_FAILURE() << "run " << run << " ended before it could be killed "
                      << "(status " << status << "); see " << root_;
        return resumed_at;
      }
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ++kills;
    }
    resumed_at.push_back(RestoredOffsets());
    const pid_t pid = Launch(delivery, kKills);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "final run failed; see " << root_ << "/run-" << kKills << ".log";
    return resumed_at;
  }

  // The generator splits' next index in the checkpoint a restart will use.
  std::map<int64_t, int64_t> RestoredOffsets() {
    std::map<int64_t, int64_t> next_by_offset;
    auto storage = CheckpointStorage::Open(root_ + "/checkpoints", 3);
    if (!storage.ok()) return next_by_offset;
    auto latest = storage->LoadLatest();
    EXPECT_TRUE(latest.ok()) << latest.status();
    if (!latest.ok() || !latest->has_value()) return next_by_offset;
    for (const auto& [source, splits] : (*latest)->source_splits) {
      for (const Split& split : splits) {
        auto parsed = ParseGeneratorSplit(split);
        EXPECT_TRUE(parsed.ok()) << parsed.status();
        if (parsed.ok()) next_by_offset[parsed->offset] = parsed->next;
      }
    }
    return next_by_offset;
  }

  // Every line of the committed output files.
  std::vector<int64_t> ReadOutput() {
    std::vector<int64_t> values;
    for (const auto& entry : fs::directory_iterator(root_ + "/output")) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || !name.starts_with("part-")) continue;
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) {
        int64_t value = 0;
        EXPECT_TRUE(absl::SimpleAtoi(line, &value))
            << "bad line '" << line << "'";
        values.push_back(value);
      }
    }
    std::sort(values.begin(), values.end());
    return values;
  }

  std::string root_;
  uint32_t seed_ = 0;
  std::mt19937 random_;
};

// Restarts that resumed from a checkpoint rather than from the start: the
// test is only meaningful if most did.
int ResumedRuns(const std::vector<std::map<int64_t, int64_t>>& resumed_at) {
  return static_cast<int>(
      std::count_if(resumed_at.begin(), resumed_at.end(),
                    [](const auto& offsets) { return !offsets.empty(); }));
}

TEST_F(RuntimeCrashTest, ExactlyOnceOutputEqualsInputAfterRandomKills) {
  const auto resumed_at = RunWithKills("exactly-once");
  EXPECT_GE(ResumedRuns(resumed_at), kKills / 2);
  const std::vector<int64_t> output = ReadOutput();
  ASSERT_EQ(output.size(), static_cast<size_t>(kRecords))
      << "seed " << seed_ << "; output in " << root_;
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_EQ(output[i], i)
        << "first difference at " << i << "; seed " << seed_;
  }
}

TEST_F(RuntimeCrashTest, AtLeastOnceLosesNothingAndRepeatsOnlyReplays) {
  const auto resumed_at = RunWithKills("at-least-once");
  EXPECT_GE(ResumedRuns(resumed_at), kKills / 2);
  const std::vector<int64_t> output = ReadOutput();
  std::map<int64_t, int> count;
  for (int64_t v : output) count[v]++;
  int64_t duplicated = 0;
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_GE(count[i], 1) << "record " << i << " lost; seed " << seed_;
    ASSERT_LE(count[i], kKills + 1);
    if (count[i] == 1) continue;
    ++duplicated;
    // A repeat must come from a replay: some restart resumed from a
    // checkpoint that did not cover this record yet.
    const int64_t split = i % 2;  // Two generator splits, strided.
    bool replayed = false;
    for (const auto& offsets : resumed_at) {
      auto it = offsets.find(split);
      if (it == offsets.end() || i >= it->second) replayed = true;
    }
    ASSERT_TRUE(replayed) << "record " << i
                          << " repeated although every restart resumed past it";
  }
  EXPECT_EQ(count.size(), static_cast<size_t>(kRecords));
  std::cout << duplicated << " records repeated by " << kKills << " restarts\n";
}

}  // namespace
}  // namespace gcpstream::runtime

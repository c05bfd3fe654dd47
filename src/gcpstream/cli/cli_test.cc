// The gcpstream binary end to end on local files: exit codes, messages.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/testing/cli_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;
using ::gcpstream::cli::testing::Outcome;
using ::gcpstream::cli::testing::RunShell;
using ::testing::HasSubstr;
using ::testing::Not;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/cli-" + std::to_string(getpid());
    fs::remove_all(root_);
    fs::create_directories(root_ + "/in");
    std::ofstream in(root_ + "/in/orders.jsonl");
    for (int i = 0; i < 10; ++i) in << "{\"id\":" << i << "}\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string WritePipeline(const std::string& sink_key) {
    std::string path = root_ + "/p.yaml";
    std::ofstream(path) << "source: {type: json-lines, directory: " << root_
                        << "/in}\n"
                        << "sinks:\n  - type: file\n    " << sink_key << ": "
                        << root_ << "/out\n";
    return path;
  }

  std::string root_;
};

TEST_F(CliTest, ValidatesAndRunsAPipelineFile) {
  const std::string path = WritePipeline("directory");
  Outcome validated = Gcpstream("validate " + path);
  EXPECT_EQ(validated.exit_code, 0) << validated.output;
  EXPECT_THAT(validated.output, HasSubstr("valid"));
  EXPECT_FALSE(fs::exists(root_ + "/out"));  // Validation writes nothing.
  Outcome ran = Gcpstream("run " + path);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("pipeline 'p' finished"));
  int lines = 0;
  for (const auto& entry : fs::directory_iterator(root_ + "/out")) {
    std::ifstream file(entry.path());
    for (std::string line; std::getline(file, line);) ++lines;
  }
  EXPECT_EQ(lines, 10);
}

TEST_F(CliTest, ReportsProgressWhenNotOnATerminal) {
  const std::string path = root_ + "/slow.yaml";
  std::ofstream(path) << "source: {type: sample-orders, count: 300, "
                         "records-per-second: 600}\n"
                      << "sinks: [{name: archive, type: file, directory: "
                      << root_ << "/out}]\n";
  Outcome ran = Gcpstream("run --progress-interval 100ms " + path);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("gcpstream: progress: sink archive: "));
  EXPECT_THAT(ran.output, HasSubstr("records/s"));
  EXPECT_THAT(ran.output, HasSubstr("gcpstream: progress: checkpoints "));
  EXPECT_THAT(ran.output, HasSubstr("sink archive: 300 in"));
  EXPECT_EQ(Gcpstream("run --progress-interval soon " + path).exit_code, 2);
}

// The index i of every committed sample order under `directory`, from its
// placed_at (the epoch of the sample plus i seconds; order ids repeat on
// purpose), sorted.
std::vector<int64_t> CommittedOrderIndexes(const std::string& directory) {
  std::vector<int64_t> indexes;
  if (!fs::exists(directory)) return indexes;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (!entry.is_regular_file()) continue;  // .inprogress: staged only.
    std::ifstream file(entry.path());
    for (std::string line; std::getline(file, line);) {
      const std::string key = R"("placed_at":")";
      const size_t at = line.find(key);
      absl::Time placed = absl::InfinitePast();
      if (at != std::string::npos) {
        const size_t start = at + key.size();
        std::string error;
        (void)absl::ParseTime(absl::RFC3339_full,
                              line.substr(start, line.find('"', start) - start),
                              &placed, &error);
      }
      indexes.push_back(absl::ToUnixSeconds(placed) - 1796083200);
    }
  }
  std::sort(indexes.begin(), indexes.end());
  return indexes;
}

// Kubernetes' rolling restart: SIGTERM, then a new process on the same
// checkpoint directory. The first stop commits everything read; the second
// process reads on from there: every order once, none twice, none missing.
TEST_F(CliTest, TermStopsWithAFinalCheckpointAndARestartReplaysNothing) {
  const std::string path = root_ + "/endless.yaml";
  std::ofstream(path) << "checkpoint-interval: 1h\n"
                      << "checkpoint-directory: " << root_ << "/checkpoints\n"
                      << "source: {type: sample-orders, count: 100000000, "
                         "records-per-second: 2000}\n"
                      << "sinks: [{name: archive, type: file, directory: "
                      << root_ << "/out}]\n";
  size_t committed_before = 0;
  for (int run = 0; run < 2; ++run) {
    gcpstream::testing::CliProcess gcpstream(
        GCPSTREAM_CLI, "run --progress-interval 100ms " + path,
        /*environment=*/"", root_ + "/run.log");
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (gcpstream.Log().find("sink archive: ") == std::string::npos &&
           absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    absl::SleepFor(absl::Milliseconds(300));
    const Outcome stopped{gcpstream.Stop(), gcpstream.Log()};
    EXPECT_EQ(stopped.exit_code, 0) << stopped.output;
    EXPECT_THAT(stopped.output,
                HasSubstr("gcpstream: stopping with a final checkpoint "
                          "(within 25s; signal again to exit at once)"));
    EXPECT_THAT(stopped.output,
                HasSubstr("pipeline 'endless' stopped after a final "
                          "checkpoint (nothing to replay): 1 checkpoints"));
    // The second run says where it resumed; the first had nothing to resume.
    if (run == 0) {
      EXPECT_THAT(stopped.output, Not(HasSubstr("resumed from")));
    } else {
      EXPECT_THAT(stopped.output,
                  HasSubstr("gcpstream: resumed from checkpoint 1 in " + root_ +
                            "/checkpoints (input read before it is "
                            "not read again"));
    }
    const std::vector<int64_t> indexes = CommittedOrderIndexes(root_ + "/out");
    EXPECT_GT(indexes.size(), committed_before) << "run " << run;
    committed_before = indexes.size();
  }
  const std::vector<int64_t> indexes = CommittedOrderIndexes(root_ + "/out");
  ASSERT_FALSE(indexes.empty());
  for (size_t i = 0; i < indexes.size(); ++i) {
    ASSERT_EQ(indexes[i], static_cast<int64_t>(i)) << "at " << i;
  }
}

TEST_F(CliTest, AFailedJobExitsOneWithOneParagraph) {
  std::ofstream(root_ + "/in/broken.jsonl") << "{not json\n";
  const std::string path = WritePipeline("directory");
  Outcome ran = Gcpstream("run " + path);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("gcpstream: pipeline 'p' failed for good "
                                    "(its restart strategy gave up): "));
  EXPECT_THAT(ran.output, HasSubstr("broken.jsonl"));
}

TEST_F(CliTest, ConfigurationErrorsExitTwoWithThePosition) {
  const std::string path = WritePipeline("dirctory");
  Outcome outcome = Gcpstream("run " + path);
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_THAT(outcome.output,
              HasSubstr(path + ":3:5: pipeline 'sinks' item 1: option "
                               "'directory' is required"));
  EXPECT_FALSE(fs::exists(root_ + "/out"));
  EXPECT_EQ(Gcpstream("validate " + root_ + "/missing.yaml").exit_code, 2);
  EXPECT_EQ(Gcpstream("frobnicate").exit_code, 2);
  EXPECT_EQ(Gcpstream("emulators").exit_code, 2);
  Outcome help = Gcpstream("emulators --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* command : {"exec", "start", "env", "status", "stop"}) {
    EXPECT_THAT(help.output, HasSubstr(command));
  }
  Outcome start_help = Gcpstream("emulators start --help");
  EXPECT_EQ(start_help.exit_code, 0);
  for (const char* emulator :
       {"pubsub", "spanner", "bigtable", "cloudtasks", "storage", "bigquery"}) {
    EXPECT_THAT(start_help.output, HasSubstr(emulator));
  }
  Outcome version = Gcpstream("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.output,
              ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+\n"));
}

TEST_F(CliTest, LogsGoToStandardErrorAndTheSummaryToStandardOutput) {
  const std::string path = WritePipeline("directory");
  const std::string run =
      absl::StrCat("SPDLOG_LEVEL=debug ", GCPSTREAM_CLI, " run ", path);
  Outcome stdout_only = RunShell(absl::StrCat("(", run, " 2>/dev/null)"));
  EXPECT_EQ(stdout_only.exit_code, 0) << stdout_only.output;
  EXPECT_THAT(stdout_only.output, HasSubstr("pipeline 'p' finished"));
  EXPECT_THAT(stdout_only.output, Not(HasSubstr("[debug]")));
  fs::remove_all(root_ + "/out");
  Outcome stderr_only = RunShell(absl::StrCat("(", run, " >/dev/null)"));
  EXPECT_EQ(stderr_only.exit_code, 0) << stderr_only.output;
  EXPECT_THAT(stderr_only.output, HasSubstr("[debug] pipeline=p checkpoint="));
  EXPECT_THAT(stderr_only.output, Not(HasSubstr("pipeline 'p' finished")));
}

TEST_F(CliTest, TheSummaryCountsMalformedLinesASourceSkipped) {
  std::ofstream(root_ + "/in/orders.jsonl", std::ios::app)
      << "{not json\n{\"id\": 10}\nneither\n";
  const std::string path = root_ + "/p.yaml";
  std::ofstream(path) << "source: {type: json-lines, directory: " << root_
                      << "/in, malformed-line-policy: skip}\n"
                      << "sinks: [{type: file, directory: " << root_
                      << "/out}]\n";
  Outcome ran = Gcpstream("run " + path);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_THAT(ran.output,
              HasSubstr("  source source: 11 read, 2 malformed lines skipped "
                        "(malformed-line-policy: skip)\n"));
}

// What `run` used to refuse only once data flowed, `validate` refuses too.
TEST_F(CliTest, ValidateChecksInputsOptionCombinationsAndSinkDirectories) {
  const std::string missing = root_ + "/missing.yaml";
  std::ofstream(missing) << "source: {type: json-lines, paths: [" << root_
                         << "/in/nope.jsonl]}\n"
                         << "sinks: [{type: file, directory: " << root_
                         << "/out}]\n";
  for (const char* command : {"validate ", "run "}) {
    Outcome outcome = Gcpstream(command + missing);
    EXPECT_EQ(outcome.exit_code, 2) << command << outcome.output;
    EXPECT_THAT(outcome.output,
                HasSubstr("missing.yaml:1:35: pipeline 'source': option "
                          "'paths': '" +
                          root_ +
                          "/in/nope.jsonl' is not a file that can be "
                          "read (it does not exist)"));
  }

  const std::string unordered = root_ + "/unordered.yaml";
  std::ofstream(unordered)
      << "source: {type: json-lines, directory: " << root_ << "/in}\n"
      << "sinks: [{type: pubsub, project: p, topic: t, ordering-key: id}]\n";
  Outcome outcome = Gcpstream("validate " + unordered);
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("option 'ordering-key' needs "
                                        "'enable-message-ordering: true'"));

  const std::string path = WritePipeline("directory");
  ASSERT_EQ(Gcpstream("run " + path).exit_code, 0);
  for (const char* command : {"validate ", "run "}) {
    outcome = Gcpstream(command + path);
    EXPECT_EQ(outcome.exit_code, 2) << command << outcome.output;
    EXPECT_THAT(outcome.output,
                HasSubstr("already holds part files of an earlier run"));
    EXPECT_FALSE(fs::exists(root_ + "/out/.inprogress/part-0-0-0.tmp"));
  }
}

TEST_F(CliTest, AMetricsPortOutOfRangeIsRefused) {
  const std::string path = WritePipeline("directory");
  for (const char* port : {"99999", "65536", "-2"}) {
    Outcome outcome =
        Gcpstream(absl::StrCat("run --metrics-port ", port, " ", path));
    EXPECT_EQ(outcome.exit_code, 2) << port << ": " << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr("--metrics-port")) << port;
    EXPECT_FALSE(fs::exists(root_ + "/out")) << port;
  }
}

}  // namespace
}  // namespace gcpstream::cli

// The gcpstream binary end to end on local files: exit codes, messages.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gcpstream/cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;
using ::gcpstream::cli::testing::Outcome;
using ::testing::HasSubstr;

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
  Outcome version = Gcpstream("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.output,
              ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+\n"));
}

}  // namespace
}  // namespace gcpstream::cli

// Pipeline files: their own keys, their errors (always with
// file:line:column), and a file-to-file pipeline built and run from one.

#include "gcpstream/config/pipeline_file.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

absl::Status BuildError(const std::string& yaml) {
  absl::StatusOr<PipelineFile> file = ParsePipelineFile(yaml, "p.yaml");
  if (!file.ok()) return file.status();
  return BuildPipeline(*file, ConnectorRegistry::Global()).status();
}

class PipelineFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/pipeline-file-" + std::to_string(getpid());
    fs::remove_all(root_);
    fs::create_directories(root_ + "/in");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string root_;
};

TEST_F(PipelineFileTest, ReadsPipelineKeys) {
  auto file = ParsePipelineFile(
      "name: orders\n"
      "parallelism: 3\n"
      "checkpoint-interval: 2s\n"
      "checkpoint-directory: /tmp/c\n"
      "checkpoint-timeout: 2m\n"
      "tolerable-checkpoint-failures: 2\n"
      "shutdown-timeout: 20s\n"
      "restart-strategy: {type: Fixed-Delay, attempts: 5, delay: 250ms}\n"
      "source: {type: json-lines, paths: [a.jsonl]}\n"
      "sinks:\n"
      "  - {name: out, type: file, directory: /tmp/o}\n"
      "  - {type: file, directory: /tmp/p}\n",
      "orders.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->options.name, "orders");
  EXPECT_EQ(file->parallelism, 3);
  EXPECT_EQ(file->options.checkpoint_interval, absl::Seconds(2));
  EXPECT_EQ(file->options.checkpoint_directory, "/tmp/c");
  EXPECT_EQ(file->options.checkpoint_timeout, absl::Minutes(2));
  EXPECT_EQ(file->options.tolerable_checkpoint_failures, 2);
  EXPECT_EQ(file->options.shutdown_timeout, absl::Seconds(20));
  EXPECT_EQ(file->options.restart.kind,
            runtime::RestartStrategy::Kind::kFixedDelay);
  EXPECT_EQ(file->options.restart.max_attempts, 5);
  EXPECT_EQ(file->options.restart.delay, absl::Milliseconds(250));
  ASSERT_EQ(file->sinks.size(), 2U);
  EXPECT_EQ(file->sinks[0].name, "out");
  EXPECT_EQ(file->sinks[1].name, "sink-2");
}

TEST_F(PipelineFileTest, AFileLargerThanOneMebibyteIsRefusedUnread) {
  const std::string path = root_ + "/huge.yaml";
  {
    std::ofstream out(path);
    out << "source: {type: json-lines, directory: in}\nnotes:\n";
    for (int i = 0; out.tellp() <= kMaxPipelineFileBytes; ++i) {
      out << "  - line " << i << " of a file that is valid YAML\n";
    }
  }
  absl::StatusOr<PipelineFile> file = LoadPipelineFile(path);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(file.status().message(),
              HasSubstr("a pipeline file is at most 1048576 bytes (1 MiB)"));
  EXPECT_THAT(file.status().message(), HasSubstr(path));
}

TEST_F(PipelineFileTest, ReadsTheLocalSection) {
  auto file = ParsePipelineFile(
      "source: {type: json-lines, paths: [a]}\n"
      "sinks: [{type: file, directory: /tmp/o}]\n"
      "local:\n"
      "  project: shop\n"
      "  topics: [orders-eu]\n"
      "  subscriptions: [{name: eu-all, topic: orders-eu, ordered: true}]\n"
      "  spanner-databases:\n"
      "    - instance: local\n"
      "      database: orders\n"
      "      ddl: ['CREATE TABLE Orders (Id INT64) PRIMARY KEY (Id)',\n"
      "            'create table Lines (Id INT64) PRIMARY KEY (Id)',\n"
      "            'CREATE INDEX ByAmount ON Orders(Id)']\n",
      "p.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  const LocalResources& local = file->local;
  EXPECT_EQ(local.project, "shop");
  // Each connector read its own keys (Pub/Sub's, then Spanner's).
  EXPECT_THAT(
      local.Declared(),
      ::testing::ElementsAre(
          "topic orders-eu", "subscription eu-all of orders-eu (ordered)",
          "spanner database local/orders with tables Orders, Lines"));
  EXPECT_EQ(local.Emulators().size(), 2U);
  auto bad = ParsePipelineFile(
      "source: {type: json-lines, paths: [a]}\n"
      "sinks: [{type: file, directory: /tmp/o}]\n"
      "local: {topic: [a]}\n",
      "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("p.yaml:3:9: pipeline 'local': unknown option "
                        "'topic'"));
}

TEST_F(PipelineFileTest, ErrorsPointAtTheFileLineAndColumn) {
  struct Case {
    std::string yaml;
    std::string expected;
  };
  const std::string ok_source = "source: {type: json-lines, paths: [a]}\n";
  const std::string ok_sinks = "sinks: [{type: file, directory: /tmp/o}]\n";
  for (const Case& c : std::vector<Case>{
           {"source: [unclosed\n", "p.yaml:2:1: not valid YAML"},
           {ok_source + ok_sinks + "paralelism: 2\n",
            "p.yaml:3:1: pipeline: unknown option 'paralelism'; accepted: "
            "checkpoint-directory, checkpoint-interval, checkpoint-timeout, "
            "health-checkpoint-timeout, local, name, parallelism, "
            "restart-strategy, shutdown-timeout, "
            "sinks, source, sources, tolerable-checkpoint-failures, "
            "transforms (did "
            "you mean 'parallelism'?)"},
           {ok_source + ok_sinks + "checkpoint-timeout: 0s\n",
            "p.yaml:3:21: pipeline: checkpoint-timeout: '0s' is not a valid "
            "duration (must be at least 1ns)"},
           {ok_source + ok_sinks + "tolerable-checkpoint-failures: -1\n",
            "p.yaml:3:32: pipeline: option 'tolerable-checkpoint-failures' "
            "must be between 0 and 1000000"},
           {ok_source + ok_sinks + "parallelism: 0\n",
            "p.yaml:3:14: pipeline: option 'parallelism' must be between 1 "
            "and 1024"},
           {ok_source + ok_sinks + "restart-strategy: {type: forever}\n",
            "p.yaml:3:26: pipeline 'restart-strategy': type: unknown value "
            "'forever'; accepted values: none, fixed-delay, "
            "exponential-backoff"},
           {ok_sinks, "pipeline: 'source' is required"},
           {ok_source + ok_sinks +
                "sources: [{type: json-lines, paths: [b]}]\n",
            "p.yaml:1:1: pipeline: give either 'source' or 'sources', not "
            "both"},
           {ok_sinks + "sources: []\n",
            "p.yaml:2:10: pipeline: 'sources' needs at least one source"},
           {ok_sinks + "sources:\n  - {type: json-lines, paths: [a]}\n"
                       "  - {name: Source-1, type: json-lines, paths: [b]}\n",
            "p.yaml:4:12: two sources are named 'Source-1'; source names "
            "must be unique"},
           {ok_sinks + "sources:\n  - {type: json-lines, paths: [a], "
                       "event-time-field: 'a..b'}\n",
            "p.yaml:3:54: pipeline 'sources' item 1: option "
            "'event-time-field': "},
           {ok_source + "sinks: []\n", "pipeline: 'sinks' is required"},
           {ok_source + "sinks:\n  - {name: a, type: file, directory: /o}\n"
                        "  - {name: A, type: file, directory: /p}\n",
            "p.yaml:4:12: two sinks are named 'A'"},
           {"source: {type: kafka}\n" + ok_sinks,
            "p.yaml:1:16: pipeline 'source': unknown source type 'kafka'; "
            "source types: json-lines"},
           {"source: {paths: [a]}\n" + ok_sinks,
            "option 'type' is required; source types: json-lines"},
           {ok_source +
                "sinks: [{type: file, directory: /o, delivery: once}]\n",
            "p.yaml:2:47: pipeline 'sinks' item 1: delivery: unknown value "
            "'once'; accepted values: exactly-once, at-least-once"},
           {ok_source + "sinks: [{type: file}]\n",
            "option 'directory' is required"},
           {ok_source + "sinks: [{type: file, directory: /o, dir: /p}]\n",
            "p.yaml:2:37: pipeline 'sinks' item 1: unknown option 'dir'"},
       }) {
    const absl::Status status = BuildError(c.yaml);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.yaml;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.expected)) << c.yaml;
  }
}

TEST_F(PipelineFileTest, RunsAFileToFilePipelineToEverySink) {
  {
    std::ofstream in(root_ + "/in/orders.jsonl");
    for (int i = 0; i < 100; ++i) in << "{\"id\":" << i << "}\n";
  }
  const std::string yaml =
      "name: copy\n"
      "parallelism: 2\n"
      "checkpoint-interval: 50ms\n"
      "source: {type: json-lines, directory: " +
      root_ +
      "/in}\n"
      "sinks:\n"
      "  - {name: first, type: file, directory: " +
      root_ +
      "/a}\n"
      "  - {name: second, type: file, directory: " +
      root_ + "/b, delivery: at-least-once}\n";
  auto file = ParsePipelineFile(yaml, "copy.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  auto pipeline = BuildPipeline(*file, ConnectorRegistry::Global());
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto summary = (*pipeline)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  for (const char* out : {"/a", "/b"}) {
    std::vector<int> ids;
    for (const auto& entry : fs::directory_iterator(root_ + out)) {
      if (entry.path().extension() != ".jsonl") continue;
      std::ifstream lines(entry.path());
      for (std::string line; std::getline(lines, line);) {
        ids.push_back(nlohmann::json::parse(line).at("id").get<int>());
      }
    }
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids.size(), 100U) << out;
    for (int i = 0; i < 100; ++i) EXPECT_EQ(ids[i], i) << out;
  }
}

// Two sources (each with its own files and event-time field) feed one
// stream: every record of both reaches the sink once.
TEST_F(PipelineFileTest, SourcesAreMergedIntoOneStream) {
  fs::create_directories(root_ + "/in2");
  {
    std::ofstream first(root_ + "/in/a.jsonl");
    std::ofstream second(root_ + "/in2/b.jsonl");
    for (int i = 0; i < 300; ++i) {
      first << R"({"id":)" << i << R"(,"at":)" << 1000 * i << "}\n";
      second << R"({"id":)" << 1000 + i << R"(,"ts":"2026-12-06T00:00:0)"
             << i % 10 << "Z\"}\n";
    }
  }
  const std::string yaml =
      "parallelism: 2\n"
      "checkpoint-interval: 20ms\n"
      "sources:\n"
      "  - {type: json-lines, directory: " +
      root_ +
      "/in, "
      "event-time-field: at}\n"
      "  - {name: second, type: json-lines, directory: " +
      root_ +
      "/in2, "
      "event-time-field: ts, max-out-of-orderness: 10s}\n"
      "sinks: [{type: file, directory: " +
      root_ + "/out}]\n";
  auto file = ParsePipelineFile(yaml, "two.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->sources.size(), 2U);
  EXPECT_EQ(file->sources[0].name, "source-1");
  EXPECT_EQ(file->sources[1].name, "second");
  EXPECT_EQ(file->sources[1].max_out_of_orderness, absl::Seconds(10));
  auto pipeline = BuildPipeline(*file, ConnectorRegistry::Global());
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto summary = (*pipeline)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  std::vector<int> ids;
  for (const auto& entry : fs::directory_iterator(root_ + "/out")) {
    if (entry.path().extension() != ".jsonl") continue;
    std::ifstream lines(entry.path());
    for (std::string line; std::getline(lines, line);) {
      ids.push_back(nlohmann::json::parse(line).at("id").get<int>());
    }
  }
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 600U);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(ids[i], i);
    EXPECT_EQ(ids[300 + i], 1000 + i);
  }
}

TEST_F(PipelineFileTest, TransformsFilterAndKeyRecordsInOrder) {
  {
    std::ofstream in(root_ + "/in/orders.jsonl");
    for (int i = 0; i < 60; ++i) {
      nlohmann::json order = {{"id", i},
                              {"status", i % 3 == 0 ? "paid" : "new"}};
      if (i % 4 != 0) order["customer"] = absl::StrCat("c", i % 5);
      in << order.dump() << "\n";
    }
  }
  const std::string yaml =
      "parallelism: 2\n"
      "source: {type: json-lines, directory: " +
      root_ +
      "/in}\n"
      "transforms:\n"
      "  - {type: filter, field: status, equals: paid}\n"
      "  - {type: filter, field: customer}\n"
      "  - {type: key-by, field: customer}\n"
      "sinks: [{type: file, directory: " +
      root_ + "/out}]\n";
  auto file = ParsePipelineFile(yaml, "t.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->transforms.size(), 3U);
  auto pipeline = BuildPipeline(*file, ConnectorRegistry::Global());
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE((*pipeline)->Run().ok());
  std::vector<int> ids;
  for (const auto& entry : fs::directory_iterator(root_ + "/out")) {
    std::ifstream lines(entry.path());
    for (std::string line; std::getline(lines, line);) {
      ids.push_back(nlohmann::json::parse(line).at("id").get<int>());
    }
  }
  std::sort(ids.begin(), ids.end());
  std::vector<int> expected;
  for (int i = 0; i < 60; ++i) {
    if (i % 3 == 0 && i % 4 != 0) expected.push_back(i);
  }
  EXPECT_EQ(ids, expected);

  for (const auto& [bad, message] :
       std::vector<std::pair<std::string, std::string>>{
           {"transforms: [{type: map, field: a}]\n",
            "t.yaml:1:21: pipeline 'transforms' item 1: type: unknown value "
            "'map'; accepted values: filter, key-by"},
           {"transforms: [{type: key-by}]\n", "option 'field' is required"},
           {"transforms: [{type: key-by, field: a, equals: b}]\n",
            "unknown option 'equals'"},
       }) {
    auto parsed =
        ParsePipelineFile(bad +
                              "source: {type: json-lines, paths: [a]}\n"
                              "sinks: [{type: file, directory: /tmp/o}]\n",
                          "t.yaml");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr(message)) << bad;
  }
}

}  // namespace
}  // namespace gcpstream::config

// The local connectors inside real pipelines: JSON lines in, file out;
// an unbounded generator stopped from outside.

#include <algorithm>
#include <filesystem>
#include <thread>

#include "absl/strings/str_split.h"
#include "gcpstream/runtime/connectors/file_sink.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/connectors/json_lines_source.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gcpstream/runtime/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

namespace fs = std::filesystem;

// Lines of every committed part file under `directory`.
std::vector<std::string> PartFileLines(const std::string& directory) {
  std::vector<std::string> lines;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (!entry.is_regular_file()) continue;
    for (absl::string_view line : absl::StrSplit(
             ReadTestFile(entry.path().string()), '\n', absl::SkipEmpty())) {
      lines.emplace_back(line);
    }
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(LocalPipelineTest, JsonLinesThroughKeyByToExactlyOnceFiles) {
  const std::string root = FreshTestDirectory();
  fs::create_directories(root + "/in");
  WriteTestFile(root + "/in/a.jsonl",
                "{\"id\":1,\"region\":\"eu\"}\n{\"id\":2,\"region\":\"us\"}\n");
  WriteTestFile(root + "/in/b.jsonl", "{\"id\":3,\"region\":\"eu\"}\n");
  JsonLinesSourceOptions source_options;
  source_options.files.directory = root + "/in";
  source_options.files.suffix = ".jsonl";
  auto source = JsonLinesSource::Create("orders", source_options);
  ASSERT_TRUE(source.ok()) << source.status();
  FileSinkOptions sink_options;
  sink_options.directory = root + "/out";
  auto sink = FileSink<std::string>::Create(
      "ids", [](const std::string& line) { return line; }, sink_options);
  ASSERT_TRUE(sink.ok()) << sink.status();

  PipelineOptions options;
  options.checkpoint_directory = root + "/checkpoints";
  Pipeline pipeline(options);
  pipeline.AddSource(std::shared_ptr<JsonLinesSource>(*std::move(source)), 2)
      .KeyBy(
          [](const json::JsonRecord& order) {
            return order.Tree()["region"].get<std::string>();
          },
          2)
      .Map([](const json::JsonRecord& record) {
        const nlohmann::json order = record.Tree();
        return absl::StrCat(order["region"].get<std::string>(), ":",
                            order["id"].get<int>());
      })
      .SinkTo(std::shared_ptr<FileSink<std::string>>(*std::move(sink)));
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(PartFileLines(root + "/out"),
              ::testing::ElementsAre("eu:1", "eu:3", "us:2"));
}

TEST(LocalPipelineTest, UnboundedGeneratorStopsOnRequestWithoutDuplicates) {
  const std::string root = FreshTestDirectory();
  GeneratorOptions generator;
  generator.records_per_second = 20000;  // Unbounded by default.
  auto source = GeneratorSource<int64_t>::Create(
      "ticks", [](int64_t i) { return i; }, generator);
  ASSERT_TRUE(source.ok());
  FileSinkOptions sink_options;
  sink_options.directory = root + "/out";
  auto sink = FileSink<int64_t>::Create(
      "ticks", [](const int64_t& v) { return absl::StrCat(v); }, sink_options);
  ASSERT_TRUE(sink.ok());
  PipelineOptions options;
  options.checkpoint_directory = root + "/checkpoints";
  options.checkpoint_interval = absl::Milliseconds(20);
  Pipeline pipeline(options);
  pipeline
      .AddSource(std::shared_ptr<GeneratorSource<int64_t>>(*std::move(source)),
                 2)
      .SinkTo(std::shared_ptr<FileSink<int64_t>>(*std::move(sink)));
  std::thread stopper([&pipeline] {
    absl::SleepFor(absl::Milliseconds(300));
    pipeline.Stop();
  });
  auto summary = pipeline.Run();
  stopper.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_GE(summary->checkpoints_completed, 3);
  // What was committed is a set of distinct ticks, nothing twice.
  const std::vector<std::string> lines = PartFileLines(root + "/out");
  EXPECT_FALSE(lines.empty());
  EXPECT_EQ(std::adjacent_find(lines.begin(), lines.end()), lines.end());
}

}  // namespace
}  // namespace gcpstream::runtime

#include "gcpstream/runtime/connectors/json_lines_source.h"

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/connectors/collecting_output.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Json = nlohmann::json;
using Record = json::JsonRecord;

std::vector<Json> Trees(const std::vector<Record>& records) {
  std::vector<Json> trees;
  trees.reserve(records.size());
  for (const Record& record : records) trees.push_back(record.Tree());
  return trees;
}

std::unique_ptr<JsonLinesSource> MakeJsonLinesSource(
    const std::string& path, MalformedLinePolicy policy,
    int64_t max_line_bytes = FileSourceOptions().max_line_bytes) {
  JsonLinesSourceOptions options;
  options.files.paths = {path};
  options.files.max_line_bytes = max_line_bytes;
  options.malformed_line_policy = policy;
  auto source = JsonLinesSource::Create("events", std::move(options));
  EXPECT_TRUE(source.ok()) << source.status();
  return source.ok() ? *std::move(source) : nullptr;
}

absl::StatusOr<PollResult> ReadAllRecords(
    JsonLinesSource& source, const SourceReaderContext& context,
    CollectingOutput<Record>& output,
    std::vector<Split>* splits_out = nullptr) {
  auto reader = source.CreateReader(context, source.PlanSplits(1).value());
  if (!reader.ok()) return reader.status();
  absl::StatusOr<PollResult> result;
  for (int i = 0; i < 100; ++i) {
    result = (*reader)->PollNext(output);
    if (!result.ok() || result->status == InputStatus::kEndOfInput) break;
  }
  if (splits_out != nullptr) *splits_out = (*reader)->SnapshotState(1).value();
  return result;
}

TEST(JsonLinesSourceTest, PolicySpellings) {
  EXPECT_TRUE(kMalformedLinePolicyOption.CheckSpellings().ok());
  EXPECT_EQ(kMalformedLinePolicyOption.Parse("SKIP").value(),
            MalformedLinePolicy::kSkip);
  absl::StatusOr<MalformedLinePolicy> bad =
      kMalformedLinePolicyOption.Parse("ignore");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("malformed-line-policy"));
}

TEST(JsonLinesSourceTest, EmitsOneValuePerLineAndPassesOverBlankLines) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  WriteTestFile(path, "{\"a\":1}\n  \n[1,2]\r\n\"text\"\n42\n\n");
  auto source = MakeJsonLinesSource(path, MalformedLinePolicy::kFail);
  ASSERT_NE(source, nullptr);
  CollectingOutput<Record> output;
  auto result = ReadAllRecords(*source, SourceReaderContext{}, output);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, InputStatus::kEndOfInput);
  EXPECT_THAT(
      Trees(output.values),
      ElementsAre(Json{{"a", 1}}, Json::array({1, 2}), Json("text"), Json(42)));
  EXPECT_EQ(source->records_skipped_malformed(), 0u);
}

TEST(JsonLinesSourceTest, FailPolicyNamesFileAndLineNumber) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  WriteTestFile(path, "{\"a\":1}\n{\"a\":2}\n{\"a\":\n{\"a\":4}\n");
  auto source = MakeJsonLinesSource(path, MalformedLinePolicy::kFail);
  ASSERT_NE(source, nullptr);
  CollectingOutput<Record> output;
  auto result = ReadAllRecords(*source, SourceReaderContext{}, output);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("line 3"));
  EXPECT_EQ(output.values.size(), 2u);
}

TEST(JsonLinesSourceTest, LineNumberIsRightAfterARestore) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  WriteTestFile(path, "1\n2\n3\nnot json\n");
  auto source = MakeJsonLinesSource(path, MalformedLinePolicy::kFail);
  ASSERT_NE(source, nullptr);
  auto reader = source->CreateReader(SourceReaderContext{}, {Split{path, "4"}});
  ASSERT_TRUE(reader.ok());
  CollectingOutput<Record> output;
  auto result = (*reader)->PollNext(output);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("line 4"));
  EXPECT_THAT(Trees(output.values), ElementsAre(Json(3)));
}

TEST(JsonLinesSourceTest, InvalidUtf8IsMalformedNotACrash) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  WriteTestFile(path, "\"ok\"\n\"\xff\xfe\"\n");
  auto source = MakeJsonLinesSource(path, MalformedLinePolicy::kFail);
  ASSERT_NE(source, nullptr);
  CollectingOutput<Record> output;
  auto result = ReadAllRecords(*source, SourceReaderContext{}, output);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("line 2"));
}

TEST(JsonLinesSourceTest, SkipPolicyCountsAndMovesPastMalformedLines) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  WriteTestFile(path, "1\n{oops\n2\n]\n3");
  auto source = MakeJsonLinesSource(path, MalformedLinePolicy::kSkip);
  ASSERT_NE(source, nullptr);
  MetricsRegistry metrics;
  SourceReaderContext context;
  context.pipeline = "p";
  context.subtask_index = 2;
  context.metrics = &metrics;
  CollectingOutput<Record> output;
  std::vector<Split> splits;
  auto result = ReadAllRecords(*source, context, output, &splits);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, InputStatus::kEndOfInput);
  EXPECT_THAT(Trees(output.values), ElementsAre(Json(1), Json(2), Json(3)));
  EXPECT_EQ(source->records_skipped_malformed(), 2u);
  auto counter =
      metrics.GetCounter("records_skipped_malformed",
                         "Input lines skipped because they are not JSON.",
                         MetricLabels{"p", "events", 2, std::nullopt});
  ASSERT_TRUE(counter.ok());
  EXPECT_EQ((*counter)->Value(), 2u);
  ASSERT_EQ(splits.size(), 1u);
  EXPECT_EQ(splits[0].state, "13");  // The whole file.
}

TEST(JsonLinesSourceTest, ALineOverMaxLineBytesIsMalformed) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  const std::string big = R"({"blob":")" + std::string(300, 'b') + R"("})";
  WriteTestFile(path, "{\"a\":1}\n" + big + "\n{\"a\":3}\n");
  auto failing = MakeJsonLinesSource(path, MalformedLinePolicy::kFail, 100);
  ASSERT_NE(failing, nullptr);
  CollectingOutput<Record> failed;
  auto result = ReadAllRecords(*failing, SourceReaderContext{}, failed);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              HasSubstr(path + "' line 2: a line of 311 bytes is longer than "
                               "option 'max-line-bytes' (100)"));
  EXPECT_EQ(failed.values.size(), 1u);

  auto skipping = MakeJsonLinesSource(path, MalformedLinePolicy::kSkip, 100);
  ASSERT_NE(skipping, nullptr);
  CollectingOutput<Record> kept;
  result = ReadAllRecords(*skipping, SourceReaderContext{}, kept);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Trees(kept.values), ElementsAre(Json{{"a", 1}}, Json{{"a", 3}}));
  EXPECT_EQ(skipping->records_skipped_malformed(), 1u);
}

TEST(JsonLinesSourceTest, SkipPolicyWithoutMetricsStillCounts) {
  const std::string path = FreshTestDirectory() + "/in.jsonl";
  WriteTestFile(path, "x\ny\n");
  auto source = MakeJsonLinesSource(path, MalformedLinePolicy::kSkip);
  ASSERT_NE(source, nullptr);
  CollectingOutput<Record> output;
  ASSERT_TRUE(ReadAllRecords(*source, SourceReaderContext{}, output).ok());
  EXPECT_TRUE(output.values.empty());
  EXPECT_EQ(source->records_skipped_malformed(), 2u);
}

}  // namespace
}  // namespace gcpstream::runtime

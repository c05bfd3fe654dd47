#include "gcpstream/runtime/connectors/json_lines_source.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/line_source_reader.h"

namespace gcpstream::runtime {
namespace {

constexpr absl::string_view kSkippedMetric = "records_skipped_malformed";

}  // namespace

absl::StatusOr<std::unique_ptr<JsonLinesSource>> JsonLinesSource::Create(
    std::string name, JsonLinesSourceOptions options) {
  absl::Status valid = CheckFileSourceOptions(options.files, name);
  if (!valid.ok()) return valid;
  return std::make_unique<JsonLinesSource>(Token(), std::move(name),
                                           std::move(options));
}

absl::StatusOr<std::vector<Split>> JsonLinesSource::PlanSplits(
    int parallelism) {
  if (parallelism < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "json lines source '", name_, "': parallelism must be >= 1"));
  }
  return PlanFileSplits(options_.files, name_);
}

absl::StatusOr<std::unique_ptr<SourceReader<json::JsonRecord>>>
JsonLinesSource::CreateReader(const SourceReaderContext& context,
                              std::vector<Split> splits) {
  absl::StatusOr<std::vector<FileSplit>> parsed =
      ParseFileSplits(splits, name_);
  if (!parsed.ok()) return parsed.status();
  std::shared_ptr<Counter> registry_skipped;
  if (context.metrics != nullptr) {
    absl::StatusOr<std::shared_ptr<Counter>> counter =
        context.metrics->GetCounter(
            kSkippedMetric, "Input lines skipped because they are not JSON.",
            MetricLabels{context.pipeline, name_, context.subtask_index,
                         std::nullopt});
    if (!counter.ok()) return counter.status();
    registry_skipped = *std::move(counter);
  }
  const bool skip =
      options_.malformed_line_policy == MalformedLinePolicy::kSkip;
  auto parse = [skip, total = skipped_,
                registry_skipped](json::PaddedBytes& line)
      -> absl::StatusOr<std::optional<json::JsonRecord>> {
    if (absl::StripAsciiWhitespace(line.view()).empty()) return std::nullopt;
    absl::StatusOr<json::JsonRecord> value =
        json::JsonRecord::Parse(std::move(line));
    if (value.ok()) return std::optional(*std::move(value));
    if (!skip) {
      return absl::InvalidArgumentError(
          "malformed JSON (malformed-line-policy: fail)");
    }
    total->Increment();
    if (registry_skipped != nullptr) registry_skipped->Increment();
    return std::nullopt;
  };
  // A line over max-line-bytes is malformed: skipped and counted, or fatal.
  auto oversized = [skip, total = skipped_, registry_skipped,
                    files = options_.files](int64_t bytes) -> absl::Status {
    if (!skip) {
      return absl::Status(
          absl::StatusCode::kInvalidArgument,
          absl::StrCat(OversizedLineError(bytes, files).message(),
                       " (malformed-line-policy: fail)"));
    }
    total->Increment();
    if (registry_skipped != nullptr) registry_skipped->Increment();
    return absl::OkStatus();
  };
  return std::make_unique<
      LineSourceReader<json::JsonRecord, json::PaddedBytes>>(
      name_, *std::move(parsed), options_.files.max_lines_per_poll,
      options_.files.max_line_bytes, std::move(parse), std::move(oversized));
}

}  // namespace gcpstream::runtime

#ifndef GCPSTREAM_RUNTIME_CONNECTORS_JSON_LINES_SOURCE_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_JSON_LINES_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/options.h"
#include "gcpstream/json/json_record.h"
#include "gcpstream/runtime/connectors/file_splits.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// What a JSON-lines source does with a line that is not valid JSON.
enum class MalformedLinePolicy {
  // Fail the job with an error naming the file and the line number.
  kFail,
  // Drop the line and count it in `records_skipped_malformed`.
  kSkip,
};

inline constexpr EnumSpelling<MalformedLinePolicy> kMalformedLinePolicies[] = {
    {"fail", MalformedLinePolicy::kFail},
    {"skip", MalformedLinePolicy::kSkip},
};
inline constexpr EnumOption<MalformedLinePolicy> kMalformedLinePolicyOption(
    "malformed-line-policy", kMalformedLinePolicies);

struct JsonLinesSourceOptions {
  FileSourceOptions files;
  MalformedLinePolicy malformed_line_policy = MalformedLinePolicy::kFail;
};

// A bounded source of the JSON values of JSON-lines files (one value per
// line, any JSON type), with the splits, offsets and errors of FileSource.
// Blank lines (only whitespace) carry no value and are passed over without
// being counted as malformed, so a trailing empty line is harmless. Each
// record is validated and indexed once, and shares the block it was read
// into (json::JsonRecord).
class JsonLinesSource final : public Source<json::JsonRecord> {
 public:
  static absl::StatusOr<std::unique_ptr<JsonLinesSource>> Create(
      std::string name, JsonLinesSourceOptions options);

 private:
  // Keeps the constructor to Create(), which checks the options.
  struct Token {
    explicit Token() = default;
  };

 public:
  JsonLinesSource(Token /*token*/, std::string name,
                  JsonLinesSourceOptions options)
      : name_(std::move(name)), options_(std::move(options)) {}

  std::string name() const override { return name_; }
  bool bounded() const override { return true; }

  absl::StatusOr<std::vector<Split>> PlanSplits(int parallelism) override;

  // With `context.metrics` set, skipped lines are also counted in the
  // registry's `records_skipped_malformed` counter of the subtask.
  absl::StatusOr<std::unique_ptr<SourceReader<json::JsonRecord>>> CreateReader(
      const SourceReaderContext& context, std::vector<Split> splits) override;

  // Lines skipped as malformed by every reader of this source so far.
  uint64_t records_skipped_malformed() const { return skipped_->Value(); }

 private:
  std::string name_;
  JsonLinesSourceOptions options_;
  std::shared_ptr<Counter> skipped_ = std::make_shared<Counter>();
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_JSON_LINES_SOURCE_H_

#include "gcpstream/runtime/connectors/generator_split.h"

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace gcpstream::runtime {
namespace {

constexpr absl::string_view kIdPrefix = "generator-";
constexpr absl::string_view kIdInfix = "-of-";

absl::Status BadSplit(const Split& split, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("generator source: split '", split.id, "' with state '",
                   split.state, "' is not a generator split: ", why));
}

}  // namespace

Split GeneratorSplit::ToSplit() const {
  return Split{absl::StrCat(kIdPrefix, offset, kIdInfix, stride),
               absl::StrCat(next)};
}

absl::StatusOr<std::vector<Split>> PlanGeneratorSplits(int parallelism) {
  if (parallelism < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "generator source: parallelism must be >= 1, got ", parallelism));
  }
  std::vector<Split> splits;
  splits.reserve(parallelism);
  for (int i = 0; i < parallelism; ++i) {
    splits.push_back(GeneratorSplit{i, parallelism, i}.ToSplit());
  }
  return splits;
}

absl::StatusOr<GeneratorSplit> ParseGeneratorSplit(const Split& split) {
  absl::string_view id = split.id;
  if (!absl::ConsumePrefix(&id, kIdPrefix)) {
    return BadSplit(split,
                    absl::StrCat("the id must start with '", kIdPrefix, "'"));
  }
  const std::vector<absl::string_view> parts =
      absl::StrSplit(id, absl::MaxSplits(kIdInfix, 1));
  GeneratorSplit parsed;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &parsed.offset) ||
      !absl::SimpleAtoi(parts[1], &parsed.stride)) {
    return BadSplit(split, "the id must be 'generator-<offset>-of-<stride>'");
  }
  if (parsed.stride < 1 || parsed.offset < 0 ||
      parsed.offset >= parsed.stride) {
    return BadSplit(split, "offset must be in [0, stride)");
  }
  if (!absl::SimpleAtoi(split.state, &parsed.next)) {
    return BadSplit(split, "the state must be a decimal index");
  }
  // An index outside the split's own sequence would emit another split's
  // records: duplicates in one place, a gap in another.
  if (parsed.next != GeneratorSplit::kExhausted &&
      (parsed.next < parsed.offset ||
       (parsed.next - parsed.offset) % parsed.stride != 0)) {
    return BadSplit(split, "the next index is not in this split's sequence");
  }
  return parsed;
}

}  // namespace gcpstream::runtime

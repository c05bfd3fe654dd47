#ifndef GCPSTREAM_RUNTIME_CONNECTORS_GENERATOR_SOURCE_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_GENERATOR_SOURCE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/runtime/connectors/generator_split.h"
#include "gcpstream/runtime/connectors/rate_limiter.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

struct GeneratorOptions {
  // Indices [0, count) for a bounded source; kUnbounded for an endless one.
  static constexpr int64_t kUnbounded = -1;
  int64_t count = kUnbounded;
  // Records per second for the whole source, shared evenly by its readers
  // (each paces at rate / parallelism); 0 means as fast as possible.
  double records_per_second = 0;
  // The most records one PollNext() emits, so the task serves its mailbox
  // and checkpoints in between.
  int max_records_per_poll = 1000;
  // Time for the rate limit; tests pass a FakeClock.
  const Clock* clock = &RealClock::Instance();
};

// Emits make(0), make(1), ..., make(count - 1): a deterministic sequence for
// tests, benchmarks and examples. Split i of a first start at parallelism p
// covers the indices i, i + p, i + 2p, ...; a reader owning several splits
// (a checkpoint restored at a lower parallelism) emits their records in
// ascending index order. A restored reader resumes right after the last
// record the checkpoint covered: no gap, no duplicate.
template <typename T>
class GeneratorSource final : public Source<T> {
 public:
  using MakeRecord = std::function<T(int64_t index)>;

  static absl::StatusOr<std::unique_ptr<GeneratorSource>> Create(
      std::string name, MakeRecord make, GeneratorOptions options);

 private:
  // Keeps the constructor to Create(), which checks the options.
  struct Token {
    explicit Token() = default;
  };

 public:
  GeneratorSource(Token /*token*/, std::string name, MakeRecord make,
                  GeneratorOptions options)
      : name_(std::move(name)), make_(std::move(make)), options_(options) {}

  std::string name() const override { return name_; }
  bool bounded() const override {
    return options_.count != GeneratorOptions::kUnbounded;
  }

  absl::StatusOr<std::vector<Split>> PlanSplits(int parallelism) override {
    return PlanGeneratorSplits(parallelism);
  }

  absl::StatusOr<std::unique_ptr<SourceReader<T>>> CreateReader(
      const SourceReaderContext& context, std::vector<Split> splits) override;

 private:
  class Reader;

  std::string name_;
  MakeRecord make_;
  GeneratorOptions options_;
};

template <typename T>
class GeneratorSource<T>::Reader final : public SourceReader<T> {
 public:
  Reader(const GeneratorSource& source, std::vector<GeneratorSplit> splits,
         std::optional<RateLimiter> limiter)
      : make_(source.make_),
        // The unbounded sequence stops short of int64 overflow.
        end_(source.options_.count == GeneratorOptions::kUnbounded
                 ? std::numeric_limits<int64_t>::max()
                 : source.options_.count),
        max_per_poll_(source.options_.max_records_per_poll),
        splits_(std::move(splits)),
        limiter_(limiter) {}

  absl::StatusOr<PollResult> PollNext(ReaderOutput<T>& output) override {
    int64_t budget = max_per_poll_;
    if (limiter_.has_value()) {
      budget = limiter_->Allowed(budget);
      if (budget == 0) {
        return PollResult{InputStatus::kNothingAvailable,
                          limiter_->NextDueIn()};
      }
    }
    int64_t emitted = 0;
    for (GeneratorSplit* split = Lowest(); split != nullptr && emitted < budget;
         split = Lowest()) {
      output.Collect(make_(split->next));
      ++emitted;
      split->next = split->next > GeneratorSplit::kExhausted - split->stride
                        ? GeneratorSplit::kExhausted
                        : split->next + split->stride;
    }
    if (limiter_.has_value()) limiter_->Consumed(emitted);
    if (Lowest() == nullptr) return PollResult{InputStatus::kEndOfInput};
    return PollResult{InputStatus::kMoreAvailable};
  }

  absl::StatusOr<std::vector<Split>> SnapshotState(
      int64_t /*checkpoint_id*/) override {
    std::vector<Split> out;
    out.reserve(splits_.size());
    for (const GeneratorSplit& split : splits_) out.push_back(split.ToSplit());
    return out;
  }

 private:
  // The unexhausted split with the lowest next index, or nullptr. Linear:
  // a reader owns a handful of splits.
  GeneratorSplit* Lowest() {
    GeneratorSplit* lowest = nullptr;
    for (GeneratorSplit& split : splits_) {
      if (split.next >= end_) continue;
      if (lowest == nullptr || split.next < lowest->next) lowest = &split;
    }
    return lowest;
  }

  // A copy: the reader may outlive the source object.
  const MakeRecord make_;
  const int64_t end_;
  const int64_t max_per_poll_;
  std::vector<GeneratorSplit> splits_;
  std::optional<RateLimiter> limiter_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<GeneratorSource<T>>> GeneratorSource<T>::Create(
    std::string name, MakeRecord make, GeneratorOptions options) {
  if (!make) {
    return absl::InvalidArgumentError(absl::StrCat(
        "generator source '", name, "': the record function is empty"));
  }
  if (options.count < GeneratorOptions::kUnbounded) {
    return absl::InvalidArgumentError(absl::StrCat(
        "generator source '", name,
        "': count must be >= 0, or -1 for unbounded; got ", options.count));
  }
  if (!(options.records_per_second >= 0)) {  // Also refuses NaN.
    return absl::InvalidArgumentError(
        absl::StrCat("generator source '", name,
                     "': records per second must be >= 0 (0 = unlimited); got ",
                     options.records_per_second));
  }
  if (options.max_records_per_poll < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("generator source '", name,
                     "': max records per poll must be >= 1; got ",
                     options.max_records_per_poll));
  }
  if (options.clock == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("generator source '", name, "': the clock is null"));
  }
  return std::make_unique<GeneratorSource>(Token(), std::move(name),
                                           std::move(make), options);
}

template <typename T>
absl::StatusOr<std::unique_ptr<SourceReader<T>>>
GeneratorSource<T>::CreateReader(const SourceReaderContext& context,
                                 std::vector<Split> splits) {
  std::vector<GeneratorSplit> parsed;
  parsed.reserve(splits.size());
  for (const Split& split : splits) {
    absl::StatusOr<GeneratorSplit> one = ParseGeneratorSplit(split);
    if (!one.ok()) return one.status();
    parsed.push_back(*one);
  }
  std::optional<RateLimiter> limiter;
  if (options_.records_per_second > 0) {
    if (context.parallelism < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "generator source '", name_,
          "': reader parallelism must be >= 1; got ", context.parallelism));
    }
    absl::StatusOr<RateLimiter> created = RateLimiter::Create(
        options_.records_per_second / context.parallelism, *options_.clock);
    if (!created.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "generator source '", name_, "': ", created.status().message()));
    }
    limiter.emplace(*std::move(created));
  }
  return std::make_unique<Reader>(*this, std::move(parsed), limiter);
}

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_GENERATOR_SOURCE_H_

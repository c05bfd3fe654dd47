#ifndef GCPSTREAM_RUNTIME_CONNECTORS_GENERATOR_SPLIT_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_GENERATOR_SPLIT_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// One slice of a generator's index sequence: the indices offset,
// offset + stride, offset + 2 * stride, ... below the source's count.
//
// The stride is the parallelism of the first start and lives in the split id
// ("generator-<offset>-of-<stride>"), so a split keeps covering the same
// indices when a checkpoint is restored at another parallelism; the state is
// the next index to emit, as decimal text.
struct GeneratorSplit {
  // The next index of a split whose sequence would pass int64's maximum: it
  // is past every count, so the split is exhausted.
  static constexpr int64_t kExhausted = std::numeric_limits<int64_t>::max();

  int64_t offset = 0;
  int64_t stride = 1;
  int64_t next = 0;

  Split ToSplit() const;
};

// The splits of a first start: `parallelism` of them, split i starting at i.
absl::StatusOr<std::vector<Split>> PlanGeneratorSplits(int parallelism);

// Parses a split written by ToSplit(); InvalidArgument naming the split id
// when it was not (e.g. a checkpoint of another source restored here).
absl::StatusOr<GeneratorSplit> ParseGeneratorSplit(const Split& split);

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_GENERATOR_SPLIT_H_

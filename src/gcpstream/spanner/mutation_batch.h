#ifndef GCPSTREAM_SPANNER_MUTATION_BATCH_H_
#define GCPSTREAM_SPANNER_MUTATION_BATCH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_mutation.h"

namespace gcpstream::spanner {

// A mutation as the user built it and as it goes on the wire.
struct PendingMutation {
  Mutation mutation;
  EncodedMutation encoded;
};

struct MutationBatchLimits {
  int64_t max_cells = 0;
  int64_t max_mutations = 0;
  int64_t max_bytes = 0;
};

// The open batch of a Spanner writer. Mutations of one key never share a
// batch: BatchWrite applies groups in no particular order, and the later
// one must win. A mutation whose keys cannot be known (a range delete, a
// write without the whole key) seals the batch: nothing joins it.
class MutationBatch {
 public:
  MutationBatch(MutationBatchLimits limits, const SchemaCatalog& catalog)
      : limits_(limits), catalog_(&catalog) {}

  // A mutation with the keys it touches, computed once.
  struct Candidate {
    PendingMutation pending;
    std::optional<std::vector<std::string>> keys;
  };
  Candidate Prepare(PendingMutation pending) const;
  // False when the open batch must be sent before `candidate` joins it:
  // it would pass a limit or touch a key already in the batch. An empty
  // batch takes anything (a mutation over the limits is sent alone).
  bool Fits(const Candidate& candidate) const;
  void Add(Candidate candidate);
  // Empties the batch.
  std::vector<PendingMutation> Take();

  bool empty() const { return entries_.empty(); }
  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  int64_t cells() const { return cells_; }
  int64_t bytes() const { return bytes_; }

 private:
  MutationBatchLimits limits_;
  const SchemaCatalog* catalog_;
  std::vector<PendingMutation> entries_;
  absl::flat_hash_set<std::string> keys_;
  bool sealed_ = false;
  int64_t cells_ = 0;
  int64_t bytes_ = 0;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_MUTATION_BATCH_H_

#ifndef GCPSTREAM_SPANNER_MUTATION_BATCH_H_
#define GCPSTREAM_SPANNER_MUTATION_BATCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_mutation.h"

namespace gcpstream::spanner {

// Builds the typed form of a mutation its serializer encoded directly.
using TypedMutationBuilder = std::function<absl::StatusOr<Mutation>()>;

// A mutation as it goes on the wire, and as the user built it.
struct PendingMutation {
  // Absent when the serializer encoded the wire form itself (pipeline
  // files): then typed() builds it, only if the write fails.
  mutable std::optional<Mutation> mutation;
  EncodedMutation encoded;
  // The BatchWrite mutation group it shares with the other mutations of its
  // interleave hierarchy's root key (applied together, in order); empty for
  // a group of its own.
  std::string group = {};
  TypedMutationBuilder build_typed = {};

  // What a failure reports: the typed mutation (see Mutation::ToJson).
  const Mutation& typed() const;
};

struct MutationBatchLimits {
  int64_t max_cells = 0;
  int64_t max_mutations = 0;
  int64_t max_bytes = 0;
};

// The open batch of a Spanner writer. BatchWrite applies mutation groups in
// no particular order, so rows that depend on each other are kept apart or
// together:
// - mutations of one key never share a batch in different groups: the later
//   one must win;
// - in an interleave hierarchy, every mutation under one root key goes into
//   one group, applied atomically in arrival order (a parent before its
//   children, children deleted before their parent);
// - hierarchies linked by foreign keys (a family) never share a batch: a
//   mutation of another hierarchy of the family waits for the next batch,
//   after the one holding the rows it may reference (or that reference it)
//   was applied.
// A mutation whose keys cannot be known (a range delete, a write without the
// whole key, a delete spanning root keys) seals the batch: nothing joins it.
class MutationBatch {
 public:
  explicit MutationBatch(MutationBatchLimits limits) : limits_(limits) {}

  // The keys a mutation touches, as comparable strings (one for a write).
  using KeyStrings = absl::InlinedVector<std::string, 1>;
  // A mutation with the keys it touches, computed once.
  struct Candidate {
    PendingMutation pending;
    std::optional<KeyStrings> keys;
    const TableSchema* table = nullptr;
  };
  static Candidate Prepare(PendingMutation pending);
  // False when the open batch must be sent before `candidate` joins it:
  // it would pass a limit or touch a key already in the batch. An empty
  // batch takes anything (a mutation over the limits is sent alone).
  bool Fits(const Candidate& candidate) const;
  void Add(Candidate candidate);

  // The arena the next mutation is encoded on: the open batch's.
  google::protobuf::Arena& arena() { return *arena_; }
  // A batch taken to be sent: its mutations, and the arena their encoded
  // protos live on (declared first, so destroyed after them).
  struct Taken {
    std::unique_ptr<google::protobuf::Arena> arena;
    std::vector<PendingMutation> entries;
  };
  // Empties the batch; the next one gets an arena of its own.
  Taken Take();
  // Take(), for a `next` candidate that did not fit: it opens the next
  // batch, so its encoded proto is copied onto that batch's arena before
  // the taken one (which holds the original) is sent and freed.
  Taken TakeBefore(Candidate& next);

  bool empty() const { return entries_.empty(); }
  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  int64_t cells() const { return cells_; }
  int64_t bytes() const { return bytes_; }

 private:
  static std::unique_ptr<google::protobuf::Arena> NewArena();

  MutationBatchLimits limits_;
  std::unique_ptr<google::protobuf::Arena> arena_ = NewArena();
  std::vector<PendingMutation> entries_;
  // Key -> its group ("" for a group of its own).
  absl::flat_hash_map<std::string, std::string> keys_;
  // Family -> the root of the one hierarchy of it in the batch.
  absl::flat_hash_map<int, const TableSchema*> family_roots_;
  bool sealed_ = false;
  int64_t cells_ = 0;
  int64_t bytes_ = 0;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_MUTATION_BATCH_H_

#include "gcpstream/spanner/mutation_batch.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gcpstream::spanner {
namespace {

std::string KeyPart(const google::protobuf::Value& value) {
  return value.kind_case() == google::protobuf::Value::kStringValue
             ? value.string_value()
             : value.SerializeAsString();
}

std::string KeyString(absl::string_view table,
                      const google::protobuf::ListValue& key) {
  // `table` is the catalog's canonical name, so it compares exactly.
  std::string out(table);
  for (const auto& part : key.values()) {
    absl::StrAppend(&out, "\x1f", KeyPart(part));
  }
  return out;
}

}  // namespace

MutationBatch::Candidate MutationBatch::Prepare(PendingMutation pending) const {
  Candidate candidate{std::move(pending), std::nullopt};
  const auto& proto = candidate.pending.encoded.proto;
  if (proto.has_delete_()) {
    if (proto.delete_().key_set().ranges_size() > 0) return candidate;
    std::vector<std::string> keys;
    for (const auto& key : proto.delete_().key_set().keys()) {
      keys.push_back(KeyString(proto.delete_().table(), key));
    }
    candidate.keys = std::move(keys);
    return candidate;
  }
  const google::spanner::v1::Mutation::Write& write =
      proto.has_insert()             ? proto.insert()
      : proto.has_update()           ? proto.update()
      : proto.has_insert_or_update() ? proto.insert_or_update()
                                     : proto.replace();
  const TableSchema* table =
      catalog_->FindTable(candidate.pending.mutation.table());
  google::protobuf::ListValue key;
  for (int part : table->primary_key) {
    const std::string& name = table->columns[part].name;
    int found = -1;
    for (int i = 0; i < write.columns_size(); ++i) {
      if (write.columns(i) == name) found = i;
    }
    if (found < 0) return candidate;
    *key.add_values() = write.values(0).values(found);
  }
  candidate.keys = std::vector<std::string>{KeyString(write.table(), key)};
  return candidate;
}

bool MutationBatch::Fits(const Candidate& candidate) const {
  if (entries_.empty()) return true;
  if (sealed_ || !candidate.keys.has_value()) return false;
  for (const std::string& key : *candidate.keys) {
    if (keys_.contains(key)) return false;
  }
  const EncodedMutation& encoded = candidate.pending.encoded;
  return cells_ + encoded.cells <= limits_.max_cells &&
         size() + 1 <= limits_.max_mutations &&
         bytes_ + encoded.bytes <= limits_.max_bytes;
}

void MutationBatch::Add(Candidate candidate) {
  if (candidate.keys.has_value()) {
    for (std::string& key : *candidate.keys) keys_.insert(std::move(key));
  } else {
    sealed_ = true;
  }
  cells_ += candidate.pending.encoded.cells;
  bytes_ += candidate.pending.encoded.bytes;
  entries_.push_back(std::move(candidate.pending));
}

std::vector<PendingMutation> MutationBatch::Take() {
  std::vector<PendingMutation> out = std::move(entries_);
  entries_.clear();
  keys_.clear();
  sealed_ = false;
  cells_ = 0;
  bytes_ = 0;
  return out;
}

}  // namespace gcpstream::spanner

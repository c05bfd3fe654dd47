#include "gcpstream/spanner/mutation_batch.h"

#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "spdlog/spdlog.h"

namespace gcpstream::spanner {
namespace {

// A key as the parts of the encoded proto that hold it (the proto lives on
// the batch's arena, as long as the candidate): no copy of any value.
using KeyParts = absl::InlinedVector<const google::protobuf::Value*, 4>;

std::string KeyString(absl::string_view table,
                      absl::Span<const google::protobuf::Value* const> parts) {
  // `table` is the catalog's canonical name, so it compares exactly.
  std::string out(table);
  for (const google::protobuf::Value* part : parts) {
    out.push_back('\x1f');
    if (part->kind_case() == google::protobuf::Value::kStringValue) {
      out.append(part->string_value());
    } else {
      out.append(part->SerializeAsString());
    }
  }
  return out;
}

// The operation and table of `proto`, as a typed mutation without values.
Mutation SkeletonOf(const google::spanner::v1::Mutation& proto,
                    const std::string& table) {
  if (proto.has_insert()) return Mutation::Insert(table);
  if (proto.has_update()) return Mutation::Update(table);
  if (proto.has_insert_or_update()) return Mutation::InsertOrUpdate(table);
  if (proto.has_replace()) return Mutation::Replace(table);
  return Mutation::Delete(table);
}

}  // namespace

const Mutation& PendingMutation::typed() const {
  if (mutation.has_value()) return *mutation;
  absl::StatusOr<Mutation> built =
      build_typed ? build_typed()
                  : absl::InternalError("no typed form was kept");
  if (built.ok()) return mutation.emplace(*std::move(built));
  // The serializer encoded this mutation, so it builds its typed form too:
  // this is a defect. The failure still names the table and operation.
  const TableSchema& table = *encoded.table;
  spdlog::error("the typed form of a mutation of {} could not be rebuilt: {}",
                table.QualifiedName(), built.status().ToString());
  return mutation.emplace(SkeletonOf(*encoded.proto, table.QualifiedName()));
}

MutationBatch::Candidate MutationBatch::Prepare(PendingMutation pending) {
  const TableSchema* table = pending.encoded.table;
  Candidate candidate{std::move(pending), std::nullopt, table};
  const google::spanner::v1::Mutation& proto = *candidate.pending.encoded.proto;
  absl::InlinedVector<KeyParts, 1> keys;
  absl::string_view table_name;
  if (proto.has_delete_()) {
    if (proto.delete_().key_set().ranges_size() > 0) return candidate;
    table_name = proto.delete_().table();
    for (const google::protobuf::ListValue& key :
         proto.delete_().key_set().keys()) {
      KeyParts& parts = keys.emplace_back();
      for (const google::protobuf::Value& part : key.values()) {
        parts.push_back(&part);
      }
    }
  } else {
    const google::spanner::v1::Mutation::Write& write =
        proto.has_insert()             ? proto.insert()
        : proto.has_update()           ? proto.update()
        : proto.has_insert_or_update() ? proto.insert_or_update()
                                       : proto.replace();
    table_name = write.table();
    KeyParts& key = keys.emplace_back();
    for (int part : candidate.table->primary_key) {
      const std::string& name = candidate.table->columns[part].name;
      int found = -1;
      for (int i = 0; i < write.columns_size(); ++i) {
        if (write.columns(i) == name) found = i;
      }
      if (found < 0) return candidate;
      key.push_back(&write.values(0).values(found));
    }
  }
  std::optional<std::string> group;
  if (candidate.table != nullptr && candidate.table->hierarchy) {
    const size_t parts = candidate.table->root_key_parts;
    for (const KeyParts& key : keys) {
      if (key.size() < parts) return candidate;
      std::string root_key =
          KeyString(candidate.table->root->QualifiedName(),
                    absl::MakeConstSpan(key).subspan(0, parts));
      if (group.has_value() && *group != root_key) return candidate;
      group = std::move(root_key);
    }
  }
  KeyStrings key_strings;
  key_strings.reserve(keys.size());
  for (const KeyParts& key : keys) {
    key_strings.push_back(KeyString(table_name, key));
  }
  candidate.keys = std::move(key_strings);
  if (group.has_value()) candidate.pending.group = *std::move(group);
  return candidate;
}

bool MutationBatch::Fits(const Candidate& candidate) const {
  if (entries_.empty()) return true;
  if (sealed_ || !candidate.keys.has_value()) return false;
  const std::string& group = candidate.pending.group;
  for (const std::string& key : *candidate.keys) {
    auto it = keys_.find(key);
    if (it != keys_.end() && (group.empty() || it->second != group)) {
      return false;
    }
  }
  if (candidate.table != nullptr && candidate.table->family >= 0) {
    auto it = family_roots_.find(candidate.table->family);
    if (it != family_roots_.end() && it->second != candidate.table->root) {
      return false;
    }
  }
  const EncodedMutation& encoded = candidate.pending.encoded;
  return cells_ + encoded.cells <= limits_.max_cells &&
         size() + 1 <= limits_.max_mutations &&
         bytes_ + encoded.bytes <= limits_.max_bytes;
}

void MutationBatch::Add(Candidate candidate) {
  if (candidate.keys.has_value()) {
    for (std::string& key : *candidate.keys) {
      keys_.try_emplace(std::move(key), candidate.pending.group);
    }
  } else {
    sealed_ = true;
  }
  if (candidate.table != nullptr && candidate.table->family >= 0) {
    family_roots_.try_emplace(candidate.table->family, candidate.table->root);
  }
  cells_ += candidate.pending.encoded.cells;
  bytes_ += candidate.pending.encoded.bytes;
  entries_.push_back(std::move(candidate.pending));
}

std::unique_ptr<google::protobuf::Arena> MutationBatch::NewArena() {
  // A default batch (500 mutations of a few columns) takes a few hundred
  // KiB: start with blocks big enough that it needs only a handful.
  google::protobuf::ArenaOptions options;
  options.start_block_size = size_t{64} * 1024;
  options.max_block_size = size_t{1024} * 1024;
  return std::make_unique<google::protobuf::Arena>(options);
}

MutationBatch::Taken MutationBatch::TakeBefore(Candidate& next) {
  Taken taken = Take();
  auto* proto =
      google::protobuf::Arena::CreateMessage<google::spanner::v1::Mutation>(
          arena_.get());
  *proto = *next.pending.encoded.proto;
  next.pending.encoded.proto = proto;
  return taken;
}

MutationBatch::Taken MutationBatch::Take() {
  Taken out{std::move(arena_), std::move(entries_)};
  arena_ = NewArena();
  entries_.clear();
  keys_.clear();
  family_roots_.clear();
  sealed_ = false;
  cells_ = 0;
  bytes_ = 0;
  return out;
}

}  // namespace gcpstream::spanner

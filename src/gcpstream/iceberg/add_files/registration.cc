#include "gcpstream/iceberg/add_files/registration.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gcpstream/iceberg/evolution/schema_delta.h"
#include "gcpstream/iceberg/parquet/field_ids.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"
#include "gcpstream/iceberg/parquet/partition_inference.h"

namespace gcpstream::iceberg {
namespace {

absl::Status Refused(absl::string_view reason) {
  return absl::InvalidArgumentError(reason);
}

// The field at the dotted `path`, with whether it and every field above it
// are required; nullptr when the schema has no such field.
const Field* FindPath(const Schema& schema, const std::string& path,
                      bool& required_all_the_way) {
  const std::vector<Field>* level = &schema.fields;
  const Field* found = nullptr;
  required_all_the_way = true;
  for (absl::string_view name : absl::StrSplit(path, '.')) {
    found = nullptr;
    for (const Field& field : *level) {
      if (field.name == name) found = &field;
    }
    if (found == nullptr) return nullptr;
    required_all_the_way &= found->required;
    level = &found->type.fields;
  }
  return found;
}

// The nulls the footer counts in the primitive column at `path` (outside
// lists and maps, where physical and Iceberg paths agree) over the row
// groups that have rows; nullopt when one of them lacks the count.
std::optional<int64_t> CountedNulls(const ParquetFooter& footer,
                                    const std::string& path) {
  int64_t nulls = 0;
  bool found = false;
  for (const ParquetRowGroup& group : footer.row_groups) {
    if (group.num_rows == 0) continue;
    for (const ParquetColumnChunk& chunk : group.columns) {
      if (absl::StrJoin(chunk.path, ".") != path) continue;
      found = true;
      if (!chunk.statistics.has_value() ||
          !chunk.statistics->null_count.has_value()) {
        return std::nullopt;
      }
      nulls += *chunk.statistics->null_count;
    }
  }
  if (!found) return std::nullopt;
  return nulls;
}

// Whether the table's schema covers the file's (effective) schema: the
// window's schema commit made the changes the options allow, so what is
// left is refused.
absl::Status CheckCoverage(const Schema& table, const Schema& effective,
                           const EvolutionConfig& evolution) {
  const std::vector<SchemaChange> changes = ClassifySchema(table, effective);
  if (changes.empty()) return absl::OkStatus();
  std::vector<std::string> reasons =
      DisallowedChanges(changes, evolution.options, evolution.pins);
  if (reasons.empty()) {
    for (const SchemaChange& change : changes) {
      reasons.push_back(change.description);
    }
    return Refused(absl::StrCat(
        "the table's schema does not cover the file (changes not applied: ",
        absl::StrJoin(reasons, "; "), ")"));
  }
  return Refused(absl::StrCat("the table's schema does not cover the file: ",
                              absl::StrJoin(reasons, "; ")));
}

// Each pin the table has must be in the file and proven free of nulls.
absl::Status CheckPins(const FileToRegister& file, const Schema& table,
                       const Schema& effective,
                       const RegistrationTarget& target, bool& unproven) {
  for (const std::string& pin : target.evolution->pins) {
    bool unused = false;
    if (FindPath(table, pin, unused) == nullptr) continue;
    bool proven = false;
    if (FindPath(effective, pin, proven) == nullptr) {
      return Refused(
          absl::StrCat("required column `", pin, "` is absent from the file"));
    }
    if (proven) continue;
    const std::optional<int64_t> nulls = CountedNulls(file.footer, pin);
    if (nulls.has_value() && *nulls > 0) {
      return Refused(absl::StrCat("required column `", pin, "` has ", *nulls,
                                  *nulls == 1 ? " null" : " nulls",
                                  " in the file"));
    }
    if (nulls.has_value()) continue;
    if (target.unverifiable == UnverifiableFileHandling::kReject) {
      return Refused(absl::StrCat(
          "required column `", pin,
          "` has no null count statistics in the file to prove it has no "
          "nulls (unverifiable-file-handling: accept registers such files)"));
    }
    unproven = true;
  }
  return absl::OkStatus();
}

// The file's partition: from its path after the prefix, or from its
// bounds, taken in full (the table's own metrics may truncate or omit the
// partition source columns; the data file keeps those).
absl::StatusOr<PartitionTuple> PartitionOf(
    const FileToRegister& file, const Schema& table,
    const std::vector<std::optional<LeafBinding>>& bindings,
    const RegistrationTarget& target) {
  if (target.spec == nullptr || target.spec->fields.empty()) {
    return PartitionTuple();
  }
  if (!target.partition_path_prefix.empty()) {
    absl::string_view rest = file.path;
    std::string prefix = target.partition_path_prefix;
    if (!absl::EndsWith(prefix, "/")) prefix += "/";
    if (!absl::ConsumePrefix(&rest, prefix)) {
      return Refused(
          absl::StrCat("File path did not start with the specified prefix ",
                       prefix, " (partition-path-prefix)"));
    }
    const size_t slash = rest.rfind('/');
    return PartitionFromPath(
        *target.spec, table,
        slash == absl::string_view::npos ? "" : rest.substr(0, slash));
  }
  MetricsConfig full;
  full.fallback = MetricsMode{MetricsMode::Kind::kFull, 0};
  absl::StatusOr<FileMetrics> bounds =
      MetricsFromFooter(file.footer, bindings, full);
  if (!bounds.ok()) return bounds.status();
  return PartitionFromMetrics(*target.spec, table, *bounds);
}

}  // namespace

absl::StatusOr<Registered> RegisterFile(const FileToRegister& file,
                                        const RegistrationTarget& target) {
  const Schema* table = target.table->CurrentSchema();
  if (table == nullptr) {
    return absl::FailedPreconditionError("the table has no current schema");
  }
  absl::StatusOr<Schema> file_schema = ConvertParquetSchema(file.footer);
  if (!file_schema.ok()) {
    return Refused(absl::StrCat("could not read the file's schema: ",
                                file_schema.status().message()));
  }
  Registered out;
  if (target.evolution != nullptr) {
    const Schema effective = MarkRequired(
        *file_schema, ProvenNullFreeColumns(file.footer, *file_schema));
    if (absl::Status covered =
            CheckCoverage(*table, effective, *target.evolution);
        !covered.ok()) {
      return covered;
    }
    if (absl::Status pins =
            CheckPins(file, *table, effective, target, out.unproven_pins);
        !pins.ok()) {
      return pins;
    }
  }
  absl::StatusOr<std::vector<std::optional<ResolvedLeaf>>> leaves =
      ResolveFieldIds(file.footer, *file_schema, *target.table);
  if (!leaves.ok()) return leaves.status();
  std::vector<std::optional<LeafBinding>> bindings;
  bindings.reserve(leaves->size());
  for (std::optional<ResolvedLeaf>& leaf : *leaves) {
    if (!leaf.has_value()) {
      bindings.emplace_back(std::nullopt);
      continue;
    }
    LeafBinding binding;
    binding.field_id = leaf->field_id;
    binding.table_type = std::move(leaf->table_type);
    binding.name = std::move(leaf->name);
    binding.under_container = leaf->under_container;
    bindings.emplace_back(std::move(binding));
  }
  absl::StatusOr<FileMetrics> metrics =
      MetricsFromFooter(file.footer, bindings, target.metrics);
  if (!metrics.ok()) return metrics.status();
  absl::StatusOr<PartitionTuple> partition =
      PartitionOf(file, *table, bindings, target);
  if (!partition.ok()) return partition.status();
  out.data_file.partition = *std::move(partition);
  DataFile& data = out.data_file;
  data.file_path = file.path;
  data.file_format = "PARQUET";
  data.record_count = metrics->record_count;
  data.file_size_in_bytes = file.size;
  data.column_sizes = std::move(metrics->column_sizes);
  data.value_counts = std::move(metrics->value_counts);
  data.null_value_counts = std::move(metrics->null_value_counts);
  data.lower_bounds = std::move(metrics->lower_bounds);
  data.upper_bounds = std::move(metrics->upper_bounds);
  return out;
}

}  // namespace gcpstream::iceberg

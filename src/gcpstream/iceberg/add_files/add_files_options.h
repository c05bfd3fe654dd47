#ifndef GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_OPTIONS_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_OPTIONS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "gcpstream/base/options.h"
#include "gcpstream/iceberg/add_files/registration.h"
#include "gcpstream/iceberg/evolution/schema_plan.h"

namespace gcpstream::iceberg {

// What happens to files of a schema the table cannot take (option
// `incompatible-schema-handling`).
// `fail-job` is the spelling every connector uses; `fail-pipeline` is its old
// one.
enum class IncompatibleSchemaHandling { kFailJob, kRouteToErrors };
inline constexpr EnumSpelling<IncompatibleSchemaHandling>
    kIncompatibleSchemaHandlings[] = {
        {"fail-job", IncompatibleSchemaHandling::kFailJob},
        {"route-to-errors", IncompatibleSchemaHandling::kRouteToErrors},
        {"fail-pipeline", IncompatibleSchemaHandling::kFailJob,
         /*deprecated=*/true},
};
inline constexpr EnumOption kIncompatibleSchemaHandlingOption(
    "incompatible-schema-handling", kIncompatibleSchemaHandlings);

inline constexpr EnumSpelling<UnverifiableFileHandling>
    kUnverifiableFileHandlings[] = {
        {"reject", UnverifiableFileHandling::kReject},
        {"accept", UnverifiableFileHandling::kAccept},
};
inline constexpr EnumOption kUnverifiableFileHandlingOption(
    "unverifiable-file-handling", kUnverifiableFileHandlings);

// What happens to a file the table's current snapshot already holds
// (option `already-added`): an error row, or counted and left alone.
enum class AlreadyAddedHandling { kRefuse, kSkip };
inline constexpr EnumSpelling<AlreadyAddedHandling> kAlreadyAddedHandlings[] = {
    {"refuse", AlreadyAddedHandling::kRefuse},
    {"skip", AlreadyAddedHandling::kSkip},
};
inline constexpr EnumOption kAlreadyAddedOption("already-added",
                                                kAlreadyAddedHandlings);

struct AddFilesOptions {
  // `schema-evolution-options` and `required-columns`. No option: the
  // table's schema is never changed and files are registered as they are.
  EvolutionConfig evolution;
  // Unset: fail-pipeline for bounded input (the command), route-to-errors
  // for a pipeline's unbounded input.
  std::optional<IncompatibleSchemaHandling> incompatible_schema_handling;
  std::optional<UnverifiableFileHandling> unverifiable_file_handling;
  AlreadyAddedHandling already_added = AlreadyAddedHandling::kRefuse;
  // `dry-run`: report what would happen; commit and register nothing.
  bool dry_run = false;
  // `partition-path-prefix`: in a partitioned table, files under it take
  // their partition from their Hive-style directories (`day=2026-01-02/`);
  // without it, partitions are inferred from each file's bounds.
  std::string partition_path_prefix;
  // `files-per-manifest`: data files per manifest written.
  int32_t files_per_manifest = 10'000;
  // Whether the input is bounded (the command) or a pipeline's stream.
  bool bounded = true;

  bool evolution_enabled() const { return !evolution.options.empty(); }
  IncompatibleSchemaHandling IncompatibleHandling() const;
  UnverifiableFileHandling UnverifiableHandling() const;
};

// InvalidArgument naming the option when the options ask for something
// that would be silently ignored: pins, a handling or dry-run without
// schema evolution; pins that are blank, padded or have an empty segment;
// `files-per-manifest` < 1.
absl::Status ValidateAddFilesOptions(const AddFilesOptions& options);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_OPTIONS_H_

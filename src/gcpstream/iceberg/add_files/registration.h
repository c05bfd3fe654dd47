#ifndef GCPSTREAM_ICEBERG_ADD_FILES_REGISTRATION_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_REGISTRATION_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/evolution/schema_plan.h"
#include "gcpstream/iceberg/parquet/footer_metrics.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/spec/manifest.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// What to do with a required column (pin) a file cannot prove free of
// nulls because its footer lacks the null count (option
// `unverifiable-file-handling`).
enum class UnverifiableFileHandling { kReject, kAccept };

// The table a window's files are registered in, after its schema commit.
struct RegistrationTarget {
  const TableMetadata* table = nullptr;
  MetricsConfig metrics;
  // Null when schema evolution is off: files are then registered as they
  // are, without the coverage and pin checks.
  const EvolutionConfig* evolution = nullptr;
  UnverifiableFileHandling unverifiable = UnverifiableFileHandling::kReject;
  // The table's default partition spec (unpartitioned: no fields).
  const PartitionSpec* spec = nullptr;
  // `partition-path-prefix`: when set, a file's partition is read from its
  // Hive-style directories after this prefix; otherwise it is inferred from
  // the footer's bounds.
  std::string partition_path_prefix;
};

// A Parquet file read for registration.
struct FileToRegister {
  std::string path;
  int64_t size = 0;
  ParquetFooter footer;
};

struct Registered {
  DataFile data_file;
  // A pin the footer could not prove (accepted by
  // `unverifiable-file-handling: accept`).
  bool unproven_pins = false;
};

// The file as the table's manifest will record it (docs/iceberg.md,
// "Registration"): with evolution on, checked first (the table's schema
// covers the file's; each pin the table has is in the file and proven free
// of nulls); then its field ids resolved and its metrics taken from the
// footer. InvalidArgument with the reason when the file cannot be
// registered: the caller's error row.
absl::StatusOr<Registered> RegisterFile(const FileToRegister& file,
                                        const RegistrationTarget& target);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_REGISTRATION_H_

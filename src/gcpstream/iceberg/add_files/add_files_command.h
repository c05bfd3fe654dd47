#ifndef GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_COMMAND_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_COMMAND_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace gcpstream::iceberg {

// `gcpstream iceberg add-files`: registers Parquet files in an Iceberg
// table from the command line (docs/iceberg.md, "The add-files command").
// Prints one JSON document: the snapshot, the error rows, the counters and,
// in a dry run, the report.
class AddFilesCommand {
 public:
  // Exit codes beyond 0 (every file registered, or an allowed dry run).
  static constexpr int kFailed = 1;          // Nothing was added.
  static constexpr int kBadCommandLine = 2;  // Nothing was started.
  static constexpr int kErrorRows = 3;       // Some files were not added.

  // Adds `add-files` under `iceberg`, which must outlive this.
  explicit AddFilesCommand(CLI::App& iceberg);
  AddFilesCommand(const AddFilesCommand&) = delete;
  AddFilesCommand& operator=(const AddFilesCommand&) = delete;

  bool parsed() const { return command_->parsed(); }
  // After parsing: runs the command; its exit code.
  int Run() const;

 private:
  CLI::App* command_ = nullptr;
  std::string catalog_;
  std::string rest_warehouse_;
  std::string token_env_;
  std::string catalog_auth_;
  std::string service_account_key_file_;
  std::string quota_project_;
  std::string table_;
  std::vector<std::string> paths_;
  std::string paths_from_;
  std::string evolution_options_;  // Comma-separated.
  std::string required_columns_;   // Comma-separated.
  std::string incompatible_schema_handling_;
  std::string unverifiable_file_handling_;
  std::string already_added_ = "refuse";
  std::string partition_path_prefix_;
  int files_per_manifest_ = 10'000;
  bool dry_run_ = false;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_COMMAND_H_

#ifndef GCPSTREAM_CLI_ICEBERG_ADD_FILES_CRASH_TEST_SUPPORT_H_
#define GCPSTREAM_CLI_ICEBERG_ADD_FILES_CRASH_TEST_SUPPORT_H_

#include <string>

namespace gcpstream::cli::testing {

// Where the add-files crash runs keep their files and tables: local
// directories, or gs:// on the emulator.
class CrashLocation {
 public:
  virtual ~CrashLocation() = default;
  // An empty warehouse of that name (a directory or gs:// prefix).
  virtual std::string FreshWarehouse(const std::string& name) = 0;
  // Whether the file (path or gs:// URI) exists.
  virtual bool Exists(const std::string& path) = 0;
};

struct CrashRunOptions {
  // Local file listing the data files (paths or gs:// URIs).
  std::string listing;
  int files = 0;
  // Runs killed at times spread over a whole run, each followed by another
  // killed at random and a run to the end.
  int crashes = 16;
  // Runs killed as soon as the table's first metadata file appears.
  int targeted_crashes = 4;
  // Where the killed runs' logs go.
  std::string log_dir;
};

// `gcpstream iceberg add-files` killed with SIGKILL at moments spread over
// its run (reading footers, creating the table, writing manifests,
// committing the data), then run again: after every crash the table is
// readable and holds no file twice, and the run that finally completes
// leaves every file registered exactly once. Reports through gtest.
void RunAddFilesCrashes(CrashLocation& location,
                        const CrashRunOptions& options);

}  // namespace gcpstream::cli::testing

#endif  // GCPSTREAM_CLI_ICEBERG_ADD_FILES_CRASH_TEST_SUPPORT_H_

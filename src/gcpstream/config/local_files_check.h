#ifndef GCPSTREAM_CONFIG_LOCAL_FILES_CHECK_H_
#define GCPSTREAM_CONFIG_LOCAL_FILES_CHECK_H_

#include "absl/status/status.h"
#include "gcpstream/config/pipeline_file.h"

namespace gcpstream::config {

// What `run` would otherwise find out only once records flow, checked on
// the local filesystem before anything is read (`validate` and `run`):
//   - a json-lines source's `paths` exist as files, its `directory` as a
//     directory;
//   - an exactly-once file sink's directory holds no committed part files,
//     unless the pipeline resumes from a checkpoint in its
//     checkpoint-directory (then they are its own): a fresh run would
//     number its files from checkpoint 1 again and fail at the first commit.
// Errors name the file, line and option, and the fix.
absl::Status CheckLocalFiles(PipelineFile& file);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_LOCAL_FILES_CHECK_H_

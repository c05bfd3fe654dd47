#ifndef GCPSTREAM_RUNTIME_CONNECTORS_FILE_COMMITTABLE_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_FILE_COMMITTABLE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::runtime {

// What the exactly-once file sink hands its committer for one staged part
// file: make `temp_path` visible as `final_path`.
struct FileCommittable {
  std::string temp_path;
  std::string final_path;

  // A JSON object, {"temp":"...","final":"..."}: readable in a checkpoint
  // and extensible. Paths must be valid UTF-8 (the sink checks its
  // directory), so the text round-trips exactly.
  std::string Encode() const;
  // InvalidArgument for anything Encode() did not write.
  static absl::StatusOr<FileCommittable> Decode(absl::string_view text);
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_FILE_COMMITTABLE_H_

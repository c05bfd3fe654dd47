#ifndef GCPSTREAM_RUNTIME_CONNECTORS_FILE_COMMITTER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_FILE_COMMITTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::runtime {

// Makes the exactly-once file sink's staged part files visible: each
// committable (a FileCommittable) is renamed from its staging path to its
// final path, then the directories are fsynced, so on return the files are
// durably in place.
//
// Idempotent, because it runs again after a crash between "checkpoint
// durable" and "commit done":
//   staging file only      -> rename;
//   final file only        -> committed before; nothing to do;
//   neither                -> DataLoss naming both paths: the staged data is
//                             gone (e.g. deleted by a writer created before
//                             the commit), which must never pass silently;
//   both                   -> FailedPrecondition naming both: something
//                             else wrote the final name (e.g. another job in
//                             the same directory); never overwritten.
class FileCommitter final : public Committer {
 public:
  absl::Status Commit(int64_t checkpoint_id,
                      const std::vector<std::string>& committables) override;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_FILE_COMMITTER_H_

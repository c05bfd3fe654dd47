#ifndef GCPSTREAM_BASE_FILE_DEAD_LETTER_QUEUE_H_
#define GCPSTREAM_BASE_FILE_DEAD_LETTER_QUEUE_H_

#include <string>
#include <utility>

#include "gcpstream/base/dead_letter_queue.h"

namespace gcpstream {

// A durable dead-letter queue in local files: one JSON object per line, in
// `<directory>/dead-letters-<connector>-<subtask>.jsonl`, appended to across
// restarts. Each line carries every failure field; the payload is base64:
//
//   {"connector":"spanner","destination":"projects/p/...","error_code":
//    "ALREADY_EXISTS","error":"...","attempts":1,"timestamp":"...Z",
//    "subtask":0,"payload_base64":"...","attributes":{...},
//    "dlq_attributes":{"dlq-connector":"spanner",...}}
//
// Offer() buffers in memory; Flush() appends and fsyncs, so on return every
// offered failure survives a crash. A replay after a crash may append a line
// again (at-least-once), never lose one.
class FileDeadLetterQueue final : public DeadLetterQueue {
 public:
  // `directory` is created on Open() if missing.
  explicit FileDeadLetterQueue(std::string directory)
      : directory_(std::move(directory)) {}
  ~FileDeadLetterQueue() override;
  FileDeadLetterQueue(const FileDeadLetterQueue&) = delete;
  FileDeadLetterQueue& operator=(const FileDeadLetterQueue&) = delete;

  absl::Status Open(const FailureHandlerContext& context) override;
  absl::Status Offer(const FailedElement& failure) override;
  absl::Status Flush() override;
  void Close() override;

  // The file of the open queue (empty before Open()).
  const std::string& path() const { return path_; }

 private:
  std::string directory_;
  std::string path_;
  int fd_ = -1;
  std::string pending_;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_FILE_DEAD_LETTER_QUEUE_H_

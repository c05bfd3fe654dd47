#ifndef GCPSTREAM_RUNTIME_CONNECTORS_FILE_SOURCE_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_FILE_SOURCE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/runtime/connectors/file_splits.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// A bounded source of the text lines of local files: one split per file,
// checkpointed as the byte offset of the next unread line. Records are the
// lines without their terminator; empty lines are records too. A missing or
// unreadable file fails the job with an error naming its path.
class FileSource final : public Source<std::string> {
 public:
  static absl::StatusOr<std::unique_ptr<FileSource>> Create(
      std::string name, FileSourceOptions options);

 private:
  // Keeps the constructor to Create(), which checks the options.
  struct Token {
    explicit Token() = default;
  };

 public:
  FileSource(Token /*token*/, std::string name, FileSourceOptions options)
      : name_(std::move(name)), options_(std::move(options)) {}

  std::string name() const override { return name_; }
  bool bounded() const override { return true; }

  // One split per file; `parallelism` only needs to be >= 1 (the runtime
  // hands the files out round-robin).
  absl::StatusOr<std::vector<Split>> PlanSplits(int parallelism) override;

  absl::StatusOr<std::unique_ptr<SourceReader<std::string>>> CreateReader(
      const SourceReaderContext& context, std::vector<Split> splits) override;

 private:
  std::string name_;
  FileSourceOptions options_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_FILE_SOURCE_H_

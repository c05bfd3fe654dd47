#ifndef GCPSTREAM_RUNTIME_CONNECTORS_FILE_SINK_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_FILE_SINK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/file_committer.h"
#include "gcpstream/runtime/connectors/file_sink_options.h"
#include "gcpstream/runtime/connectors/part_writer.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::runtime {

// Writes records as lines of local files, exactly-once or at-least-once
// (FileSinkOptions::delivery).
//
// Exactly-once: each writer stages its lines in
// `<dir>/.inprogress/part-<subtask>-<attempt>-<n>.tmp`; at a checkpoint it
// fsyncs and closes the staging file and hands the committer a committable;
// once the checkpoint is complete the committer renames it to
// `<dir>/part-<subtask>-<checkpoint>-<n>.<ext>`. Readers of the directory
// see only committed files (and must skip the hidden `.inprogress`).
//
// Assumptions about the runtime, which the exactly-once guarantee rests on:
// - On a restore, the committables of the restored checkpoint (and of any
//   earlier one not known to be committed) are committed BEFORE the writers
//   are created, and the writers of the previous attempt are gone. Creating
//   a writer deletes its subtask's staging files from earlier attempts:
//   they hold records after the last complete checkpoint, which the replay
//   writes again; a staging file a pending committable still names would be
//   deleted too, and its commit would then fail with DataLoss.
// - Checkpoint ids grow across restarts, so final names never repeat (a
//   repeated name is refused by the committer, never overwritten). Use a
//   fresh output directory for a job started without its checkpoints.
//
// At-least-once: each writer appends to `<dir>/part-<subtask>.<ext>`, and
// Flush() fsyncs it; there is no committer.
template <typename T>
class FileSink final : public Sink<T> {
 public:
  // One line per record, without the '\n' (a line containing one is an
  // error: it would read back as two records).
  using Serializer = std::function<std::string(const T&)>;

  static absl::StatusOr<std::unique_ptr<FileSink>> Create(
      std::string name, Serializer serializer, FileSinkOptions options);

 private:
  struct Token {
    explicit Token() = default;
  };

 public:
  FileSink(Token /*token*/, std::string name, Serializer serializer,
           FileSinkOptions options)
      : name_(std::move(name)),
        serializer_(std::move(serializer)),
        options_(std::move(options)) {}

  std::string name() const override { return name_; }

  absl::StatusOr<std::unique_ptr<SinkWriter<T>>> CreateWriter(
      const SinkWriterContext& context) override;

  std::unique_ptr<Committer> CreateCommitter() override {
    if (options_.delivery != FileSinkDelivery::kExactlyOnce) return nullptr;
    return std::make_unique<FileCommitter>();
  }

 private:
  class Writer;

  std::string name_;
  Serializer serializer_;
  FileSinkOptions options_;
};

template <typename T>
class FileSink<T>::Writer final : public SinkWriter<T> {
 public:
  Writer(std::string sink_name, Serializer serializer,
         std::unique_ptr<PartWriter> part)
      : sink_name_(std::move(sink_name)),
        serializer_(std::move(serializer)),
        part_(std::move(part)) {}

  absl::Status Write(const T& record, const WriterContext& context) override {
    const std::string line = serializer_(record);
    if (line.find('\n') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "file sink '", sink_name_, "': the serialized record at position ",
          context.record_position,
          " contains a newline; a record must be one line"));
    }
    return Annotate(part_->Append(line));
  }

  absl::Status Flush(bool /*end_of_input*/) override {
    return Annotate(part_->Flush());
  }

  absl::StatusOr<std::vector<std::string>> PrepareCommit(
      int64_t checkpoint_id) override {
    absl::StatusOr<std::vector<std::string>> committables =
        part_->PrepareCommit(checkpoint_id);
    if (!committables.ok()) return Annotate(committables.status());
    return committables;
  }

  void Close() override { part_->Close(); }

 private:
  absl::Status Annotate(const absl::Status& status) const {
    if (status.ok()) return status;
    return absl::Status(status.code(), absl::StrCat("file sink '", sink_name_,
                                                    "': ", status.message()));
  }

  const std::string sink_name_;
  const Serializer serializer_;
  std::unique_ptr<PartWriter> part_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<FileSink<T>>> FileSink<T>::Create(
    std::string name, Serializer serializer, FileSinkOptions options) {
  if (!serializer) {
    return absl::InvalidArgumentError(
        absl::StrCat("file sink '", name, "': the serializer is empty"));
  }
  absl::Status valid = CheckFileSinkOptions(options, name);
  if (!valid.ok()) return valid;
  return std::make_unique<FileSink>(Token(), std::move(name),
                                    std::move(serializer), std::move(options));
}

template <typename T>
absl::StatusOr<std::unique_ptr<SinkWriter<T>>> FileSink<T>::CreateWriter(
    const SinkWriterContext& context) {
  if (context.subtask_index < 0 || context.parallelism < 1 ||
      context.subtask_index >= context.parallelism) {
    return absl::InvalidArgumentError(absl::StrCat(
        "file sink '", name_, "': subtask ", context.subtask_index,
        " of parallelism ", context.parallelism, " is out of range"));
  }
  absl::StatusOr<std::unique_ptr<PartWriter>> part =
      CreatePartWriter(options_, context.subtask_index, context.parallelism);
  if (!part.ok()) {
    return absl::Status(
        part.status().code(),
        absl::StrCat("file sink '", name_, "': ", part.status().message()));
  }
  return std::make_unique<Writer>(name_, serializer_, *std::move(part));
}

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_FILE_SINK_H_

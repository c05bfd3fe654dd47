#include "gcpstream/runtime/connectors/part_writer.h"

#include "gcpstream/runtime/connectors/append_part_writer.h"
#include "gcpstream/runtime/connectors/staged_part_writer.h"

namespace gcpstream::runtime {

absl::StatusOr<std::unique_ptr<PartWriter>> CreatePartWriter(
    const FileSinkOptions& options, int subtask_index, int parallelism) {
  if (options.delivery == FileSinkDelivery::kAtLeastOnce) {
    absl::StatusOr<std::unique_ptr<AppendPartWriter>> writer =
        AppendPartWriter::Create(options, subtask_index);
    if (!writer.ok()) return writer.status();
    return std::unique_ptr<PartWriter>(*std::move(writer));
  }
  absl::StatusOr<std::unique_ptr<StagedPartWriter>> writer =
      StagedPartWriter::Create(options, subtask_index, parallelism);
  if (!writer.ok()) return writer.status();
  return std::unique_ptr<PartWriter>(*std::move(writer));
}

}  // namespace gcpstream::runtime

#ifndef GCPSTREAM_BIGQUERY_TABLE_WRITER_H_
#define GCPSTREAM_BIGQUERY_TABLE_WRITER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gcpstream/bigquery/bigquery_write_stub.h"
#include "gcpstream/bigquery/json_line_writer.h"
#include "gcpstream/bigquery/row_format.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/bigquery/table_schema.h"

namespace gcpstream::bigquery {

// A batch of rows ready to be appended.
struct RowBatch {
  std::shared_ptr<storage_v1::AppendRowsRequest> request;
  int64_t rows = 0;
  int64_t bytes = 0;
};

// One table's state in a writer: its schema, the format its rows are
// encoded in, the open batch, and how many appends are out for it; under
// exactly-once also the checkpoint's PENDING stream, the offset of its next
// row and the batches waiting for the append before them; under file-loads
// the open staging file instead of a batch. Task thread only.
class TableWriter {
 public:
  // At-least-once writers append to the table's default stream; an
  // exactly-once writer's stream is set per checkpoint (set_stream()).
  TableWriter(TableDestination table, TableSchema schema, bool exactly_once)
      : table_(std::move(table)),
        exactly_once_(exactly_once),
        stream_(exactly_once ? std::string() : table_.DefaultStream()),
        schema_(std::move(schema)) {}

  const TableDestination& table() const { return table_; }
  // The stream rows are appended to (exactly-once: empty until the first
  // append of a checkpoint).
  const std::string& stream() const { return stream_; }
  void set_stream(std::string stream) { stream_ = std::move(stream); }
  // Exactly-once: the rows the stream holds, which is the next offset.
  int64_t stream_rows() const { return stream_rows_; }
  void OnAppended(int64_t rows) { stream_rows_ += rows; }
  // Exactly-once: the stream went to the committer; the next checkpoint's
  // rows go to a new one.
  void ClearStream() {
    stream_.clear();
    stream_rows_ = 0;
  }

  // Exactly-once: batches waiting, in order, for the append before them.
  std::deque<RowBatch>& ready() { return ready_; }
  // Exactly-once: whether the table holds one of the writer's append
  // connections, and whether it waits for one.
  bool appending = false;
  bool waiting = false;
  // When this writer patched the table's schema (InfinitePast: never).
  absl::Time schema_updated_at = absl::InfinitePast();
  const TableSchema& schema() const { return schema_; }

  // Set on the table's first record (by the serializer).
  const std::shared_ptr<const RowFormat>& format() const { return format_; }
  void set_format(std::shared_ptr<const RowFormat> format) {
    format_ = std::move(format);
    auto writer_schema = std::make_shared<storage_v1::ProtoSchema>();
    *writer_schema->mutable_proto_descriptor() = format_->descriptor();
    writer_schema_ = std::move(writer_schema);
  }
  const std::shared_ptr<const storage_v1::ProtoSchema>& writer_schema() const {
    return writer_schema_;
  }

  // The open batch.
  int64_t open_rows() const { return open_rows_; }
  int64_t open_bytes() const { return open_bytes_; }
  void AddRow(std::string&& row) {
    open_bytes_ += static_cast<int64_t>(row.size());
    ++open_rows_;
    if (open_ == nullptr) {
      open_ = std::make_shared<storage_v1::AppendRowsRequest>();
    }
    open_->mutable_proto_rows()->mutable_rows()->add_serialized_rows(
        std::move(row));
  }
  // The open batch as a request (null when empty), leaving none open.
  std::shared_ptr<storage_v1::AppendRowsRequest> TakeOpen(int64_t& rows,
                                                          int64_t& bytes) {
    rows = open_rows_;
    bytes = open_bytes_;
    open_rows_ = 0;
    open_bytes_ = 0;
    return std::move(open_);
  }

  // File-loads: the open staging file (newline-delimited JSON), its rows,
  // when its last row came, and the writer of its lines (made on the first
  // row).
  std::string& file() { return file_; }
  int64_t file_rows = 0;
  absl::Time file_used_at = absl::InfinitePast();
  std::optional<JsonLineWriter> json_lines;

  void AppendStarted() { ++appends_; }
  void AppendEnded() { --appends_; }
  int64_t appends() const { return appends_; }

  // Nothing open, waiting or out, and (exactly-once) no stream awaiting the
  // checkpoint: safe to release.
  bool IsClean() const {
    return open_rows_ == 0 && appends_ == 0 && ready_.empty() &&
           file_rows == 0 && (!exactly_once_ || stream_.empty());
  }
  // Nothing is held per table beyond memory: the stream is the engine's.
  static absl::Status Release() { return absl::OkStatus(); }

 private:
  const TableDestination table_;
  const bool exactly_once_;
  std::string stream_;
  int64_t stream_rows_ = 0;
  std::deque<RowBatch> ready_;
  const TableSchema schema_;
  std::shared_ptr<const RowFormat> format_;
  std::shared_ptr<const storage_v1::ProtoSchema> writer_schema_;
  std::shared_ptr<storage_v1::AppendRowsRequest> open_;
  int64_t open_rows_ = 0;
  int64_t open_bytes_ = 0;
  int64_t appends_ = 0;
  std::string file_;
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_TABLE_WRITER_H_

// BigQueryWriteEngine's exactly-once half: per table and checkpoint a
// PENDING stream, appended to one batch at a time on a connection of its
// own, finalized at the checkpoint for BigQueryStreamCommitter.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_write_engine.h"
#include "gcpstream/bigquery/stream_committable.h"
#include "gcpstream/connector/retry.h"

namespace gcpstream::bigquery {

void BigQueryWriteEngine::Pump(TableWriter& writer) {
  if (core_.failed() || writer.appends() > 0 || writer.ready().empty()) {
    return;
  }
  if (!writer.appending) {
    if (tables_appending_ >= options_.max_append_connections) {
      if (!writer.waiting) {
        writer.waiting = true;
        waiting_tables_.push_back(writer.table());
      }
      return;
    }
    writer.appending = true;
    ++tables_appending_;
  }
  if (writer.stream().empty()) {
    absl::StatusOr<std::string> stream =
        admin_->CreatePendingStream(writer.table().ResourceName());
    if (!stream.ok()) {
      core_.Fail(connector::Reworded(
          stream.status(),
          absl::StrCat(options_.name, ": creating a write stream on table ",
                       writer.table().Spec(),
                       " failed: ", stream.status().message())));
      return;
    }
    metrics_.streams_created->Increment();
    writer.set_stream(*std::move(stream));
  }
  RowBatch batch = std::move(writer.ready().front());
  writer.ready().pop_front();
  StartCall(writer, std::move(batch.request), batch.rows, batch.bytes, 0);
}

void BigQueryWriteEngine::AfterAppend(TableWriter& writer) {
  if (writer.appends() > 0) return;
  if (!writer.ready().empty() && waiting_tables_.empty()) {
    Pump(writer);
    return;
  }
  // Nothing more to send, or others wait: give the connection up (the
  // service counts open connections against a quota) and queue behind the
  // others for the rest.
  CloseConnection(writer.stream());
  writer.appending = false;
  --tables_appending_;
  if (!writer.ready().empty() && !writer.waiting) {
    writer.waiting = true;
    waiting_tables_.push_back(writer.table());
  }
  while (tables_appending_ < options_.max_append_connections &&
         !waiting_tables_.empty() && !core_.failed()) {
    const TableDestination next = std::move(waiting_tables_.front());
    waiting_tables_.pop_front();
    if (TableWriter* waiting = writers_.Find(next); waiting != nullptr) {
      waiting->waiting = false;
      Pump(*waiting);
    }
  }
}

absl::StatusOr<std::vector<std::string>> BigQueryWriteEngine::PrepareStreams(
    int64_t checkpoint_id) {
  if (core_.failed()) return core_.failure();
  std::vector<std::string> committables;
  absl::Status finalized;
  writers_.ForEach([&](const TableDestination& table, TableWriter& writer) {
    if (writer.stream().empty() || !finalized.ok()) return;
    CloseConnection(writer.stream());
    if (writer.stream_rows() > 0) {
      absl::StatusOr<int64_t> rows = admin_->Finalize(writer.stream());
      if (!rows.ok()) {
        finalized = connector::Reworded(
            rows.status(),
            absl::StrCat(options_.name, ": finalizing stream ", writer.stream(),
                         " of table ", table.Spec(), " for checkpoint ",
                         checkpoint_id, " failed: ", rows.status().message()));
        return;
      }
      if (*rows != writer.stream_rows()) {
        finalized = absl::DataLossError(absl::StrCat(
            options_.name, ": stream ", writer.stream(), " of table ",
            table.Spec(), " holds ", *rows, " rows where this writer appended ",
            writer.stream_rows(), "; its rows are not committed"));
        return;
      }
      metrics_.streams_finalized->Increment();
      committables.push_back(StreamCommittable{.table = table.ResourceName(),
                                               .stream = writer.stream(),
                                               .rows = writer.stream_rows()}
                                 .Encode());
    }
    writer.ClearStream();
  });
  if (!finalized.ok()) return core_.Fail(finalized);
  return committables;
}

}  // namespace gcpstream::bigquery

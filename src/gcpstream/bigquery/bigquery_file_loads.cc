// BigQueryWriteEngine's file-loads half: rows staged as newline-delimited
// JSON files per table, handed to BigQueryLoadCommitter at checkpoints.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_write_engine.h"

namespace gcpstream::bigquery {
namespace {

// BigQuery loads JSON rows of at most 100 MB.
constexpr int64_t kMaxJsonRowBytes = int64_t{100} << 20;

}  // namespace

absl::Status BigQueryWriteEngine::Stage(TableWriter& writer,
                                        const std::string& row,
                                        const WriterContext& context) {
  if (!writer.json_lines.has_value()) {
    absl::StatusOr<JsonLineWriter> lines = JsonLineWriter::Create(
        writer.format(), writer.schema(), options_.ignore_unknown_fields);
    if (!lines.ok()) {
      return core_.Fail(absl::Status(
          lines.status().code(),
          absl::StrCat(options_.name, ": rows for table ",
                       writer.table().Spec(), ": ", lines.status().message())));
    }
    writer.json_lines = *std::move(lines);
  }
  std::string& file = writer.file();
  const size_t before = file.size();
  absl::Status status = writer.json_lines->AppendLine(row, file);
  const auto bytes = static_cast<int64_t>(file.size() - before);
  if (status.ok() && bytes > kMaxJsonRowBytes) {
    file.resize(before);
    status = absl::InvalidArgumentError(
        absl::StrCat("its JSON row is ", bytes, " bytes, over the ",
                     kMaxJsonRowBytes, " a load job takes (100 MB)"));
  }
  if (!status.ok()) {
    BigQueryFailedElement failed;
    failed.destination = writer.table().ResourceName();
    failed.status = absl::Status(
        status.code(), absl::StrCat("record #", context.record_position, ": ",
                                    status.message()));
    failed.payload = writer.format()->RowAsJson(row);
    core_.Route(failed);
    return core_.failure();
  }
  ++writer.file_rows;
  writer.file_used_at = clock_.Now();
  open_file_bytes_ += bytes;
  if (static_cast<int64_t>(file.size()) >= options_.max_staging_file_bytes) {
    if (absl::Status finished = FinishFile(writer); !finished.ok()) {
      return core_.Fail(finished);
    }
  }
  // Open files are held in memory: max-in-flight-bytes bounds them all.
  while (open_file_bytes_ > options_.max_in_flight_bytes) {
    if (absl::Status finished = FinishLeastRecentFile(); !finished.ok()) {
      return core_.Fail(finished);
    }
  }
  return core_.failure();
}

absl::Status BigQueryWriteEngine::FinishFile(TableWriter& writer) {
  if (writer.file_rows == 0) return absl::OkStatus();
  const auto bytes = static_cast<int64_t>(writer.file().size());
  if (absl::Status uploaded =
          staged_->Upload(writer.table(), writer.file(), writer.file_rows);
      !uploaded.ok()) {
    return uploaded;
  }
  open_file_bytes_ -= bytes;
  // Written: staged for the checkpoint's load job.
  core_.metrics().records_written->Increment(
      static_cast<uint64_t>(writer.file_rows));
  core_.metrics().bytes_written->Increment(static_cast<uint64_t>(bytes));
  core_.metrics().requests->Increment();
  writer.file_rows = 0;
  writer.file().shrink_to_fit();
  return absl::OkStatus();
}

absl::Status BigQueryWriteEngine::FinishLeastRecentFile() {
  TableWriter* least_recent = nullptr;
  writers_.ForEach([&](const TableDestination&, TableWriter& writer) {
    if (writer.file_rows > 0) least_recent = &writer;  // Last one wins.
  });
  if (least_recent == nullptr) {
    return absl::InternalError(
        absl::StrCat(options_.name, ": no table has an open file to finish"));
  }
  return FinishFile(*least_recent);
}

absl::Status BigQueryWriteEngine::FinishIdleFiles() {
  const absl::Time now = clock_.Now();
  absl::Status status;
  writers_.ForEach([&](const TableDestination&, TableWriter& writer) {
    if (status.ok() && writer.file_rows > 0 &&
        now - writer.file_used_at > options_.destination_idle_timeout) {
      status = FinishFile(writer);
    }
  });
  return status;
}

absl::StatusOr<std::vector<std::string>> BigQueryWriteEngine::PrepareLoads() {
  if (core_.failed()) return core_.failure();
  absl::Status status;
  writers_.ForEach([&](const TableDestination&, TableWriter& writer) {
    if (status.ok()) status = FinishFile(writer);
  });
  if (!status.ok()) return core_.Fail(status);
  return staged_->TakeCommittables();
}

}  // namespace gcpstream::bigquery

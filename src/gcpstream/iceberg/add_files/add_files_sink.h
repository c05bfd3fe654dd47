#ifndef GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_SINK_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_SINK_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/iceberg/add_files/add_files.h"
#include "gcpstream/iceberg/catalog/catalog.h"
#include "gcpstream/iceberg/io/gcs_file_io.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::iceberg {

// A file the sink could not register (or a record that named no file).
struct IcebergFailedElement : FailedElement {
  std::string file;
};

using IcebergFailureHandler = FailureHandler<IcebergFailedElement>;
using IcebergFailureHandlerFactory =
    std::function<absl::StatusOr<std::unique_ptr<IcebergFailureHandler>>(
        const runtime::SinkWriterContext&)>;
// Each writer's catalog (a writer commits from its own task thread).
using CatalogFactory =
    std::function<absl::StatusOr<std::unique_ptr<Catalog>>()>;
// The path a record names; an error is that record's failure.
template <typename T>
using FilePathOf = std::function<absl::StatusOr<std::string>(const T&)>;

struct AddFilesSinkOptions {
  std::string name = "iceberg-add-files";
  TableIdentifier table;
  // `bounded` is false here (route-to-errors by default) and files the
  // table holds are skipped by default: after a restore the source replays
  // what came after the checkpoint, and those files may be in already.
  AddFilesOptions add_files = [] {
    AddFilesOptions options;
    options.bounded = false;
    options.already_added = AlreadyAddedHandling::kSkip;
    return options;
  }();
  // How gs:// files are read: the credentials of the sink's options.
  rest::RestTargetOptions storage;
};

// One subtask's window: the paths written since the last checkpoint, added
// as one add-files run when the checkpoint flushes.
class AddFilesWindow {
 public:
  static absl::StatusOr<std::unique_ptr<AddFilesWindow>> Create(
      const AddFilesSinkOptions& options, const CatalogFactory& catalog,
      std::unique_ptr<IcebergFailureHandler> handler,
      const runtime::SinkWriterContext& context);

  AddFilesWindow(AddFilesSinkOptions options, std::unique_ptr<Catalog> catalog,
                 std::unique_ptr<IcebergFailureHandler> handler,
                 int subtask_index);

  void Add(std::string path);
  // A record that named no file: to the failure handler.
  absl::Status Refuse(const absl::Status& status, const WriterContext& context);
  // Adds the window's files (one add-files run), hands error rows to the
  // failure handler and flushes it. An error fails the checkpoint; the
  // window is kept, so the files are tried again after the restore.
  absl::Status Flush();
  void Close();

 private:
  absl::Status RegisterMetrics(const runtime::SinkWriterContext& context);
  absl::Status Route(const std::string& file, const absl::Status& status);

  AddFilesSinkOptions options_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<IcebergFailureHandler> handler_;
  // Local paths and gs:// objects alike.
  SchemeFileIO io_;
  int subtask_index_ = 0;
  std::vector<std::string> paths_;
  SinkMetrics metrics_;
  std::shared_ptr<Counter> files_added_;
  std::shared_ptr<Counter> files_skipped_;
  std::shared_ptr<Counter> error_files_;
  std::shared_ptr<Counter> footer_read_errors_;
  std::shared_ptr<Counter> manifests_added_;
  std::shared_ptr<Counter> schema_commits_;
  std::shared_ptr<Counter> snapshots_;
};

// Registers the Parquet files its records name in an Iceberg table
// (docs/iceberg.md, "Pipeline sink"): one add-files window per checkpoint,
// error rows to the failure handler. At-least-once input becomes
// exactly-once registration: a replayed file the table holds is skipped.
template <typename T>
class AddFilesSink final : public runtime::Sink<T> {
 public:
  AddFilesSink(AddFilesSinkOptions options, CatalogFactory catalog,
               FilePathOf<T> path_of,
               IcebergFailureHandlerFactory failure_handler = nullptr)
      : options_(std::move(options)),
        catalog_(std::move(catalog)),
        path_of_(std::move(path_of)),
        failure_handler_(std::move(failure_handler)) {}

  std::string name() const override { return options_.name; }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<T>>> CreateWriter(
      const runtime::SinkWriterContext& context) override {
    std::unique_ptr<IcebergFailureHandler> handler;
    if (failure_handler_) {
      absl::StatusOr<std::unique_ptr<IcebergFailureHandler>> made =
          failure_handler_(context);
      if (!made.ok()) return made.status();
      handler = *std::move(made);
    }
    absl::StatusOr<std::unique_ptr<AddFilesWindow>> window =
        AddFilesWindow::Create(options_, catalog_, std::move(handler), context);
    if (!window.ok()) return window.status();
    return std::make_unique<Writer>(path_of_, *std::move(window));
  }

 private:
  class Writer final : public runtime::SinkWriter<T> {
   public:
    Writer(FilePathOf<T> path_of, std::unique_ptr<AddFilesWindow> window)
        : path_of_(std::move(path_of)), window_(std::move(window)) {}

    absl::Status Write(const T& record, const WriterContext& context) override {
      absl::StatusOr<std::string> path = path_of_(record);
      if (!path.ok()) return window_->Refuse(path.status(), context);
      window_->Add(*std::move(path));
      return absl::OkStatus();
    }
    absl::Status Flush(bool /*end_of_input*/) override {
      return window_->Flush();
    }
    void Close() override { window_->Close(); }

   private:
    FilePathOf<T> path_of_;
    std::unique_ptr<AddFilesWindow> window_;
  };

  AddFilesSinkOptions options_;
  CatalogFactory catalog_;
  FilePathOf<T> path_of_;
  IcebergFailureHandlerFactory failure_handler_;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_SINK_H_

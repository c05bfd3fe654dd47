#ifndef GCPSTREAM_CLOUDTASKS_CLOUDTASKS_SINK_H_
#define GCPSTREAM_CLOUDTASKS_CLOUDTASKS_SINK_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/cloudtasks/cloudtasks_sink_options.h"
#include "gcpstream/cloudtasks/cloudtasks_write_engine.h"
#include "gcpstream/cloudtasks/queue_destination.h"
#include "gcpstream/cloudtasks/task_check.h"
#include "gcpstream/connector/batching_sink.h"

namespace gcpstream::cloudtasks {

// A record's deduplication key: the same record must give the same key.
template <typename T>
using TaskIdExtractor =
    std::function<absl::StatusOr<std::string>(const T&, const WriterContext&)>;

// What the sink makes of a record: the task (without a name), and
// optionally the key its name is derived from (task-id-extractor).
template <typename T>
struct TaskSerializer {
  connector::Serializer<T, Task> task;
  TaskIdExtractor<T> task_id = nullptr;

  explicit operator bool() const { return static_cast<bool>(task); }
};

template <typename T>
struct CloudTasksSinkTraits {
  using Engine = CloudTasksWriteEngine;
  using Options = CloudTasksSinkOptions;
  using Destination = QueueDestination;
  using Serializer = TaskSerializer<T>;
  using FailedElement = CloudTasksFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options& options, const runtime::SinkWriterContext& context,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const QueueDestination* /*fixed*/) {
    return CloudTasksWriteEngine::Create(options, context, std::move(handler));
  }

  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const T& record,
                                  const QueueDestination& queue,
                                  const WriterContext& context) {
    absl::StatusOr<std::optional<Task>> task = serializer.task(record, context);
    if (!task.ok()) {
      return engine.RouteSerializationFailure(queue, task.status(), context);
    }
    if (!task->has_value()) {
      engine.CountSkipped();
      return absl::OkStatus();
    }
    if (!(*task)->name().empty()) {
      return engine.Fail(absl::FailedPreconditionError(absl::StrCat(
          engine.name(), ": the serializer named the task of record #",
          context.record_position, " ('", (*task)->name(),
          "'); the sink names tasks itself from the task-id-extractor's key, "
          "so that a replay finds its task: leave the name empty")));
    }
    if (serializer.task_id) {
      absl::StatusOr<std::string> key = serializer.task_id(record, context);
      if (!key.ok() || key->empty()) {
        return engine.Fail(absl::FailedPreconditionError(absl::StrCat(
            engine.name(), ": the task-id-extractor gave record #",
            context.record_position, " no key (",
            key.ok() ? "an empty one" : key.status().ToString(),
            "); every record needs one, or the replay of a record could not "
            "find its task")));
      }
      (*task)->set_name(
          absl::StrCat(queue.ResourceName(), "/tasks/", TaskIdOf(*key)));
    }
    return engine.Write(**std::move(task), queue,
                        static_cast<bool>(serializer.task_id), context);
  }

  static absl::Status CheckFixed(const Options& options,
                                 const QueueDestination& queue) {
    absl::Status status = CheckResourceNameComponent(queue.project, "project");
    status.Update(CheckResourceNameComponent(queue.location, "location"));
    status.Update(CheckResourceNameComponent(queue.queue, "queue"));
    if (status.ok()) return status;
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", status.message()));
  }
};

// Creates one Cloud Tasks task per record, in a fixed queue or the one a
// resolver names (no state per queue). At-least-once: Flush() returns once
// every create is answered. With a task-id-extractor each record names its
// task, so a replay is answered ALREADY_EXISTS and counted as deduplicated;
// without one, a replay creates a second task. See docs/cloudtasks.md.
template <typename T>
using CloudTasksSink = connector::BatchingSink<T, CloudTasksSinkTraits<T>>;

using CloudTasksFailureHandlerFactory =
    connector::BatchingSink<int, CloudTasksSinkTraits<int>>::HandlerFactory;

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_CLOUDTASKS_SINK_H_

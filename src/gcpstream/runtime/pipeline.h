#ifndef GCPSTREAM_RUNTIME_PIPELINE_H_
#define GCPSTREAM_RUNTIME_PIPELINE_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/data_stream.h"
#include "gcpstream/runtime/job_attempt.h"
#include "gcpstream/runtime/job_health.h"
#include "gcpstream/runtime/pipeline_graph.h"
#include "gcpstream/runtime/pipeline_options.h"
#include "gcpstream/runtime/source_task.h"
#include "gcpstream/runtime/watermark_strategy.h"

namespace gcpstream::runtime {

// A streaming job on this machine: sources, transforms, exchanges and
// sinks, run by one thread per subtask with checkpoints and restarts.
//
//   Pipeline pipeline(options);
//   pipeline.AddSource(source, /*parallelism=*/2)
//       .Map([](Order o) { return Enrich(o); })
//       .KeyBy([](const Order& o) { return o.customer_id; })
//       .SinkTo(sink);
//   absl::StatusOr<JobSummary> summary = pipeline.Run();
class Pipeline {
 public:
  explicit Pipeline(PipelineOptions options, MetricsRegistry* metrics = nullptr)
      : options_(std::move(options)),
        metrics_(metrics != nullptr ? metrics : &own_metrics_) {}

  // Any Source<T> (or a class derived from one).
  template <typename S, typename T = typename S::RecordType>
  DataStream<T> AddSource(std::shared_ptr<S> source, int parallelism,
                          WatermarkStrategy<T> strategy = {}) {
    return AddTypedSource<T>(std::shared_ptr<Source<T>>(std::move(source)),
                             parallelism, std::move(strategy));
  }

  // Runs until a bounded input is fully written and committed, or the job
  // fails for good (the restart strategy gave up). A checkpoint directory
  // holding checkpoints of an earlier process is resumed from.
  absl::StatusOr<JobSummary> Run();

  // Thread-safe: stops the job now (Run() returns within moments, even with
  // a destination that does not answer). What was read after the last
  // checkpoint is not committed; a restart from the checkpoint reads it
  // again.
  void Stop();
  // Thread-safe: a graceful stop. The job takes a final checkpoint (its
  // sources stop reading at the barrier), commits it and acknowledges it to
  // its sources, so a restart replays nothing. If that takes longer than
  // options().shutdown_timeout, the job stops as Stop() does. Calling Stop()
  // meanwhile stops it at once.
  void StopWithCheckpoint();

  MetricsRegistry& metrics() { return *metrics_; }
  // What liveness and readiness probes should answer; thread-safe.
  const JobHealth& health() const { return health_; }
  const PipelineOptions& options() const { return options_; }

 private:
  template <typename T>
  DataStream<T> AddTypedSource(const std::shared_ptr<Source<T>>& source,
                               int parallelism, WatermarkStrategy<T> strategy);
  absl::StatusOr<JobSummary> RunAttempts();
  absl::StatusOr<RestoredState> Restore(CheckpointStorage* storage);
  absl::Status ValidateOptions() const;
  // Waits out a restart delay; false if a stop was requested meanwhile.
  bool WaitBeforeRestart(absl::Duration delay);

  PipelineOptions options_;
  MetricsRegistry own_metrics_;
  MetricsRegistry* metrics_;
  PipelineGraph graph_;
  JobHealth health_{options_.HealthCheckpointBound()};
  absl::Mutex mu_;
  JobAttempt* running_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stop_requested_ ABSL_GUARDED_BY(mu_) = false;
};

template <typename T>
DataStream<T> Pipeline::AddTypedSource(const std::shared_ptr<Source<T>>& source,
                                       int parallelism,
                                       WatermarkStrategy<T> strategy) {
  const std::string id =
      absl::StrCat("source-", graph_.sources.size(), "-", source->name());
  graph_.sources.push_back(PipelineGraph::SourceInfo{
      id, parallelism, source->bounded(),
      [source](int p) { return source->PlanSplits(p); }});
  auto root = std::make_shared<Node<T>>();
  PipelineGraph::Stage stage;
  stage.name = id;
  stage.parallelism = parallelism;
  stage.is_source = true;
  stage.create_task = [source, root, id, strategy = std::move(strategy)](
                          BuildContext& context,
                          std::unique_ptr<TaskContext> task_context)
      -> absl::StatusOr<std::unique_ptr<Task>> {
    auto task = std::make_unique<SourceTask<T>>(
        std::move(task_context), strategy,
        OperatorMetrics::Create(context.attempt->metrics,
                                context.attempt->pipeline, id,
                                context.subtask));
    context.task = task.get();
    auto head = root->Build(context);
    if (!head.ok()) return head.status();
    // Splits are dealt round-robin in their stored order.
    std::vector<Split> mine;
    if (auto it = context.attempt->restored->source_splits.find(id);
        it != context.attempt->restored->source_splits.end()) {
      for (size_t i = 0; i < it->second.size(); ++i) {
        if (static_cast<int>(i % context.parallelism) == context.subtask) {
          mine.push_back(it->second[i]);
        }
      }
    }
    SourceReaderContext reader_context;
    reader_context.subtask_index = context.subtask;
    reader_context.parallelism = context.parallelism;
    reader_context.pipeline = context.attempt->pipeline;
    reader_context.mailbox = task->context().executor();
    reader_context.metrics = context.attempt->metrics;
    reader_context.checkpoint_interval = context.attempt->checkpoint_interval;
    auto reader = source->CreateReader(reader_context, std::move(mine));
    if (!reader.ok()) return reader.status();
    task->Attach(*std::move(reader), *std::move(head));
    return std::unique_ptr<Task>(std::move(task));
  };
  graph_.stages.push_back(std::move(stage));
  return DataStream<T>(&graph_, root,
                       static_cast<int>(graph_.stages.size()) - 1);
}

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_PIPELINE_H_

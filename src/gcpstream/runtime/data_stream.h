#ifndef GCPSTREAM_RUNTIME_DATA_STREAM_H_
#define GCPSTREAM_RUNTIME_DATA_STREAM_H_

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/exchange.h"
#include "gcpstream/runtime/exchange_task.h"
#include "gcpstream/runtime/operator_metrics.h"
#include "gcpstream/runtime/pipeline_graph.h"
#include "gcpstream/runtime/sink_endpoint.h"
#include "gcpstream/runtime/stable_hash.h"

namespace gcpstream::runtime {

// A stream of T in a pipeline under construction. Transforms are chained into
// the current stage (no queue between them); KeyBy and Rebalance start a new
// stage behind an exchange.
template <typename T>
class DataStream {
 public:
  DataStream(PipelineGraph* graph, std::shared_ptr<Node<T>> node, int stage)
      : graph_(graph), node_(std::move(node)), stage_(stage) {}

  int parallelism() const { return graph_->stages[stage_].parallelism; }

  // f: U(T&&)
  template <typename F>
  auto Map(F f) {
    using U = std::decay_t<std::invoke_result_t<F, T&&>>;
    auto next = std::make_shared<Node<U>>();
    node_->AddConsumer([f = std::move(f), next](BuildContext& context)
                           -> absl::StatusOr<std::shared_ptr<Output<T>>> {
      auto downstream = next->Build(context);
      if (!downstream.ok()) return downstream.status();
      return std::make_shared<MapOutput<T, U, F>>(f, *std::move(downstream));
    });
    return DataStream<U>(graph_, next, stage_);
  }

  // f: void(T&&, Collector<U>&)
  template <typename U, typename F>
  DataStream<U> FlatMap(F f) {
    auto next = std::make_shared<Node<U>>();
    node_->AddConsumer([f = std::move(f), next](BuildContext& context)
                           -> absl::StatusOr<std::shared_ptr<Output<T>>> {
      auto downstream = next->Build(context);
      if (!downstream.ok()) return downstream.status();
      return std::make_shared<FlatMapOutput<T, U, F>>(f,
                                                      *std::move(downstream));
    });
    return DataStream<U>(graph_, next, stage_);
  }

  // f: bool(const T&)
  template <typename F>
  DataStream<T> Filter(F f) {
    auto next = std::make_shared<Node<T>>();
    node_->AddConsumer([f = std::move(f), next](BuildContext& context)
                           -> absl::StatusOr<std::shared_ptr<Output<T>>> {
      auto downstream = next->Build(context);
      if (!downstream.ok()) return downstream.status();
      return std::make_shared<FilterOutput<T, F>>(f, *std::move(downstream));
    });
    return DataStream<T>(graph_, next, stage_);
  }

  // Routes each record by a stable hash of key_fn(record), so one key always
  // reaches the same subtask of the next stage (and keeps its order there).
  // The key must be an integer or a string. `parallelism` <= 0 keeps the
  // current one.
  template <typename F>
  DataStream<T> KeyBy(F key_fn, int parallelism = 0) {
    return Exchange(
        "keyby", {*this}, ExchangeSpec<T>::Routing::kPartitioner,
        [key_fn = std::move(key_fn)](const T& record, size_t consumers) {
          return static_cast<size_t>(StableHash(key_fn(record)) % consumers);
        },
        parallelism);
  }

  // Spreads records round-robin over `parallelism` subtasks.
  DataStream<T> Rebalance(int parallelism) {
    return Exchange("rebalance", {*this}, ExchangeSpec<T>::Routing::kRoundRobin,
                    nullptr, parallelism);
  }

  // One stream of this one's records and those of `others` (streams of the
  // same pipeline, typically of other sources), in a new stage of
  // `parallelism` subtasks (<= 0: the largest input parallelism). Producer
  // subtask i feeds consumer i mod parallelism, so each split's records keep
  // their order; the stage's watermark is the least of its inputs', and
  // checkpoint barriers are aligned over all of them.
  DataStream<T> Union(const std::vector<DataStream<T>>& others,
                      int parallelism = 0) {
    std::vector<DataStream<T>> inputs{*this};
    int widest = this->parallelism();
    for (const DataStream<T>& other : others) {
      inputs.push_back(other);
      widest = std::max(widest, other.parallelism());
    }
    return Exchange("union", inputs, ExchangeSpec<T>::Routing::kPointwise,
                    nullptr, parallelism > 0 ? parallelism : widest);
  }

  // Writes the stream to `sink` with `parallelism` writers (<= 0: the
  // stream's own; another value inserts a rebalance).
  void SinkTo(std::shared_ptr<Sink<T>> sink, int parallelism = 0) {
    if (parallelism > 0 && parallelism != this->parallelism()) {
      Rebalance(parallelism).SinkTo(std::move(sink));
      return;
    }
    const std::string id =
        absl::StrCat("sink-", graph_->sinks.size(), "-", sink->name());
    graph_->sinks.push_back(PipelineGraph::SinkInfo{
        id, this->parallelism(), [sink] { return sink->CreateCommitter(); },
        sink->name()});
    node_->AddConsumer([sink, id](BuildContext& context)
                           -> absl::StatusOr<std::shared_ptr<Output<T>>> {
      TaskContext& task = context.task->context();
      SinkWriterContext writer_context;
      writer_context.subtask_index = context.subtask;
      writer_context.parallelism = context.parallelism;
      writer_context.pipeline = context.attempt->pipeline;
      writer_context.sink_name = sink->name();
      writer_context.mailbox = task.executor();
      writer_context.metrics = context.attempt->metrics;
      if (auto it = context.attempt->restored->sink_states.find(id);
          it != context.attempt->restored->sink_states.end()) {
        for (size_t i = 0; i < it->second.size(); ++i) {
          if (static_cast<int>(i % context.parallelism) == context.subtask) {
            writer_context.restored_states.push_back(it->second[i]);
          }
        }
      }
      auto writer = sink->CreateWriter(writer_context);
      if (!writer.ok()) {
        // The stage is named after its first operator (often the source it
        // is chained to): say which operator could not start.
        return absl::Status(writer.status().code(),
                            absl::StrCat(id, ": ", writer.status().message()));
      }
      auto endpoint = std::make_shared<SinkEndpoint<T>>(
          id, *std::move(writer), &task,
          OperatorMetrics::Create(context.attempt->metrics,
                                  context.attempt->pipeline, id,
                                  context.subtask));
      context.task->endpoints().push_back(endpoint);
      return std::shared_ptr<Output<T>>(endpoint);
    });
  }

 private:
  // A new stage fed by `producers` (all of this stream's graph) through an
  // exchange routed by `routing`.
  DataStream<T> Exchange(const std::string& kind,
                         const std::vector<DataStream<T>>& producers,
                         typename ExchangeSpec<T>::Routing routing,
                         typename ExchangeSpec<T>::Partitioner partitioner,
                         int parallelism) {
    const int consumer_stage = static_cast<int>(graph_->stages.size());
    std::vector<int> producer_stages;
    producer_stages.reserve(producers.size());
    for (const DataStream<T>& producer : producers) {
      producer_stages.push_back(producer.stage_);
    }
    auto spec = std::make_shared<ExchangeSpec<T>>(std::move(producer_stages),
                                                  consumer_stage, routing,
                                                  std::move(partitioner));
    const std::string name = absl::StrCat(kind, "-", consumer_stage);
    for (const DataStream<T>& producer : producers) {
      producer.node_->AddConsumer(
          [spec, name](BuildContext& context)
              -> absl::StatusOr<std::shared_ptr<Output<T>>> {
            auto endpoint = std::make_shared<ExchangeEndpoint<T>>(
                spec.get(), context,
                OperatorMetrics::Create(context.attempt->metrics,
                                        context.attempt->pipeline,
                                        name + "-out", context.subtask));
            context.task->endpoints().push_back(endpoint);
            return std::shared_ptr<Output<T>>(endpoint);
          });
    }
    auto root = std::make_shared<Node<T>>();
    PipelineGraph::Stage stage;
    stage.name = name;
    stage.parallelism = parallelism > 0 ? parallelism : this->parallelism();
    stage.create_task = [spec, root, name](
                            BuildContext& context,
                            std::unique_ptr<TaskContext> task_context)
        -> absl::StatusOr<std::unique_ptr<Task>> {
      auto task = std::make_unique<ExchangeTask<T>>(
          std::move(task_context),
          OperatorMetrics::Create(context.attempt->metrics,
                                  context.attempt->pipeline, name,
                                  context.subtask));
      context.task = task.get();
      auto head = root->Build(context);
      if (!head.ok()) return head.status();
      std::vector<std::shared_ptr<Channel<T>>> inputs;
      for (auto& row : spec->Channels(*context.attempt)) {
        inputs.push_back(row[context.subtask]);
      }
      task->Attach(std::move(inputs), *std::move(head));
      return std::unique_ptr<Task>(std::move(task));
    };
    graph_->stages.push_back(std::move(stage));
    return DataStream<T>(graph_, root, consumer_stage);
  }

  PipelineGraph* graph_;
  std::shared_ptr<Node<T>> node_;
  int stage_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_DATA_STREAM_H_

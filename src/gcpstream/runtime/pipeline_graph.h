#ifndef GCPSTREAM_RUNTIME_PIPELINE_GRAPH_H_
#define GCPSTREAM_RUNTIME_PIPELINE_GRAPH_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/runtime/build_context.h"
#include "gcpstream/runtime/output.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/runtime/source.h"
#include "gcpstream/runtime/task.h"

namespace gcpstream::runtime {

// A point in a stage's operator tree carrying records of type T: what
// consumes them there (transforms, sinks, an exchange) is built per subtask.
template <typename T>
class Node {
 public:
  using Consumer =
      std::function<absl::StatusOr<std::shared_ptr<Output<T>>>(BuildContext&)>;

  void AddConsumer(Consumer consumer) {
    consumers_.push_back(std::move(consumer));
  }

  absl::StatusOr<std::shared_ptr<Output<T>>> Build(
      BuildContext& context) const {
    std::vector<std::shared_ptr<Output<T>>> outputs;
    for (const Consumer& consumer : consumers_) {
      auto output = consumer(context);
      if (!output.ok()) return output.status();
      outputs.push_back(*std::move(output));
    }
    if (outputs.empty()) return std::make_shared<DiscardOutput<T>>();
    if (outputs.size() == 1) return outputs.front();
    return std::make_shared<FanOutOutput<T>>(std::move(outputs));
  }

 private:
  std::vector<Consumer> consumers_;
};

// The type-erased plan of a pipeline: stages of subtasks, sources, sinks.
struct PipelineGraph {
  struct Stage {
    std::string name;
    int parallelism = 1;
    bool is_source = false;
    // Creates subtask `context.subtask`'s task, with its chain built.
    std::function<absl::StatusOr<std::unique_ptr<Task>>(
        BuildContext&, std::unique_ptr<TaskContext>)>
        create_task;
  };
  struct SourceInfo {
    std::string id;
    int parallelism = 1;
    bool bounded = true;
    std::function<absl::StatusOr<std::vector<Split>>(int parallelism)> plan;
  };
  struct SinkInfo {
    std::string id;
    int parallelism = 1;
    std::function<std::unique_ptr<Committer>()> create_committer;
    std::string name{};  // The sink's.
  };

  std::vector<Stage> stages;
  std::vector<SourceInfo> sources;
  std::vector<SinkInfo> sinks;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_PIPELINE_GRAPH_H_

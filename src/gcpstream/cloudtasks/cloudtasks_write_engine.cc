#include "gcpstream/cloudtasks/cloudtasks_write_engine.h"

#include <limits>
#include <utility>

#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/cloudtasks/cloudtasks_classification.h"
#include "gcpstream/connector/retry.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;

// The deadline of one CreateTask attempt.
constexpr absl::Duration kAttemptTimeout = absl::Seconds(30);

constexpr connector::ConnectorName kCloudTasksWriter{
    .name = "cloudtasks",
    .error_metric_prefix = "create_task_errors_",
    .error_metric_help = "CreateTask calls that failed with this status code."};

}  // namespace

// One CreateTask through its attempts. Touched on the task thread only;
// gRPC uses `context`, `request` and `response` between an attempt's start
// and its callback, and the engine frees a Call only after that callback.
struct CloudTasksWriteEngine::Call {
  uint64_t id = 0;
  std::string queue_name;
  v2::CreateTaskRequest request;
  v2::Task response;
  int64_t bytes = 0;
  bool named = false;
  std::unique_ptr<grpc::ClientContext> context;
  // Made on the first transient failure (most creates never need one);
  // its budget then runs from that failure.
  std::optional<connector::Retry> retry;
  // Started on the first NOT_FOUND: the missing queue's short budget.
  std::optional<connector::Retry> missing_queue;
  connector::TaskTimer::Id retry_timer = 0;
};

absl::StatusOr<std::unique_ptr<CloudTasksWriteEngine>>
CloudTasksWriteEngine::Create(CloudTasksSinkOptions options,
                              const runtime::SinkWriterContext& context,
                              std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckCloudTasksSinkOptions(options); !status.ok()) {
    return status;
  }
  absl::StatusOr<auth::ChannelTarget> target =
      auth::ResolveTarget(auth::Service::kCloudTasks, options.channel);
  if (!target.ok()) return target.status();
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int64_t i = 0; i < options.channel_pool_size; ++i) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = auth::MakeChannel(
        *target, /*own_connections=*/options.channel_pool_size > 1);
    if (!channel.ok()) return channel.status();
    channels.push_back(*std::move(channel));
  }
  auto engine = std::make_unique<CloudTasksWriteEngine>(
      ConstructorKey(), std::move(options), context, std::move(channels));
  if (absl::Status status = engine->Init(context, std::move(handler));
      !status.ok()) {
    return status;
  }
  return engine;
}

CloudTasksWriteEngine::CloudTasksWriteEngine(
    ConstructorKey, CloudTasksSinkOptions options,
    const runtime::SinkWriterContext& context,
    std::vector<std::shared_ptr<grpc::Channel>> channels)
    : options_(std::move(options)),
      executor_(context.mailbox),
      timer_(connector::MakeTimer(options_.make_timer, executor_)),
      clock_(options_.clock != nullptr ? *options_.clock : timer_->clock()),
      channels_(std::move(channels)),
      completions_(executor_) {}

CloudTasksWriteEngine::~CloudTasksWriteEngine() { Close(); }

absl::Status CloudTasksWriteEngine::Init(
    const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = core_.Open(
          connector::WriterCoreOptions::For(kCloudTasksWriter, options_,
                                            kCloudTasksClassification, clock_),
          context, std::move(handler));
      !status.ok()) {
    return status;
  }
  in_flight_.emplace(
      connector::InFlightOptions{
          .max_records = options_.max_in_flight_tasks,
          // Tasks are at most 1 MiB each: the count bounds the bytes.
          .max_bytes = std::numeric_limits<int64_t>::max(),
          .progress_timeout = options_.write_progress_timeout,
          .max_records_key = kMaxInFlightTasksKey,
          .max_bytes_key = kMaxInFlightTasksKey,
          .progress_timeout_key = kWriteProgressTimeoutKey,
          .completion = "CreateTask",
          .records = "tasks"},
      core_, *timer_, executor_);
  return RegisterMetrics();
}

absl::Status CloudTasksWriteEngine::RegisterMetrics() {
  connector::MetricSet set = core_.ConnectorMetrics();
  in_flight_->MirrorRecordsTo(set.AddGauge(
      "in_flight_tasks",
      "Creates sent and not yet answered, or waiting out a backoff."));
  metrics_ = Metrics{
      .parked_tasks = set.AddGauge(
          "parked_tasks", "Creates waiting out a backoff before resending."),
      .tasks_deduplicated = set.AddCounter(
          "tasks_deduplicated",
          "Named tasks the service already had (ALREADY_EXISTS): replays."),
      .create_latency = set.AddHistogram(
          "create_task_latency_seconds",
          "Seconds from sending a CreateTask request to its answer.",
          {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
           30}),
  };
  stub_ = MakeCloudTasksStub(
      channels_, options_.make_stub,
      connector::LoggedAndTimed(options_.name,
                                {{"CreateTask", metrics_.create_latency}}));
  return set.status();
}

absl::Status CloudTasksWriteEngine::Write(Task task,
                                          const QueueDestination& queue,
                                          bool named,
                                          const WriterContext& context) {
  if (core_.failed()) return core_.failure();
  if (absl::Status checked = CheckTask(task); !checked.ok()) {
    CloudTasksFailedElement failed;
    failed.destination = queue.ResourceName();
    failed.status = absl::InvalidArgumentError(absl::StrCat(
        "record #", context.record_position, ": ", checked.message()));
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(task, &json);
    failed.payload = std::move(json);
    failed.task = std::move(task);
    core_.Route(failed);
    return core_.failure();
  }
  if (absl::Status room = in_flight_->WaitForRoom(0, [] {}); !room.ok()) {
    return room;
  }
  auto call = std::make_unique<Call>();
  call->id = next_call_id_++;
  call->queue_name = queue.ResourceName();
  call->request.set_parent(call->queue_name);
  *call->request.mutable_task() = std::move(task);
  call->bytes = static_cast<int64_t>(call->request.task().ByteSizeLong());
  call->named = named;
  in_flight_->Add(1, call->bytes);
  Call& started = *call;
  calls_.emplace(started.id, std::move(call));
  StartAttempt(started);
  return core_.failure();
}

void CloudTasksWriteEngine::StartAttempt(Call& call) {
  call.context = std::make_unique<grpc::ClientContext>();
  call.context->set_deadline(absl::ToChronoTime(
      call.retry.has_value() ? call.retry->AttemptDeadline(kAttemptTimeout)
                             : absl::Now() + kAttemptTimeout));
  call.response.Clear();
  core_.metrics().requests->Increment();
  stub_->AsyncCreateTask(
      *call.context, call.request, call.response,
      completions_.Wrap([this, id = call.id](const absl::Status& status) {
        OnCreateDone(id, status);
      }));
}

void CloudTasksWriteEngine::OnCreateDone(uint64_t id,
                                         const absl::Status& status) {
  auto it = calls_.find(id);
  if (it == calls_.end() || core_.failed()) return;
  Call& call = *it->second;
  in_flight_->OnProgress();
  if (status.ok() ||
      (call.named && status.code() == absl::StatusCode::kAlreadyExists)) {
    if (!status.ok()) {
      core_.CountError(status);
      metrics_.tasks_deduplicated->Increment();
    }
    core_.rejection().OnSuccess();
    core_.metrics().records_written->Increment();
    core_.metrics().bytes_written->Increment(call.bytes);
    Finish(it);
    return;
  }
  core_.CountError(status);
  if (status.code() == absl::StatusCode::kNotFound) {
    OnMissingQueue(call, status);
    return;
  }
  switch (kCloudTasksClassification.ClassifyRequest(status)) {
    case StatusClass::kPerRecord: {
      RejectionConfirmation::Verdict verdict =
          core_.rejection().OnSingleResult(status);
      if (verdict.kind != ConfirmationVerdict::kRouted) {
        core_.Fail(verdict.status);
        return;
      }
      core_.Route(Failed(call, status));
      Finish(it);
      return;
    }
    case StatusClass::kTransient:
      if (!call.retry.has_value()) {
        // Cannot fail: the retry options were checked in Create(). An
        // unnamed task is not resent after an ambiguous failure (it would
        // be a second task).
        call.retry.emplace(*connector::Retry::Create(
            options_.retry, clock_,
            call.named ? connector::Idempotency::kIdempotent
                       : connector::Idempotency::kNonIdempotent));
      }
      RetryLater(call, call.retry->OnFailure(status, StatusClass::kTransient));
      return;
    case StatusClass::kFatal:
      break;
  }
  core_.Fail(absl::Status(
      status.code(),
      absl::StrCat(options_.name, ": creating a task in ", call.queue_name,
                   " failed: ", status.message())));
}

void CloudTasksWriteEngine::OnMissingQueue(Call& call,
                                           const absl::Status& status) {
  if (!call.missing_queue.has_value()) {
    // Cannot fail: checked in Create().
    call.missing_queue.emplace(*connector::Retry::Create(
        options_.missing_queue, clock_, connector::Idempotency::kIdempotent));
  }
  RetryDecision decision =
      call.missing_queue->OnFailure(status, StatusClass::kTransient);
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    core_.Fail(absl::NotFoundError(absl::StrCat(
        options_.name, ": queue ", call.queue_name,
        " does not exist (NOT_FOUND after ", call.missing_queue->attempts(),
        " attempts, options 'missing-queue-*'); the sink never creates "
        "queues: create it (gcloud tasks queues create ...) or fix the "
        "queue the sink is given. The service said: ",
        status.message())));
    return;
  }
  RetryLater(call, decision);
}

void CloudTasksWriteEngine::RetryLater(Call& call,
                                       const RetryDecision& decision) {
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    core_.Fail(connector::Reworded(
        decision.status,
        absl::StrCat(options_.name, ": creating a task in ", call.queue_name,
                     call.named ? ""
                                : " (an unnamed task, not resent after "
                                  "an ambiguous failure: set a "
                                  "task-id-extractor to make it safe)",
                     " failed: ", decision.status.message())));
    return;
  }
  core_.metrics().request_retries->Increment();
  metrics_.parked_tasks->Set(++parked_);
  call.retry_timer = timer_->Schedule(decision.delay,
                                      [this, id = call.id] { OnRetryDue(id); });
}

void CloudTasksWriteEngine::OnRetryDue(uint64_t id) {
  auto it = calls_.find(id);
  if (it == calls_.end() || core_.failed()) return;
  it->second->retry_timer = 0;
  metrics_.parked_tasks->Set(--parked_);
  StartAttempt(*it->second);
}

void CloudTasksWriteEngine::Finish(Calls::iterator it) {
  in_flight_->Release(1, it->second->bytes);
  calls_.erase(it);
}

CloudTasksFailedElement CloudTasksWriteEngine::Failed(
    const Call& call, const absl::Status& status) {
  CloudTasksFailedElement failed;
  failed.destination = call.queue_name;
  failed.status = status;
  failed.attempts = call.retry.has_value() ? call.retry->attempts() : 1;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(call.request.task(), &json);
  failed.payload = std::move(json);
  failed.task = call.request.task();
  return failed;
}

absl::Status CloudTasksWriteEngine::Flush(bool /*end_of_input*/) {
  const absl::Time started = clock_.Now();
  if (core_.failed()) return core_.failure();
  if (absl::Status drained =
          in_flight_->WaitUntil([this] { return in_flight_->empty(); },
                                "every task create to be answered (Flush)");
      !drained.ok()) {
    return drained;
  }
  return core_.FinishFlush(started);
}

void CloudTasksWriteEngine::Close() {
  if (closed_) return;
  closed_ = true;
  timer_->CancelAll();
  for (auto& [id, call] : calls_) {
    if (call->context != nullptr) call->context->TryCancel();
  }
  completions_.Close();
  calls_.clear();
  core_.Close();
}

}  // namespace gcpstream::cloudtasks

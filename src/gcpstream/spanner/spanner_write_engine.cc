#include "gcpstream/spanner/spanner_write_engine.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/connector/entry_outcomes.h"
#include "gcpstream/spanner/mutation_requests.h"
#include "gcpstream/spanner/spanner_classification.h"

namespace gcpstream::spanner {
namespace {

using ::gcpstream::connector::AttemptResult;
using ::gcpstream::connector::Idempotency;
using ::gcpstream::connector::Retry;

// Every mutation the sink writes may be sent again: insert-or-update,
// replace, update and delete are idempotent, and a resent insert that had
// been applied is refused with ALREADY_EXISTS, which is routed.
constexpr Idempotency kMutationIdempotency = Idempotency::kIdempotent;

constexpr connector::ConnectorName kSpannerWriter{
    .name = "spanner",
    .error_metric_prefix = "spanner_errors_",
    .error_metric_help =
        "Spanner requests or mutation groups refused with this code."};

}  // namespace

absl::StatusOr<std::unique_ptr<SpannerWriteEngine>> SpannerWriteEngine::Create(
    SpannerSinkOptions options, const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckSpannerSinkOptions(options); !status.ok()) {
    return status;
  }
  auto engine = std::make_unique<SpannerWriteEngine>(
      ConstructorKey(), std::move(options), context);
  if (absl::Status status = engine->Init(context, std::move(handler));
      !status.ok()) {
    return status;
  }
  return engine;
}

SpannerWriteEngine::SpannerWriteEngine(
    ConstructorKey, SpannerSinkOptions options,
    const runtime::SinkWriterContext& context)
    : options_(std::move(options)),
      executor_(context.mailbox),
      timer_(connector::MakeTimer(options_.make_timer, executor_)),
      table_(SpannerClassification(options_.constraint_violation_policy)),
      method_(options_.write_method) {}

SpannerWriteEngine::~SpannerWriteEngine() { Close(); }

absl::Status SpannerWriteEngine::Init(const runtime::SinkWriterContext& context,
                                      std::unique_ptr<Handler> handler) {
  if (absl::Status status = core_.Open(
          connector::WriterCoreOptions::For(
              kSpannerWriter, options_, table_,
              options_.clock != nullptr ? *options_.clock : timer_->clock()),
          context, std::move(handler));
      !status.ok()) {
    return status;
  }
  if (absl::Status status = RegisterMetrics(); !status.ok()) return status;
  absl::StatusOr<std::unique_ptr<SpannerConnection>> connection =
      SpannerConnection::Open(
          options_, executor_,
          connector::LoggedAndTimed(
              options_.name, {{"BatchWrite", spanner_metrics_.write_latency},
                              {"Commit", spanner_metrics_.write_latency}}));
  if (!connection.ok()) return connection.status();
  connection_ = *std::move(connection);
  absl::StatusOr<SchemaCatalog> catalog = connection_->LoadSchema();
  if (!catalog.ok()) return catalog.status();
  catalog_.emplace(*std::move(catalog));
  batch_.emplace(
      MutationBatchLimits{.max_cells = options_.max_batch_cells,
                          .max_mutations = options_.max_batch_mutations,
                          .max_bytes = options_.max_batch_bytes});
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::RegisterMetrics() {
  connector::MetricSet set = core_.ConnectorMetrics();
  spanner_metrics_ = Metrics{
      .mutations_retried = set.AddCounter(
          "mutations_retried", "Mutations resent after a transient refusal."),
      .batches_sent =
          set.AddCounter("batches_sent", "BatchWrite or Commit requests sent."),
      .write_method_fallbacks = set.AddCounter(
          "write_method_fallbacks",
          "Switches from batch-write to commit because BatchWrite "
          "is unimplemented."),
      .buffered_mutations =
          set.AddGauge("buffered_mutations", "Mutations in the open batch."),
      .buffered_cells =
          set.AddGauge("buffered_cells", "Cells in the open batch."),
      .buffered_bytes =
          set.AddGauge("buffered_bytes", "Bytes in the open batch."),
      .write_latency = set.AddHistogram(
          "write_latency_seconds",
          "Seconds from sending a BatchWrite or Commit request to its "
          "answer, per attempt.",
          DefaultDurationBuckets()),
  };
  return set.status();
}

connector::RetryContext SpannerWriteEngine::RetryContext() const {
  return connector::RetryContext{.options = &options_.retry,
                                 .timer = timer_.get(),
                                 .executor = executor_,
                                 .who = options_.name};
}

absl::Status SpannerWriteEngine::Write(Mutation mutation,
                                       const connector::NoDestination&,
                                       const WriterContext& context) {
  if (core_.failed()) return core_.failure();
  absl::StatusOr<EncodedMutation> encoded =
      catalog_->Encode(mutation, batch_->arena());
  if (encoded.status().code() == absl::StatusCode::kNotFound) {
    return core_.Fail(absl::NotFoundError(
        absl::StrCat(options_.name, ": record #", context.record_position, ": ",
                     encoded.status().message())));
  }
  if (!encoded.ok()) {
    return Route(PendingMutation{std::move(mutation), EncodedMutation()},
                 absl::InvalidArgumentError(
                     absl::StrCat("record #", context.record_position, ": ",
                                  encoded.status().message())),
                 /*attempts=*/1);
  }
  return Enqueue(PendingMutation{std::move(mutation), *std::move(encoded)});
}

absl::Status SpannerWriteEngine::WriteEncoded(
    EncodedMutation encoded, TypedMutationBuilder build_typed) {
  if (core_.failed()) return core_.failure();
  return Enqueue(PendingMutation{.mutation = std::nullopt,
                                 .encoded = encoded,
                                 .group = {},
                                 .build_typed = std::move(build_typed)});
}

absl::Status SpannerWriteEngine::Enqueue(PendingMutation pending) {
  MutationBatch::Candidate candidate =
      MutationBatch::Prepare(std::move(pending));
  if (!batch_->Fits(candidate)) {
    if (absl::Status sent = Send(batch_->TakeBefore(candidate)); !sent.ok()) {
      return sent;
    }
  }
  batch_->Add(std::move(candidate));
  UpdateBufferGauges();
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::SendBatch() { return Send(batch_->Take()); }

absl::Status SpannerWriteEngine::Send(MutationBatch::Taken batch) {
  UpdateBufferGauges();
  if (batch.entries.empty()) return absl::OkStatus();
  Batch pointers;
  pointers.reserve(batch.entries.size());
  for (PendingMutation& pending : batch.entries) pointers.push_back(&pending);
  absl::Status sent = method_ == WriteMethod::kBatchWrite
                          ? SendViaBatchWrite(std::move(pointers))
                          : SendViaCommit(std::move(pointers));
  return core_.Fail(sent);
}

absl::Status SpannerWriteEngine::SendViaBatchWrite(Batch batch) {
  Batch undecided = std::move(batch);
  bool fell_back = false;
  return connector::RunWithRetries(
      RetryContext(), kMutationIdempotency,
      [&](const Retry& retry) {
        AttemptResult result =
            BatchWriteOnce(undecided, retry.attempts(), fell_back);
        if (!fell_back) return result;
        // From now on the batch goes through Commit, with its own retries.
        absl::Status committed = SendViaCommit(std::move(undecided));
        undecided.clear();
        return committed.ok() ? AttemptResult::Done()
                              : AttemptResult::Stop(committed);
      },
      [&](const absl::Status&) { CountRetried(undecided.size()); },
      [&](const absl::Status& exhausted) {
        return Undecided(exhausted, undecided.size());
      });
}

AttemptResult SpannerWriteEngine::BatchWriteOnce(Batch& undecided, int attempts,
                                                 bool& fell_back) {
  core_.metrics().requests->Increment();
  spanner_metrics_.batches_sent->Increment();
  SpannerConnection::BatchWriteResult result;
  std::vector<std::vector<size_t>> groups;
  {
    // Gives the mutations back when it goes: confirming one alone needs it.
    BatchWriteRequestFor request(options_, undecided);
    result = connection_->BatchWrite(request.request());
    groups = request.groups();
  }
  if (!result.status.ok()) core_.CountError(result.status);
  if (result.status.code() == absl::StatusCode::kUnimplemented &&
      result.responses.empty()) {
    WarnBatchWriteFallback(options_, result.status);
    spanner_metrics_.write_method_fallbacks->Increment();
    method_ = WriteMethod::kCommit;
    fell_back = true;
    return AttemptResult::Done();
  }
  // Outcomes are per group; a group's status is each of its mutations'.
  connector::EntryOutcomes outcomes(groups.size());
  for (const auto& response : result.responses) {
    const absl::Status status(
        static_cast<absl::StatusCode>(response.status().code()),
        response.status().message());
    if (!status.ok()) core_.CountError(status);
    // Indexes the service never sends (out of range, repeated) are ignored.
    for (int index : response.indexes()) outcomes.Report(index, status);
  }
  connector::EntryOutcomes::Sorted sorted =
      outcomes.Sort(table_, result.status);
  for (size_t group : sorted.written) {
    for (size_t index : groups[group]) CountWritten(*undecided[index]);
  }
  // A refused group of one mutation is that mutation's refusal; a group of
  // several does not say which one was refused: each is committed alone, in
  // order, and decided by its own answer.
  auto settle = [&](size_t group, const absl::Status& status, bool fatal) {
    if (groups[group].size() > 1) {
      Batch members;
      for (size_t index : groups[group]) members.push_back(undecided[index]);
      return ConfirmEach(members);
    }
    PendingMutation& pending = *undecided[groups[group].front()];
    return fatal ? Refused(pending, status) : Route(pending, status, attempts);
  };
  for (const auto& [group, status] : sorted.fatal_entries) {
    if (absl::Status settled = settle(group, status, true); !settled.ok()) {
      return AttemptResult::Stop(settled);
    }
  }
  for (const auto& [group, status] : sorted.routed) {
    if (absl::Status settled = settle(group, status, false); !settled.ok()) {
      return AttemptResult::Stop(settled);
    }
  }
  if (!sorted.fatal_request.ok()) {
    return AttemptResult::Stop(absl::Status(
        sorted.fatal_request.code(),
        absl::StrCat(options_.name, ": BatchWrite to ",
                     options_.database.ResourceName(),
                     " failed: ", sorted.fatal_request.message())));
  }
  Batch next;
  for (size_t group : sorted.retry) {
    for (size_t index : groups[group]) next.push_back(undecided[index]);
  }
  undecided = std::move(next);
  if (undecided.empty()) return AttemptResult::Done();
  return AttemptResult::RetryAfter(sorted.retry_status);
}

absl::Status SpannerWriteEngine::Commit(const Batch& batch) {
  core_.metrics().requests->Increment();
  spanner_metrics_.batches_sent->Increment();
  absl::Status status =
      connection_->Commit(CommitRequestFor(options_, batch).request());
  if (!status.ok()) core_.CountError(status);
  return status;
}

absl::Status SpannerWriteEngine::SendViaCommit(Batch batch) {
  if (batch.size() == 1) return CommitAlone(*batch.front());
  return connector::RunWithRetries(
      RetryContext(), kMutationIdempotency,
      [&](const Retry&) {
        absl::Status committed = Commit(batch);
        if (committed.ok()) {
          core_.rejection().OnSuccess();
          for (const PendingMutation* pending : batch) CountWritten(*pending);
          return AttemptResult::Done();
        }
        switch (table_.ClassifyRequest(committed)) {
          case StatusClass::kPerRecord: {
            // One mutation may have spoilt the commit: confirm each alone.
            absl::Status confirmed = ConfirmEach(batch);
            return confirmed.ok() ? AttemptResult::Done()
                                  : AttemptResult::Stop(confirmed);
          }
          case StatusClass::kFatal:
            return AttemptResult::Stop(absl::Status(
                committed.code(),
                absl::StrCat(options_.name, ": a commit of ", batch.size(),
                             " mutations to ", options_.database.ResourceName(),
                             " failed: ", committed.message(),
                             RefusalNote(committed.code()))));
          case StatusClass::kTransient:
            break;
        }
        return AttemptResult::RetryAfter(committed);
      },
      [&](const absl::Status&) { CountRetried(batch.size()); },
      [&](const absl::Status& exhausted) {
        return Undecided(exhausted, batch.size());
      });
}

absl::Status SpannerWriteEngine::ConfirmEach(const Batch& batch) {
  for (PendingMutation* pending : batch) {
    if (absl::Status status = CommitAlone(*pending); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::CommitAlone(PendingMutation& pending) {
  return connector::RunWithRetries(
      RetryContext(), kMutationIdempotency,
      [&](const Retry& retry) {
        absl::Status committed = Commit({&pending});
        RejectionConfirmation::Verdict verdict =
            core_.rejection().OnSingleResult(committed);
        switch (verdict.kind) {
          case ConfirmationVerdict::kWritten:
            CountWritten(pending);
            return AttemptResult::Done();
          case ConfirmationVerdict::kRouted: {
            // An existing key is what a replayed insert finds: evidence
            // that the mapping works, not of a systematic error.
            if (committed.code() == absl::StatusCode::kAlreadyExists) {
              core_.rejection().OnSuccess();
            }
            absl::Status routed = Route(pending, committed, retry.attempts());
            return routed.ok() ? AttemptResult::Done()
                               : AttemptResult::Stop(routed);
          }
          case ConfirmationVerdict::kFatal:
            return AttemptResult::Stop(Refused(pending, verdict.status));
          case ConfirmationVerdict::kRetry:
            break;
        }
        return AttemptResult::RetryAfter(committed);
      },
      [&](const absl::Status&) { CountRetried(1); },
      [&](const absl::Status& exhausted) { return Undecided(exhausted, 1); });
}

void SpannerWriteEngine::CountWritten(const PendingMutation& pending) {
  core_.metrics().records_written->Increment();
  core_.metrics().bytes_written->Increment(pending.encoded.bytes);
}

void SpannerWriteEngine::CountRetried(size_t mutations) {
  spanner_metrics_.mutations_retried->Increment(mutations);
  core_.metrics().request_retries->Increment();
}

absl::Status SpannerWriteEngine::Refused(const PendingMutation& pending,
                                         const absl::Status& status) const {
  return absl::Status(
      status.code(),
      absl::StrCat(options_.name, ": Spanner refused the ",
                   OperationName(pending.typed().operation()), " of ",
                   pending.typed().table(), ": ", status.message(),
                   RefusalNote(status.code())));
}

std::string SpannerWriteEngine::RefusalNote(absl::StatusCode code) const {
  std::string note = absl::StrCat(" (", absl::StatusCodeToString(code), "; ",
                                  kConstraintViolationPolicyOption.key(), "=",
                                  kConstraintViolationPolicyOption.Name(
                                      options_.constraint_violation_policy));
  const ConstraintViolationPolicy route =
      ConstraintViolationPolicy::kRouteToFailureHandler;
  if (options_.constraint_violation_policy != route &&
      SpannerClassification(route).ClassifyEntry(absl::Status(code, "")) ==
          StatusClass::kPerRecord) {
    absl::StrAppend(&note, ": set ", kConstraintViolationPolicyOption.key(),
                    ": ", kConstraintViolationPolicyOption.Name(route),
                    " to send such records to the failure handler instead of "
                    "failing the job");
  }
  absl::StrAppend(&note, ")");
  return note;
}

absl::Status SpannerWriteEngine::Undecided(const absl::Status& exhausted,
                                           size_t mutations) const {
  return connector::Reworded(
      exhausted, absl::StrCat(options_.name, ": ", mutations, " mutations to ",
                              options_.database.ResourceName(),
                              " are still undecided: ", exhausted.message()));
}

absl::Status SpannerWriteEngine::Route(const PendingMutation& pending,
                                       const absl::Status& status,
                                       int attempts) {
  SpannerFailedElement failed;
  failed.destination = options_.database.ResourceName();
  failed.status = status;
  failed.attempts = attempts;
  failed.payload = pending.typed().ToJson().dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  failed.attributes = {
      {"table", pending.typed().table()},
      {"operation", OperationName(pending.typed().operation())}};
  failed.mutation = pending.typed();
  return core_.Route(failed);
}

void SpannerWriteEngine::UpdateBufferGauges() {
  spanner_metrics_.buffered_mutations->Set(batch_->size());
  spanner_metrics_.buffered_cells->Set(batch_->cells());
  spanner_metrics_.buffered_bytes->Set(batch_->bytes());
}

absl::Status SpannerWriteEngine::Flush(bool /*end_of_input*/) {
  const absl::Time started = core_.clock().Now();
  if (core_.failed()) return core_.failure();
  if (absl::Status sent = SendBatch(); !sent.ok()) return sent;
  return core_.FinishFlush(started);
}

absl::Status SpannerWriteEngine::OnInputIdle() {
  if (core_.failed()) return core_.failure();
  return SendBatch();
}

void SpannerWriteEngine::Close() {
  if (closed_) return;
  closed_ = true;
  if (connection_ != nullptr) connection_->Close();
  core_.Close();
  timer_->CancelAll();
}

}  // namespace gcpstream::spanner

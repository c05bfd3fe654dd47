#include "gcpstream/bigtable/bigtable_write_engine.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/bigtable/bigtable_classification.h"

namespace gcpstream::bigtable {
namespace {

using ::google::bigtable::v2::MutateRowsRequest;
using ::google::bigtable::v2::MutateRowsResponse;

// The deadline of one MutateRows attempt. A hung attempt ends as a
// retryable DEADLINE_EXCEEDED instead of waiting forever.
constexpr absl::Duration kAttemptTimeout = absl::Seconds(60);

constexpr connector::ConnectorName kBigtableWriter{
    .name = "bigtable",
    .error_metric_prefix = "mutate_errors_",
    .error_metric_help =
        "MutateRows requests and entries that failed with this status code."};

// A row key for an error message: printable, and short.
std::string Printable(const std::string& row_key) {
  constexpr size_t kMaxShown = 64;
  std::string shown = absl::CHexEscape(row_key.substr(0, kMaxShown));
  if (row_key.size() > kMaxShown) absl::StrAppend(&shown, "...");
  return absl::StrCat("'", shown, "'");
}

std::string FamiliesOf(const MutateRowsRequest::Entry& entry) {
  std::vector<std::string> families;
  ForEachFamily(entry, [&](absl::string_view family) {
    if (std::find(families.begin(), families.end(), family) == families.end()) {
      families.emplace_back(family);
    }
  });
  return families.empty() ? "none" : absl::StrJoin(families, ", ");
}

std::string EntryJson(const MutateRowsRequest::Entry& entry) {
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(entry, &json);
  return json;
}

}  // namespace

// One MutateRows request through its attempts. Owned by the engine and
// touched on the task thread, except `outcomes`, which the response stream
// fills on gRPC's thread between an attempt's start and its callback; the
// engine frees a Call only after that callback ran.
struct BigtableWriteEngine::Call {
  uint64_t id = 0;
  TableDestination table;
  EntryBatch batch;
  std::unique_ptr<grpc::ClientContext> context;
  std::optional<connector::EntryOutcomes> outcomes;
  // Waiting for its table to be made ready.
  bool parked = false;
};

absl::StatusOr<std::unique_ptr<BigtableWriteEngine>>
BigtableWriteEngine::Create(BigtableSinkOptions options,
                            const runtime::SinkWriterContext& context,
                            std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckBigtableSinkOptions(options); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kBigtable, options.channel);
  if (!channel.ok()) return channel.status();
  auto engine = std::make_unique<BigtableWriteEngine>(
      ConstructorKey(), std::move(options), context, *std::move(channel));
  if (absl::Status status = engine->Init(context, std::move(handler));
      !status.ok()) {
    return status;
  }
  return engine;
}

BigtableWriteEngine::BigtableWriteEngine(
    ConstructorKey, BigtableSinkOptions options,
    const runtime::SinkWriterContext& context,
    std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      executor_(context.mailbox),
      timer_(connector::MakeTimer(options_.make_timer, executor_)),
      clock_(options_.clock != nullptr ? *options_.clock : timer_->clock()),
      channel_(std::move(channel)),
      batchers_(
          DestinationStatesOptions{.idle_timeout =
                                       options_.destination_idle_timeout},
          [this](const TableDestination& table) {
            return std::make_unique<TableBatcher>(
                table, options_.app_profile_id,
                BatchLimits{.max_entries = options_.batch_element_count,
                            .max_bytes = options_.batch_byte_size,
                            .max_mutations = kMaxMutationsPerRequest},
                options_.create_disposition ==
                        CreateDisposition::kCreateIfNeeded
                    ? TableState::kEnsuring
                    : TableState::kReady,
                // Cannot fail: the retry options were checked in Create().
                *ExponentialBackoff::Create(options_.retry.backoff,
                                            DefaultUniformRandom()));
          }),
      completions_(executor_) {}

BigtableWriteEngine::~BigtableWriteEngine() { Close(); }

absl::Status BigtableWriteEngine::Init(
    const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = core_.Open(
          connector::WriterCoreOptions::For(kBigtableWriter, options_,
                                            kBigtableClassification, clock_),
          context, std::move(handler));
      !status.ok()) {
    return status;
  }
  in_flight_.emplace(
      connector::InFlightOptions{
          .max_records = options_.max_in_flight_entries,
          .max_bytes = options_.max_in_flight_bytes,
          .progress_timeout = options_.write_progress_timeout,
          .max_records_key = kMaxInFlightEntriesKey,
          .max_bytes_key = kMaxInFlightBytesKey,
          .progress_timeout_key = kWriteProgressTimeoutKey,
          .completion = "MutateRows",
          .records = "entries"},
      core_, *timer_, executor_);
  return RegisterMetrics();
}

absl::Status BigtableWriteEngine::RegisterMetrics() {
  connector::MetricSet set = core_.ConnectorMetrics();
  in_flight_->MirrorRecordsTo(set.AddGauge(
      "in_flight_entries", "Entries taken and not yet written or routed."));
  metrics_ = Metrics{
      .parked_entries = set.AddGauge(
          "parked_entries",
          "Entries waiting for their table to be created or given families."),
      .entries_resent = set.AddCounter(
          "entries_resent", "Entries sent again after a transient refusal."),
      .mutate_latency = set.AddHistogram(
          "mutate_rows_latency_seconds",
          "Seconds from sending a MutateRows request to its end, per attempt.",
          {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
           30, 60}),
  };
  // No capacity bound: both evictions are idle ones.
  std::shared_ptr<Counter> evicted = set.AddCounter(
      "batchers_evicted",
      "Table batchers released after destination-idle-timeout unused.");
  batchers_.SetMetrics(std::make_shared<DestinationMetrics>(DestinationMetrics{
      .active = set.AddGauge("batchers_active", "Tables with a batcher."),
      .created = set.AddCounter("batchers_created", "Table batchers opened."),
      .evicted_idle = evicted,
      .evicted_capacity = evicted,
  }));
  stub_ = MakeBigtableStub(
      channel_, channel_, options_.make_stub,
      connector::LoggedAndTimed(options_.name,
                                {{"MutateRows", metrics_.mutate_latency}}));
  ensurer_.emplace(
      options_, clock_, *stub_, *timer_, completions_,
      TableEnsurer::Counters{
          .tables_created =
              set.AddCounter("tables_created", "Tables this sink created."),
          .families_added = set.AddCounter(
              "column_families_added",
              "Declared column families this sink added to existing tables."),
      },
      TableEnsurer::Callbacks{
          // A failed writer acts on no answer.
          .find = [this](const TableDestination& table) -> TableBatcher* {
            return core_.failed() ? nullptr : batchers_.Find(table);
          },
          .on_ready = [this](TableBatcher& batcher) { OnTableReady(batcher); },
          .on_failed =
              [this](const absl::Status& status) { core_.Fail(status); },
          .on_answer = [this] { in_flight_->OnProgress(); }});
  return set.status();
}

absl::Status BigtableWriteEngine::Write(RowMutationEntry entry,
                                        const TableDestination& table,
                                        const WriterContext& context) {
  if (core_.failed()) return core_.failure();
  MutateRowsRequest::Entry& proto = entry.mutable_entry();
  std::optional<int64_t> now_micros;
  absl::StatusOr<CheckedEntry> checked = PrepareEntry(proto, [&] {
    if (!now_micros.has_value()) {
      // Bigtable keeps milliseconds.
      now_micros = absl::ToUnixMillis(clock_.Now()) * 1000;
    }
    return *now_micros;
  });
  if (!checked.ok()) {
    BigtableFailedElement failed;
    failed.destination = table.ResourceName();
    failed.status = absl::InvalidArgumentError(absl::StrCat(
        "record #", context.record_position, ", row ",
        Printable(proto.row_key()), ": ", checked.status().message()));
    failed.payload = EntryJson(proto);
    failed.entry = std::move(proto);
    core_.Route(failed);
    return core_.failure();
  }
  if (absl::Status room =
          in_flight_->WaitForRoom(checked->bytes, [this] { SendAllOpen(); });
      !room.ok()) {
    return room;
  }
  TableBatcher* batcher = last_batcher_;
  if (batcher == nullptr || !(batcher->table() == table)) {
    last_batcher_ = nullptr;  // Acquiring may release it.
    absl::StatusOr<TableBatcher*> acquired = AcquireBatcher(table);
    if (!acquired.ok()) return core_.Fail(acquired.status());
    batcher = last_batcher_ = *acquired;
  }
  const int64_t mutations = proto.mutations_size();
  if (batcher->WouldOverflow(checked->bytes, mutations)) SendOpen(*batcher);
  if (!batcher->has_open()) {
    // Records reaching the batcher through last_batcher_ skip Acquire():
    // its use is recorded once per batch instead, for the idle sweep.
    batchers_.MarkUsed(table, clock_.Now());
  }
  in_flight_->Add(1, checked->bytes);
  if (batcher->Add(
          std::move(proto),
          EntryInfo{.bytes = checked->bytes, .idempotent = checked->idempotent},
          mutations)) {
    SendOpen(*batcher);
  }
  return core_.failure();
}

absl::StatusOr<TableBatcher*> BigtableWriteEngine::AcquireBatcher(
    const TableDestination& table) {
  absl::StatusOr<DestinationStates<TableDestination, TableBatcher>::Acquired>
      acquired = batchers_.Acquire(table, clock_.Now());
  if (!acquired.ok()) return acquired.status();
  TableBatcher* batcher = acquired->state;
  if (batcher->state() == TableState::kEnsuring) ensurer_->Start(*batcher);
  return batcher;
}

void BigtableWriteEngine::SendAllOpen() {
  batchers_.ForEach([this](const TableDestination&, TableBatcher& batcher) {
    SendOpen(batcher);
  });
}

void BigtableWriteEngine::SendOpen(TableBatcher& batcher) {
  if (!batcher.has_open() || core_.failed()) return;
  Send(batcher, batcher.TakeOpen());
}

void BigtableWriteEngine::Send(TableBatcher& batcher, EntryBatch batch) {
  auto call = std::make_unique<Call>();
  call->id = next_call_id_++;
  call->table = batcher.table();
  call->batch = std::move(batch);
  Call& started = *call;
  calls_.emplace(started.id, std::move(call));
  batcher.CallStarted();
  if (batcher.state() == TableState::kEnsuring) {
    Park(started);
    return;
  }
  if (!CheckFamilies(started, batcher)) return;
  StartAttempt(started, batcher);
}

bool BigtableWriteEngine::CheckFamilies(const Call& call,
                                        const TableBatcher& batcher) {
  if (!batcher.families_known()) return true;
  const absl::flat_hash_set<std::string>& families = batcher.families();
  for (const MutateRowsRequest::Entry& entry : call.batch.request.entries()) {
    absl::string_view missing;
    ForEachFamily(entry, [&](absl::string_view family) {
      if (missing.empty() && !families.contains(family)) missing = family;
    });
    if (missing.empty()) continue;
    core_.Fail(absl::FailedPreconditionError(absl::StrCat(
        options_.name, ": row ", Printable(entry.row_key()), " names family '",
        missing, "', which table ", batcher.table_name(),
        " does not have and option '", kColumnFamiliesKey,
        "' does not declare; declare it there (the sink adds declared "
        "families to existing tables) or fix the serializer")));
    return false;
  }
  return true;
}

void BigtableWriteEngine::StartAttempt(Call& call, TableBatcher& batcher) {
  call.context = std::make_unique<grpc::ClientContext>();
  call.context->set_deadline(absl::ToChronoTime(absl::Now() + kAttemptTimeout));
  const absl::Time now = clock_.Now();
  int64_t resent = 0;
  for (EntryInfo& info : call.batch.infos) {
    if (info.attempts++ == 0) {
      info.first_sent = now;
    } else {
      ++resent;
    }
  }
  if (resent > 0) {
    core_.metrics().request_retries->Increment();
    metrics_.entries_resent->Increment(resent);
  }
  call.outcomes.emplace(call.batch.infos.size());
  core_.metrics().requests->Increment();
  connector::EntryOutcomes* outcomes = &*call.outcomes;
  stub_->AsyncMutateRows(
      *call.context, call.batch.request,
      [outcomes](MutateRowsResponse&& response) {
        for (const MutateRowsResponse::Entry& entry : response.entries()) {
          // Indexes the service never sends (out of range, repeated) are
          // ignored: such an entry stays undecided and is sent again.
          outcomes->Report(
              entry.index(),
              absl::Status(static_cast<absl::StatusCode>(entry.status().code()),
                           entry.status().message()));
        }
      },
      completions_.Wrap(
          [this, id = call.id](const absl::Status& status) {
            OnMutateDone(id, status);
          },
          batcher.tracker()));
}

void BigtableWriteEngine::OnMutateDone(uint64_t id,
                                       const absl::Status& status) {
  auto it = calls_.find(id);
  if (it == calls_.end() || core_.failed()) return;
  Call& call = *it->second;
  in_flight_->OnProgress();
  TableBatcher* batcher = batchers_.Find(call.table);
  if (batcher == nullptr) {
    // Unreachable: a batcher with calls is never clean, so never released.
    core_.Fail(absl::InternalError(absl::StrCat(
        options_.name, ": lost the batcher of ", call.table.ResourceName())));
    return;
  }
  if (!status.ok()) core_.CountError(status);
  if (status.code() == absl::StatusCode::kNotFound) {
    if (options_.create_disposition == CreateDisposition::kCreateNever) {
      core_.Fail(absl::NotFoundError(absl::StrCat(
          options_.name, ": table ", batcher->table_name(),
          " does not exist and option '", kCreateDispositionOption.key(),
          "' is '",
          kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
          "'; create the table, or set it to '",
          kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
          "' with option '", kColumnFamiliesKey,
          "'. The service said: ", status.message())));
      return;
    }
    // A missing table applied nothing: the whole call waits for it.
    Park(call);
    ensurer_->Start(*batcher);
    return;
  }
  const connector::EntryOutcomes& outcomes = *call.outcomes;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes.reported(i) && !outcomes.status(i).ok()) {
      core_.CountError(outcomes.status(i));
    }
  }
  connector::EntryOutcomes::Sorted sorted =
      outcomes.Sort(kBigtableClassification, status);
  int64_t resolved = 0;
  int64_t resolved_bytes = 0;
  for (size_t index : sorted.written) {
    resolved_bytes += call.batch.infos[index].bytes;
  }
  if (!sorted.written.empty()) {
    core_.rejection().OnSuccess();
    core_.metrics().records_written->Increment(
        static_cast<int64_t>(sorted.written.size()));
    core_.metrics().bytes_written->Increment(resolved_bytes);
    resolved += static_cast<int64_t>(sorted.written.size());
  }
  if (sorted.fatal_entry.has_value()) {
    core_.Fail(FatalEntry(call, sorted.fatal_entry->first,
                          sorted.fatal_entry->second));
    return;
  }
  for (const auto& [index, refusal] : sorted.routed) {
    // The entry's status is the service's verdict on it alone: it needs no
    // resend to confirm it, only the guard against systematic refusals.
    RejectionConfirmation::Verdict verdict =
        core_.rejection().OnSingleResult(refusal);
    if (verdict.kind != ConfirmationVerdict::kRouted) {
      core_.Fail(verdict.kind == ConfirmationVerdict::kFatal
                     ? verdict.status
                     : FatalEntry(call, index, refusal));
      return;
    }
    Route(call, index, refusal);
    if (core_.failed()) return;
    ++resolved;
    resolved_bytes += call.batch.infos[index].bytes;
  }
  Release(resolved, resolved_bytes);
  if (!sorted.fatal_request.ok()) {
    core_.Fail(absl::Status(
        sorted.fatal_request.code(),
        absl::StrCat(options_.name, ": MutateRows of ", outcomes.size(),
                     " entries to ", batcher->table_name(),
                     " failed: ", sorted.fatal_request.message())));
    return;
  }
  if (sorted.retry.empty()) {
    Finish(it, *batcher);
    return;
  }
  ResendLater(it, *batcher, sorted.retry, sorted.retry_status);
}

void BigtableWriteEngine::ResendLater(Calls::iterator it, TableBatcher& batcher,
                                      const std::vector<size_t>& indexes,
                                      const absl::Status& why) {
  Call& call = *it->second;
  const connector::EntryOutcomes& outcomes = *call.outcomes;
  int64_t ambiguous = 0;
  absl::Status ambiguous_status;
  int most_attempts = 0;
  for (size_t index : indexes) {
    const absl::Status& status =
        outcomes.reported(index) ? outcomes.status(index) : why;
    const EntryInfo& info = call.batch.infos[index];
    most_attempts = std::max(most_attempts, info.attempts);
    if (!info.idempotent && connector::MayHaveBeenApplied(status)) {
      ++ambiguous;
      ambiguous_status = status;
    }
  }
  if (ambiguous > 0) {
    core_.Fail(connector::Reworded(
        ambiguous_status,
        absl::StrCat(
            options_.name, ": ", ambiguous, " entries to ",
            batcher.table_name(),
            " set cells with the server's timestamp and may or may not have "
            "been applied (",
            ambiguous_status.message(),
            "); they are not resent, since every resend would add another "
            "cell version. Use explicit or writer-clock timestamps "
            "(docs/bigtable.md, \"Idempotence\")")));
    return;
  }
  if (most_attempts >= options_.retry.max_attempts) {
    core_.Fail(MarkRetryExhausted(absl::Status(
        why.code(),
        absl::StrCat(
            options_.name, ": writing ", indexes.size(), " entries to ",
            batcher.table_name(), " failed after ", most_attempts,
            " attempts (option 'retry-max-attempts'): ", why.message()))));
    return;
  }
  // An entry refused once goes with the table's next batch (a few refused
  // entries per batch then cost no request of their own); later resends
  // wait out their backoff. Either way the timer bounds the wait.
  auto& entries = *call.batch.request.mutable_entries();
  for (size_t index : indexes) {
    MutateRowsRequest::Entry& entry = entries[static_cast<int>(index)];
    const EntryInfo& info = call.batch.infos[index];
    if (info.attempts > 1) {
      batcher.AddRetry(std::move(entry), info);
      continue;
    }
    const int64_t mutations = entry.mutations_size();
    if (batcher.WouldOverflow(info.bytes, mutations)) SendOpen(batcher);
    const bool full = batcher.Add(std::move(entry), info, mutations);
    batcher.MarkOpenHasResends();
    if (full) SendOpen(batcher);
  }
  Finish(it, batcher);
  if ((batcher.has_retries() || batcher.open_has_resends()) &&
      batcher.retry_timer == 0) {
    batcher.retry_timer = timer_->Schedule(
        batcher.RetryDelay(most_attempts),
        [this, table = batcher.table()] { OnRetriesDue(table); });
  }
}

void BigtableWriteEngine::OnRetriesDue(const TableDestination& table) {
  TableBatcher* batcher = batchers_.Find(table);
  if (batcher == nullptr || core_.failed()) return;
  batcher->retry_timer = 0;
  if (batcher->open_has_resends()) SendOpen(*batcher);
  const absl::Time now = clock_.Now();
  for (EntryBatch& batch : batcher->TakeRetries()) {
    for (const EntryInfo& info : batch.infos) {
      if (now < info.first_sent + options_.retry.total_timeout) continue;
      core_.Fail(MarkRetryExhausted(absl::UnavailableError(absl::StrCat(
          options_.name, ": entries to ", batcher->table_name(),
          " were still undecided ", absl::FormatDuration(now - info.first_sent),
          " after their first send (option 'retry-total-timeout')"))));
      return;
    }
    Send(*batcher, std::move(batch));
  }
}

void BigtableWriteEngine::Park(Call& call) {
  call.parked = true;
  parked_entries_ += call.batch.size();
  metrics_.parked_entries->Set(parked_entries_);
}

void BigtableWriteEngine::OnTableReady(TableBatcher& batcher) {
  // In id order, which is send order.
  for (auto& [id, call] : calls_) {
    if (!call->parked || !(call->table == batcher.table())) continue;
    call->parked = false;
    parked_entries_ -= call->batch.size();
    if (!CheckFamilies(*call, batcher)) break;
    StartAttempt(*call, batcher);
  }
  metrics_.parked_entries->Set(parked_entries_);
}

void BigtableWriteEngine::Finish(Calls::iterator it, TableBatcher& batcher) {
  calls_.erase(it);
  batcher.CallEnded();
}

absl::Status BigtableWriteEngine::FatalEntry(const Call& call, size_t index,
                                             const absl::Status& status) const {
  const MutateRowsRequest::Entry& entry =
      call.batch.request.entries(static_cast<int>(index));
  std::string hint;
  if (status.code() == absl::StatusCode::kNotFound ||
      status.code() == absl::StatusCode::kInternal) {
    // The emulator answers an unknown family with INTERNAL.
    hint = absl::StrCat(
        " (a family the table lacks? Create it, or use option '",
        kCreateDispositionOption.key(), "' with '", kColumnFamiliesKey, "')");
  }
  return absl::Status(
      status.code(),
      absl::StrCat(options_.name, ": table ", call.table.ResourceName(),
                   " refused the entry for row ", Printable(entry.row_key()),
                   " (families: ", FamiliesOf(entry), "): ", status.message(),
                   hint));
}

void BigtableWriteEngine::Route(const Call& call, size_t index,
                                const absl::Status& status) {
  const MutateRowsRequest::Entry& entry =
      call.batch.request.entries(static_cast<int>(index));
  BigtableFailedElement failed;
  failed.destination = call.table.ResourceName();
  failed.status = status;
  failed.attempts = call.batch.infos[index].attempts;
  failed.payload = EntryJson(entry);
  failed.entry = entry;
  core_.Route(failed);
}

void BigtableWriteEngine::Release(int64_t entries, int64_t bytes) {
  if (entries > 0) in_flight_->Release(entries, bytes);
}

absl::Status BigtableWriteEngine::Flush(bool end_of_input) {
  const absl::Time started = clock_.Now();
  if (core_.failed()) return core_.failure();
  SendAllOpen();
  if (absl::Status drained =
          in_flight_->WaitUntil([this] { return in_flight_->empty(); },
                                "every entry to be written (Flush)");
      !drained.ok()) {
    return drained;
  }
  if (!end_of_input) {
    last_batcher_ = nullptr;  // The sweep may release it.
    if (absl::Status swept = batchers_.SweepIdle(clock_.Now()); !swept.ok()) {
      return core_.Fail(swept);
    }
  }
  return core_.FinishFlush(started);
}

absl::Status BigtableWriteEngine::OnInputIdle() {
  if (core_.failed()) return core_.failure();
  SendAllOpen();
  return core_.failure();
}

void BigtableWriteEngine::Close() {
  if (closed_) return;
  closed_ = true;
  timer_->CancelAll();
  for (auto& [id, call] : calls_) {
    if (call->context != nullptr) call->context->TryCancel();
  }
  if (ensurer_.has_value()) ensurer_->CancelAll();
  completions_.Close();
  calls_.clear();
  last_batcher_ = nullptr;
  (void)batchers_.ReleaseAll();
  core_.Close();
}

}  // namespace gcpstream::bigtable

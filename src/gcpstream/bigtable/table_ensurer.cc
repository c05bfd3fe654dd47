#include "gcpstream/bigtable/table_ensurer.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/bigtable/bigtable_classification.h"
#include "spdlog/spdlog.h"

namespace gcpstream::bigtable {

namespace admin = ::google::bigtable::admin::v2;

// The deadline of one admin call.
constexpr absl::Duration kAdminAttemptTimeout = absl::Seconds(60);

// What gRPC uses until the callback ran; the callback keeps it alive.
struct TableEnsurer::Attempt {
  grpc::ClientContext context;
  admin::GetTableRequest get;
  admin::CreateTableRequest create;
  admin::ModifyColumnFamiliesRequest modify;
  admin::Table response;
  // The families a kAddFamilies step adds.
  std::vector<std::string> adding;
};

TableEnsurer::TableEnsurer(const BigtableSinkOptions& options,
                           const Clock& clock, BigtableStub& stub,
                           connector::TaskTimer& timer,
                           connector::Completions& completions,
                           Counters counters, Callbacks callbacks)
    : options_(options),
      clock_(clock),
      stub_(stub),
      timer_(timer),
      completions_(completions),
      counters_(std::move(counters)),
      callbacks_(std::move(callbacks)) {}

void TableEnsurer::Start(TableBatcher& batcher) {
  batcher.set_state(TableState::kEnsuring);
  Ensuring& ensuring = ensurings_[batcher.table_name()];
  if (ensuring.retry.has_value()) return;  // Already under way.
  // Cannot fail: the recovery options were checked with the sink's.
  ensuring.retry.emplace(*connector::Retry::Create(
      options_.recovery, clock_, connector::Idempotency::kIdempotent));
  ensuring.step = Step::kGet;
  StartStep(batcher, ensuring);
}

void TableEnsurer::StartStep(TableBatcher& batcher, Ensuring& ensuring) {
  auto attempt = std::make_shared<Attempt>();
  attempt->context.set_deadline(absl::ToChronoTime(
      ensuring.retry->AttemptDeadline(kAdminAttemptTimeout)));
  ensuring.context =
      std::shared_ptr<grpc::ClientContext>(attempt, &attempt->context);
  auto done = completions_.Wrap(
      [this, attempt, table = batcher.table()](const absl::Status& status) {
        OnDone(table, attempt, status);
      },
      batcher.tracker());
  const TableCreateOptions& create = options_.table_create_options;
  switch (ensuring.step) {
    case Step::kGet:
      attempt->get.set_name(batcher.table_name());
      attempt->get.set_view(admin::Table::SCHEMA_VIEW);
      stub_.AsyncGetTable(attempt->context, attempt->get, attempt->response,
                          std::move(done));
      return;
    case Step::kCreate: {
      attempt->create.set_parent(batcher.table().InstanceName());
      attempt->create.set_table_id(batcher.table().table);
      auto& families =
          *attempt->create.mutable_table()->mutable_column_families();
      for (const std::string& family : create.column_families) {
        admin::ColumnFamily& created = families[family];
        if (auto rule = create.GcRuleFor(family); rule.has_value()) {
          *created.mutable_gc_rule() = *std::move(rule);
        }
      }
      stub_.AsyncCreateTable(attempt->context, attempt->create,
                             attempt->response, std::move(done));
      return;
    }
    case Step::kAddFamilies: {
      attempt->modify.set_name(batcher.table_name());
      for (const std::string& family : create.column_families) {
        if (batcher.families().contains(family)) continue;
        attempt->adding.push_back(family);
        auto& modification = *attempt->modify.add_modifications();
        modification.set_id(family);
        admin::ColumnFamily& added = *modification.mutable_create();
        if (auto rule = create.GcRuleFor(family); rule.has_value()) {
          *added.mutable_gc_rule() = *std::move(rule);
        }
      }
      stub_.AsyncModifyColumnFamilies(attempt->context, attempt->modify,
                                      attempt->response, std::move(done));
      return;
    }
  }
}

void TableEnsurer::OnDone(const TableDestination& table,
                          const std::shared_ptr<Attempt>& attempt,
                          const absl::Status& status) {
  auto it = ensurings_.find(table.ResourceName());
  TableBatcher* batcher = callbacks_.find(table);
  if (it == ensurings_.end() || batcher == nullptr) return;
  Ensuring& ensuring = it->second;
  ensuring.context.reset();
  callbacks_.on_answer();
  if (status.ok()) {
    switch (ensuring.step) {
      case Step::kGet:
        break;
      case Step::kCreate:
        counters_.tables_created->Increment();
        spdlog::info(
            "{}: created table {} with families {}", options_.name,
            batcher->table_name(),
            absl::StrJoin(options_.table_create_options.column_families, ", "));
        break;
      case Step::kAddFamilies:
        counters_.families_added->Increment(
            static_cast<int64_t>(attempt->adding.size()));
        spdlog::info("{}: added families {} to table {}", options_.name,
                     absl::StrJoin(attempt->adding, ", "),
                     batcher->table_name());
        break;
    }
    OnTable(*batcher, ensuring, attempt->response);
    return;
  }
  if (ensuring.step == Step::kGet &&
      status.code() == absl::StatusCode::kNotFound) {
    ensuring.step = Step::kCreate;
    StartStep(*batcher, ensuring);
    return;
  }
  if (ensuring.step != Step::kGet &&
      status.code() == absl::StatusCode::kAlreadyExists) {
    // Another writer created the table or added the family first.
    ensuring.step = Step::kGet;
    StartStep(*batcher, ensuring);
    return;
  }
  RetryDecision decision =
      ensuring.retry->OnFailure(status, AdminStatusClass(status));
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    Fail(*batcher, decision.status);
    return;
  }
  ensuring.retry_timer = timer_.Schedule(decision.delay, [this, table] {
    auto found = ensurings_.find(table.ResourceName());
    TableBatcher* again = callbacks_.find(table);
    if (found == ensurings_.end() || again == nullptr) return;
    found->second.retry_timer = 0;
    StartStep(*again, found->second);
  });
}

void TableEnsurer::OnTable(TableBatcher& batcher, Ensuring& ensuring,
                           const admin::Table& table) {
  absl::flat_hash_set<std::string> families;
  for (const auto& [family, unused] : table.column_families()) {
    families.insert(family);
  }
  batcher.set_families(std::move(families));
  for (const std::string& family :
       options_.table_create_options.column_families) {
    if (!batcher.families().contains(family)) {
      if (ensuring.step == Step::kAddFamilies) {
        // Added, yet not in the table the service answered with.
        Fail(batcher,
             absl::InternalError(absl::StrCat(
                 "family '", family, "' is missing right after it was added")));
        return;
      }
      ensuring.step = Step::kAddFamilies;
      StartStep(batcher, ensuring);
      return;
    }
  }
  ensurings_.erase(batcher.table_name());
  batcher.set_families_known();
  batcher.set_state(TableState::kReady);
  callbacks_.on_ready(batcher);
}

void TableEnsurer::Fail(const TableBatcher& batcher,
                        const absl::Status& status) {
  const char* what = "reading";
  if (auto it = ensurings_.find(batcher.table_name()); it != ensurings_.end()) {
    what = it->second.step == Step::kCreate        ? "creating"
           : it->second.step == Step::kAddFamilies ? "adding families to"
                                                   : "reading";
  }
  callbacks_.on_failed(connector::Reworded(
      status, absl::StrCat(
                  options_.name, ": ", what, " table ", batcher.table_name(),
                  " failed (option '", kCreateDispositionOption.key(), "' is '",
                  kCreateDispositionOption.Name(options_.create_disposition),
                  "'): ", status.message(),
                  ". Create the table with its families, or grant the "
                  "sink's account bigtable.tables.get, .create and .update")));
}

void TableEnsurer::CancelAll() {
  for (auto& [name, ensuring] : ensurings_) {
    if (ensuring.context != nullptr) ensuring.context->TryCancel();
    if (ensuring.retry_timer != 0) timer_.Cancel(ensuring.retry_timer);
  }
  ensurings_.clear();
}

}  // namespace gcpstream::bigtable

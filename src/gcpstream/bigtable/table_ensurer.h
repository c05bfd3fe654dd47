#ifndef GCPSTREAM_BIGTABLE_TABLE_ENSURER_H_
#define GCPSTREAM_BIGTABLE_TABLE_ENSURER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/client_context.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/bigtable/bigtable_sink_options.h"
#include "gcpstream/bigtable/bigtable_stub.h"
#include "gcpstream/bigtable/table_batcher.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/connector/task_timer.h"

namespace gcpstream::bigtable {

// Makes a table ready for writing under create-disposition
// create-if-needed: reads its families (GetTable); creates it with the
// declared families and GC rules when it is missing; adds the declared
// families it lacks. Idempotent across writers: ALREADY_EXISTS (another
// writer was first) reads the table again. Transient failures are retried
// on the recovery budget; anything else fails the writer. Task thread only.
class TableEnsurer {
 public:
  struct Callbacks {
    // The batcher of a table, or null once released.
    std::function<TableBatcher*(const TableDestination&)> find;
    // The table has every declared family; its families are set.
    std::function<void(TableBatcher&)> on_ready;
    // Ensuring failed for good: the writer fails with this status.
    std::function<void(const absl::Status&)> on_failed;
    // An answer arrived (for the writer's progress timeout).
    std::function<void()> on_answer;
  };
  struct Counters {
    std::shared_ptr<Counter> tables_created;
    std::shared_ptr<Counter> families_added;
  };

  // Every reference must outlive the ensurer.
  TableEnsurer(const BigtableSinkOptions& options, const Clock& clock,
               BigtableStub& stub, connector::TaskTimer& timer,
               connector::Completions& completions, Counters counters,
               Callbacks callbacks);

  // Starts making the batcher's table ready (its state becomes kEnsuring).
  void Start(TableBatcher& batcher);
  // Cancels what is in progress; the callbacks are the Completions'.
  void CancelAll();

 private:
  enum class Step { kGet, kCreate, kAddFamilies };
  // One table's ensuring through its steps and attempts.
  struct Ensuring {
    std::optional<connector::Retry> retry;
    Step step = Step::kGet;
    std::shared_ptr<grpc::ClientContext> context;
    connector::TaskTimer::Id retry_timer = 0;
  };
  struct Attempt;

  void StartStep(TableBatcher& batcher, Ensuring& ensuring);
  void OnDone(const TableDestination& table, const std::shared_ptr<Attempt>&,
              const absl::Status& status);
  // After a table was read or created: adds missing families, or is done.
  void OnTable(TableBatcher& batcher, Ensuring& ensuring,
               const google::bigtable::admin::v2::Table& table);
  void Fail(const TableBatcher& batcher, const absl::Status& status);

  const BigtableSinkOptions& options_;
  const Clock& clock_;
  BigtableStub& stub_;
  connector::TaskTimer& timer_;
  connector::Completions& completions_;
  Counters counters_;
  Callbacks callbacks_;
  // By table name.
  absl::flat_hash_map<std::string, Ensuring> ensurings_;
};

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_TABLE_ENSURER_H_

#ifndef GCPSTREAM_SPANNER_SPANNER_CONNECTION_H_
#define GCPSTREAM_SPANNER_SPANNER_CONNECTION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/connector/callback_tracker.h"
#include "gcpstream/connector/rpc_observer.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_sink_options.h"
#include "gcpstream/spanner/spanner_stub.h"
#include "google/spanner/v1/spanner.grpc.pb.h"

namespace gcpstream::spanner {

// A writer's link to its database: the stubs, one session, and RPCs the
// task thread waits for while serving its mailbox (gRPC completions only
// post a mail; nothing blocks a completion). Task thread only.
//
// Sessions: one per writer, created on Open(), recreated when the service
// reports it missing ("Session not found", e.g. after a week idle), deleted
// on Close(). The writer has at most one request in flight, so one session
// is all it needs. (The emulator accepts a multiplexed-session request but
// returns an ordinary session; gcpstream asks for an ordinary one.)
class SpannerConnection {
 public:
  // `observers` see every call (logging, latency).
  static absl::StatusOr<std::unique_ptr<SpannerConnection>> Open(
      const SpannerSinkOptions& options, runtime::MailboxExecutor executor,
      connector::RpcObservers observers = {});

  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  SpannerConnection(ConstructorKey, SpannerSinkOptions options,
                    runtime::MailboxExecutor executor,
                    std::shared_ptr<SpannerStub> stub);
  ~SpannerConnection();
  SpannerConnection(const SpannerConnection&) = delete;
  SpannerConnection& operator=(const SpannerConnection&) = delete;

  // The database's dialect and tables (GetDatabase, then two
  // INFORMATION_SCHEMA queries).
  absl::StatusOr<SchemaCatalog> LoadSchema();

  struct BatchWriteResult {
    absl::Status status;  // The stream's final status.
    std::vector<google::spanner::v1::BatchWriteResponse> responses;
  };
  // Sends `request` (filling in its session) and consumes the whole
  // response stream. The request is borrowed, not copied: the caller moves
  // its mutations in and takes them back afterwards.
  BatchWriteResult BatchWrite(google::spanner::v1::BatchWriteRequest& request);
  absl::Status Commit(google::spanner::v1::CommitRequest& request);

  // Deletes the session (best effort) and waits until gRPC let go of every
  // call.
  void Close();

  int64_t sessions_created() const { return sessions_created_; }

 private:
  absl::Status CreateSession();
  // The rows of a read-only query, cells as the wire gives them.
  absl::StatusOr<std::vector<google::protobuf::ListValue>> Query(
      const std::string& sql);
  absl::StatusOr<Dialect> DialectOf(
      const google::spanner::admin::database::v1::Database& database);
  // Runs `attempt` once, and once more on a new session when the first
  // answer was "Session not found".
  template <typename Attempt>
  auto WithSession(Attempt attempt) -> decltype(attempt());
  // Starts a call through `start(context, done)` and serves the mailbox
  // until `done` was called.
  template <typename Start>
  absl::Status Await(Start start);

  const SpannerSinkOptions options_;
  runtime::MailboxExecutor executor_;
  std::shared_ptr<SpannerStub> stub_;
  std::shared_ptr<connector::CallbackTracker> tracker_;
  std::string session_;
  int64_t sessions_created_ = 0;
  bool closed_ = false;
};

// Whether `status` says the session is gone (NOT_FOUND "Session not found").
bool IsSessionNotFound(const absl::Status& status);

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_CONNECTION_H_

#include "gcpstream/spanner/spanner_connection.h"

#include <optional>
#include <utility>

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/connector/grpc_status.h"
#include "gcpstream/connector/request_metadata.h"
#include "spdlog/spdlog.h"

namespace gcpstream::spanner {
namespace {

using ::gcpstream::connector::FromGrpc;

using ::google::spanner::v1::BatchWriteRequest;
using ::google::spanner::v1::BatchWriteResponse;
using ::google::spanner::v1::CommitRequest;

// What one awaited call shares with its gRPC callback.
struct Pending {
  grpc::ClientContext context;
  std::optional<absl::Status> result;
};

}  // namespace

bool IsSessionNotFound(const absl::Status& status) {
  return status.code() == absl::StatusCode::kNotFound &&
         absl::StrContains(status.message(), "Session not found");
}

// Reads a BatchWrite stream to its end on gRPC's threads; the task thread
// reads `responses` only after the completion mail, which orders it after
// every OnReadDone.
class SpannerConnection::BatchWriteReactor final
    : public grpc::ClientReadReactor<BatchWriteResponse> {
 public:
  // `request` must outlive the call.
  BatchWriteReactor(const BatchWriteRequest& request,
                    std::function<void(const grpc::Status&)> done)
      : request_(&request), done_(std::move(done)) {}

  void Start(google::spanner::v1::Spanner::Stub& stub, absl::Time deadline) {
    context_.set_deadline(absl::ToChronoTime(deadline));
    stub.async()->BatchWrite(&context_, request_, this);
    StartRead(&current_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    responses_.push_back(std::move(current_));
    current_.Clear();
    StartRead(&current_);
  }
  void OnDone(const grpc::Status& status) override { done_(status); }

  grpc::ClientContext& context() { return context_; }
  std::vector<BatchWriteResponse>& responses() { return responses_; }

 private:
  grpc::ClientContext context_;
  const BatchWriteRequest* request_;
  BatchWriteResponse current_;
  std::vector<BatchWriteResponse> responses_;
  std::function<void(const grpc::Status&)> done_;
};

absl::StatusOr<std::unique_ptr<SpannerConnection>> SpannerConnection::Open(
    const SpannerSinkOptions& options, runtime::MailboxExecutor executor) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kSpanner, options.channel);
  if (!channel.ok()) return channel.status();
  auto connection = std::make_unique<SpannerConnection>(
      ConstructorKey(), options, executor, *std::move(channel));
  if (absl::Status created = connection->CreateSession(); !created.ok()) {
    return created;
  }
  return connection;
}

SpannerConnection::SpannerConnection(ConstructorKey, SpannerSinkOptions options,
                                     runtime::MailboxExecutor executor,
                                     std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      executor_(executor),
      channel_(std::move(channel)),
      stub_(google::spanner::v1::Spanner::NewStub(channel_)),
      admin_(google::spanner::admin::database::v1::DatabaseAdmin::NewStub(
          channel_)),
      tracker_(std::make_shared<connector::CallbackTracker>()) {}

SpannerConnection::~SpannerConnection() { Close(); }

void SpannerConnection::Route(grpc::ClientContext& context,
                              const Routing& routing) const {
  connector::AddRoutingParam(context, routing.field, routing.value);
  connector::AddResourcePrefix(context, options_.database.ResourceName());
  if (routing.to_leader) connector::AddRouteToLeader(context);
}

template <typename Start>
absl::Status SpannerConnection::Await(const Routing& routing, Start start) {
  auto pending = std::make_shared<Pending>();
  pending->context.set_deadline(
      absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  Route(pending->context, routing);
  tracker_->Begin();
  start(&pending->context, [pending, executor = executor_, tracker = tracker_](
                               const grpc::Status& status) mutable {
    executor.Post(
        [pending, result = FromGrpc(status)] { pending->result = result; });
    tracker->End();
  });
  if (executor_.YieldUntil([&] { return pending->result.has_value(); })) {
    return *pending->result;
  }
  pending->context.TryCancel();
  tracker_->WaitForNone();
  return absl::CancelledError(
      "spanner: stopped waiting for a request because the job was cancelled");
}

absl::Status SpannerConnection::CreateSession() {
  google::spanner::v1::CreateSessionRequest request;
  request.set_database(options_.database.ResourceName());
  request.mutable_session()->mutable_labels()->insert(
      {"gcpstream-sink", "true"});
  google::spanner::v1::Session session;
  absl::Status status =
      Await({"database", request.database()},
            [&](grpc::ClientContext* context, auto done) {
              stub_->async()->CreateSession(context, &request, &session,
                                            std::move(done));
            });
  if (!status.ok()) {
    return absl::Status(
        status.code(),
        absl::StrCat(options_.name, ": cannot open a session on ",
                     options_.database.ResourceName(), ": ", status.message()));
  }
  session_ = session.name();
  ++sessions_created_;
  return absl::OkStatus();
}

template <typename Attempt>
auto SpannerConnection::WithSession(Attempt attempt) -> decltype(attempt()) {
  auto result = attempt();
  const absl::Status& status = [&]() -> const absl::Status& {
    if constexpr (std::is_same_v<decltype(result), absl::Status>) {
      return result;
    } else {
      return result.status;
    }
  }();
  if (!IsSessionNotFound(status)) return result;
  spdlog::warn("{}: session {} is gone ({}); opening a new one", options_.name,
               session_, std::string(status.message()));
  if (absl::Status created = CreateSession(); !created.ok()) {
    if constexpr (std::is_same_v<decltype(result), absl::Status>) {
      return created;
    } else {
      return BatchWriteResult{created, {}};
    }
  }
  return attempt();
}

absl::StatusOr<std::vector<google::protobuf::ListValue>>
SpannerConnection::Query(const std::string& sql) {
  google::spanner::v1::ResultSet result;
  absl::Status status = WithSession([&] {
    google::spanner::v1::ExecuteSqlRequest query;
    query.set_session(session_);
    query.set_sql(sql);
    result.Clear();
    return Await(
        {"session", session_}, [&](grpc::ClientContext* context, auto done) {
          stub_->async()->ExecuteSql(context, &query, &result, std::move(done));
        });
  });
  if (!status.ok()) {
    return absl::Status(
        status.code(),
        absl::StrCat(options_.name, ": cannot read INFORMATION_SCHEMA of ",
                     options_.database.ResourceName(), ": ", status.message()));
  }
  return std::vector<google::protobuf::ListValue>(result.rows().begin(),
                                                  result.rows().end());
}

absl::StatusOr<Dialect> SpannerConnection::DialectOf(
    const google::spanner::admin::database::v1::Database& database) {
  namespace admin = google::spanner::admin::database::v1;
  switch (database.database_dialect()) {
    case admin::DatabaseDialect::POSTGRESQL:
      return Dialect::kPostgreSql;
    case admin::DatabaseDialect::GOOGLE_STANDARD_SQL:
      return Dialect::kGoogleSql;
    default:
      break;
  }
  // Unset (the emulator leaves it so): only a PostgreSQL database has a
  // "public" schema, and this query reads the same in both dialects.
  absl::StatusOr<std::vector<google::protobuf::ListValue>> rows = Query(
      "SELECT schema_name FROM information_schema.schemata WHERE "
      "schema_name = 'public'");
  if (!rows.ok()) return rows.status();
  return rows->empty() ? Dialect::kGoogleSql : Dialect::kPostgreSql;
}

absl::StatusOr<SchemaCatalog> SpannerConnection::LoadSchema() {
  google::spanner::admin::database::v1::GetDatabaseRequest get;
  get.set_name(options_.database.ResourceName());
  google::spanner::admin::database::v1::Database database;
  absl::Status got =
      Await({"name", get.name()}, [&](grpc::ClientContext* context, auto done) {
        admin_->async()->GetDatabase(context, &get, &database, std::move(done));
      });
  if (!got.ok()) {
    return absl::Status(
        got.code(),
        absl::StrCat(options_.name, ": cannot read database ",
                     options_.database.ResourceName(), ": ", got.message()));
  }
  absl::StatusOr<Dialect> dialect = DialectOf(database);
  if (!dialect.ok()) return dialect.status();
  google::spanner::v1::ResultSet results[2];
  const std::string queries[2] = {SchemaCatalog::ColumnsQuery(*dialect),
                                  SchemaCatalog::IndexColumnsQuery(*dialect)};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::vector<google::protobuf::ListValue>> rows =
        Query(queries[i]);
    if (!rows.ok()) return rows.status();
    for (auto& row : *rows) *results[i].add_rows() = std::move(row);
  }
  return SchemaCatalog::FromResults(*dialect, results[0], results[1]);
}

SpannerConnection::BatchWriteResult SpannerConnection::BatchWrite(
    BatchWriteRequest& request) {
  return WithSession([&]() -> BatchWriteResult {
    request.set_session(session_);
    auto result = std::make_shared<std::optional<absl::Status>>();
    std::shared_ptr<BatchWriteReactor> reactor;
    tracker_->Begin();
    reactor = std::make_shared<BatchWriteReactor>(
        request, [result, executor = executor_,
                  tracker = tracker_](const grpc::Status& status) mutable {
          executor.Post(
              [result, outcome = FromGrpc(status)] { *result = outcome; });
          tracker->End();
        });
    Route(reactor->context(), {"session", session_, /*to_leader=*/true});
    reactor->Start(*stub_, absl::Now() + options_.rpc_timeout);
    if (!executor_.YieldUntil([&] { return result->has_value(); })) {
      reactor->context().TryCancel();
      tracker_->WaitForNone();
      return {absl::CancelledError("spanner: BatchWrite abandoned: the job "
                                   "was cancelled"),
              {}};
    }
    // The completion mail ran, so OnDone has posted; wait until it returned
    // before the reactor goes away.
    tracker_->WaitForNone();
    return {**result, std::move(reactor->responses())};
  });
}

absl::Status SpannerConnection::Commit(CommitRequest& request) {
  return WithSession([&] {
    request.set_session(session_);
    google::spanner::v1::CommitResponse response;
    return Await({"session", session_, /*to_leader=*/true},
                 [&](grpc::ClientContext* context, auto done) {
                   stub_->async()->Commit(context, &request, &response,
                                          std::move(done));
                 });
  });
}

void SpannerConnection::Close() {
  if (closed_) return;
  closed_ = true;
  if (!session_.empty()) {
    // Best effort with a short deadline: an abandoned session expires on
    // its own after an hour idle.
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    Route(context, {"name", session_});
    google::spanner::v1::DeleteSessionRequest request;
    request.set_name(session_);
    google::protobuf::Empty empty;
    grpc::Status deleted = stub_->DeleteSession(&context, request, &empty);
    if (!deleted.ok()) {
      spdlog::info("{}: could not delete session {}: {}", options_.name,
                   session_, deleted.error_message());
    }
  }
  tracker_->WaitForNone();
}

}  // namespace gcpstream::spanner

#include "gcpstream/spanner/spanner_connection.h"

#include <optional>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gcpstream/connector/grpc_status.h"
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

absl::StatusOr<std::unique_ptr<SpannerConnection>> SpannerConnection::Open(
    const SpannerSinkOptions& options, runtime::MailboxExecutor executor,
    connector::RpcObservers observers) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kSpanner, options.channel);
  if (!channel.ok()) return channel.status();
  auto connection = std::make_unique<SpannerConnection>(
      ConstructorKey(), options, executor,
      MakeSpannerStub(*std::move(channel), options.make_stub,
                      std::move(observers)));
  if (absl::Status created = connection->CreateSession(); !created.ok()) {
    return created;
  }
  return connection;
}

SpannerConnection::SpannerConnection(ConstructorKey, SpannerSinkOptions options,
                                     runtime::MailboxExecutor executor,
                                     std::shared_ptr<SpannerStub> stub)
    : options_(std::move(options)),
      executor_(executor),
      stub_(std::move(stub)),
      tracker_(std::make_shared<connector::CallbackTracker>()) {}

SpannerConnection::~SpannerConnection() { Close(); }

template <typename Start>
absl::Status SpannerConnection::Await(Start start) {
  auto pending = std::make_shared<Pending>();
  pending->context.set_deadline(
      absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
  tracker_->Begin();
  start(pending->context, [pending, executor = executor_, tracker = tracker_](
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
  absl::Status status = Await([&](grpc::ClientContext& context, auto done) {
    stub_->AsyncCreateSession(context, request, session, std::move(done));
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
    return Await([&](grpc::ClientContext& context, auto done) {
      stub_->AsyncExecuteSql(context, query, result, std::move(done));
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
  absl::Status got = Await([&](grpc::ClientContext& context, auto done) {
    stub_->AsyncGetDatabase(context, get, database, std::move(done));
  });
  if (!got.ok()) {
    return absl::Status(
        got.code(),
        absl::StrCat(options_.name, ": cannot read database ",
                     options_.database.ResourceName(), ": ", got.message()));
  }
  absl::StatusOr<Dialect> dialect = DialectOf(database);
  if (!dialect.ok()) return dialect.status();
  google::spanner::v1::ResultSet results[3];
  const std::string queries[3] = {SchemaCatalog::ColumnsQuery(*dialect),
                                  SchemaCatalog::IndexColumnsQuery(*dialect),
                                  SchemaCatalog::RelationsQuery(*dialect)};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::vector<google::protobuf::ListValue>> rows =
        Query(queries[i]);
    if (!rows.ok()) return rows.status();
    for (auto& row : *rows) *results[i].add_rows() = std::move(row);
  }
  return SchemaCatalog::FromResults(*dialect, results[0], results[1],
                                    results[2]);
}

SpannerConnection::BatchWriteResult SpannerConnection::BatchWrite(
    BatchWriteRequest& request) {
  return WithSession([&]() -> BatchWriteResult {
    request.set_session(session_);
    // Filled on gRPC's threads; read after the completion mail, which
    // orders it after every response.
    auto responses = std::make_shared<std::vector<BatchWriteResponse>>();
    absl::Status status = Await([&](grpc::ClientContext& context, auto done) {
      stub_->AsyncBatchWrite(
          context, request,
          [responses](BatchWriteResponse&& response) {
            responses->push_back(std::move(response));
          },
          std::move(done));
    });
    return {status, std::move(*responses)};
  });
}

absl::Status SpannerConnection::Commit(CommitRequest& request) {
  return WithSession([&] {
    request.set_session(session_);
    google::spanner::v1::CommitResponse response;
    return Await([&](grpc::ClientContext& context, auto done) {
      stub_->AsyncCommit(context, request, response, std::move(done));
    });
  });
}

void SpannerConnection::Close() {
  if (closed_) return;
  closed_ = true;
  if (!session_.empty()) {
    // Best effort with a short deadline: an abandoned session expires on
    // its own after an hour idle.
    // Waits without serving the mailbox: Close() may run where the task
    // no longer does (a destructor).
    struct Deletion {
      grpc::ClientContext context;
      google::spanner::v1::DeleteSessionRequest request;
      google::protobuf::Empty response;
      grpc::Status status;
      absl::Notification done;
    };
    auto deletion = std::make_shared<Deletion>();
    deletion->context.set_deadline(
        absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    deletion->request.set_name(session_);
    stub_->AsyncDeleteSession(deletion->context, deletion->request,
                              deletion->response,
                              [deletion](const grpc::Status& status) {
                                deletion->status = status;
                                deletion->done.Notify();
                              });
    deletion->done.WaitForNotification();
    if (!deletion->status.ok()) {
      spdlog::info("{}: could not delete session {}: {}", options_.name,
                   session_, deletion->status.error_message());
    }
  }
  tracker_->WaitForNone();
}

}  // namespace gcpstream::spanner

#include "gcpstream/emulators/spanner_query.h"

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "google/spanner/v1/spanner.grpc.pb.h"

namespace gcpstream::emulators {
namespace {

absl::Status Failed(const char* call, const grpc::Status& status) {
  return absl::UnavailableError(absl::StrCat(
      call, " failed: ", status.error_code(), " ", status.error_message()));
}

}  // namespace

absl::StatusOr<std::vector<std::vector<std::string>>> QuerySpanner(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& database,
    const std::string& sql) {
  auto stub = google::spanner::v1::Spanner::NewStub(channel);
  google::spanner::v1::Session session;
  {
    grpc::ClientContext context;
    google::spanner::v1::CreateSessionRequest request;
    request.set_database(database);
    const grpc::Status status =
        stub->CreateSession(&context, request, &session);
    if (!status.ok()) return Failed("CreateSession", status);
  }
  grpc::ClientContext context;
  google::spanner::v1::ExecuteSqlRequest query;
  query.set_session(session.name());
  query.set_sql(sql);
  google::spanner::v1::ResultSet result;
  const grpc::Status status = stub->ExecuteSql(&context, query, &result);
  if (!status.ok()) return Failed("ExecuteSql", status);
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : result.rows()) {
    std::vector<std::string>& out = rows.emplace_back();
    for (const auto& value : row.values()) {
      out.push_back(value.has_null_value() ? "NULL" : value.string_value());
    }
  }
  return rows;
}

}  // namespace gcpstream::emulators

#include "bench/spanner_null_service.h"

#include <memory>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/spanner/admin/database/v1/spanner_database_admin.grpc.pb.h"
#include "google/spanner/v1/spanner.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace spanner_v1 = ::google::spanner::v1;
namespace admin = ::google::spanner::admin::database::v1;

const char* ColumnType(int i) {
  static const char* const kColumnTypes[] = {"INT64", "FLOAT64", "STRING(MAX)",
                                             "BOOL", "TIMESTAMP"};
  return kColumnTypes[(i - 1) % 5];
}

class NullSpannerService final : public spanner_v1::Spanner::CallbackService {
 public:
  explicit NullSpannerService(int columns) : columns_(columns) {}

  grpc::ServerUnaryReactor* CreateSession(
      grpc::CallbackServerContext* context,
      const spanner_v1::CreateSessionRequest* request,
      spanner_v1::Session* session) override {
    session->set_name(absl::StrCat(request->database(), "/sessions/null"));
    return Done(context);
  }
  grpc::ServerUnaryReactor* DeleteSession(
      grpc::CallbackServerContext* context,
      const spanner_v1::DeleteSessionRequest*,
      google::protobuf::Empty*) override {
    return Done(context);
  }
  grpc::ServerUnaryReactor* ExecuteSql(
      grpc::CallbackServerContext* context,
      const spanner_v1::ExecuteSqlRequest* request,
      spanner_v1::ResultSet* result) override {
    auto row = [&](std::initializer_list<const char*> cells) {
      auto& r = *result->add_rows();
      for (const char* cell : cells) r.add_values()->set_string_value(cell);
    };
    if (absl::StrContains(request->sql(), "INDEX_COLUMNS")) {
      row({"", "Rows", "PRIMARY_KEY", "PRIMARY_KEY", "Id", "1"});
    } else if (absl::StrContains(request->sql(), "COLUMNS")) {
      row({"", "Rows", "Id", "INT64", "NO"});
      for (int i = 1; i < columns_; ++i) {
        const std::string name = absl::StrCat("C", i);
        row({"", "Rows", name.c_str(), ColumnType(i), "YES"});
      }
    }
    return Done(context);
  }
  grpc::ServerUnaryReactor* Commit(grpc::CallbackServerContext* context,
                                   const spanner_v1::CommitRequest*,
                                   spanner_v1::CommitResponse*) override {
    return Done(context);
  }
  grpc::ServerWriteReactor<spanner_v1::BatchWriteResponse>* BatchWrite(
      grpc::CallbackServerContext*,
      const spanner_v1::BatchWriteRequest* request) override {
    class Writer final
        : public grpc::ServerWriteReactor<spanner_v1::BatchWriteResponse> {
     public:
      explicit Writer(int groups) {
        for (int i = 0; i < groups; ++i) response_.add_indexes(i);
        StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }  // gRPC's reactor idiom.

     private:
      spanner_v1::BatchWriteResponse response_;
    };
    return new Writer(request->mutation_groups_size());  // NOLINT
  }

 private:
  static grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  int columns_;
};

class NullAdminService final : public admin::DatabaseAdmin::CallbackService {
  grpc::ServerUnaryReactor* GetDatabase(
      grpc::CallbackServerContext* context,
      const admin::GetDatabaseRequest* request,
      admin::Database* database) override {
    database->set_name(request->name());
    database->set_database_dialect(admin::GOOGLE_STANDARD_SQL);
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

ForkedServer StartNullSpanner(int columns) {
  return StartForkedServer([columns] {
    std::vector<std::unique_ptr<grpc::Service>> services;
    services.push_back(std::make_unique<NullSpannerService>(columns));
    services.push_back(std::make_unique<NullAdminService>());
    return services;
  });
}

}  // namespace gcpstream::bench

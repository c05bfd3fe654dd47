// BigQueryLoadCommitter against a loopback jobs API and Cloud Storage: the
// answers the emulator cannot give (a repeated job id refused with 409, a
// job still running, a location outside the US), and the committable and
// job-id forms it relies on.

#include "gcpstream/bigquery/bigquery_load_committer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/load_committable.h"
#include "gcpstream/testing/http_receiver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace gcpstream::bigquery {
namespace {

using ::gcpstream::testing::HttpAnswer;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Json = nlohmann::json;

constexpr char kTablePath[] = "/bigquery/v2/projects/p/datasets/d/tables/t";
constexpr char kJobsPath[] = "/bigquery/v2/projects/p/jobs";

std::string JobAnswer(const std::string& state,
                      const std::string& error_reason = "") {
  Json job = {{"jobReference", {{"projectId", "p"}, {"location", "EU"}}},
              {"status", {{"state", state}}},
              {"statistics", {{"load", {{"outputRows", "5"}}}}}};
  if (!error_reason.empty()) {
    job["status"]["errorResult"] = {{"reason", error_reason},
                                    {"message", "bad value in row 3"},
                                    {"location", "gs://b/x/part-1.json"}};
  }
  return job.dump();
}

// Answers like the service would for a table in the EU, with scripted job
// answers: `gets` in order (the last repeats), `insert` for the POST.
class FakeService {
 public:
  std::vector<HttpAnswer> gets;
  HttpAnswer insert{.status = 200, .body = JobAnswer("RUNNING")};
  bool table_exists = true;

  HttpAnswer Answer(const ReceivedRequest& request) {
    if (request.method == "GET" && request.target == kTablePath) {
      if (!table_exists) return {.status = 404, .body = "{}"};
      return {
          .status = 200,
          .body = R"({"schema": {"fields": [{"name": "v", "type": "STRING"}]},
                          "location": "EU"})"};
    }
    if (request.method == "GET" &&
        absl::StartsWith(request.target, kJobsPath)) {
      const HttpAnswer answer = gets.at(std::min(next_get_, gets.size() - 1));
      ++next_get_;
      return answer;
    }
    if (request.method == "POST" && request.target == kJobsPath) return insert;
    if (request.method == "DELETE") return {.status = 204, .body = ""};
    return {.status = 400, .body = "unexpected"};
  }

 private:
  size_t next_get_ = 0;
};

class BigQueryLoadCommitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto receiver = HttpReceiver::Start([this](const ReceivedRequest& request) {
      return service_.Answer(request);
    });
    ASSERT_TRUE(receiver.ok()) << receiver.status();
    receiver_ = *std::move(receiver);
    options_.name = "orders sink";
    options_.write_method = WriteMethod::kFileLoads;
    options_.staging_path = "gs://b/x";
    const std::string endpoint =
        absl::StrCat("http://127.0.0.1:", receiver_->port());
    options_.tables_target.endpoint = endpoint;
    options_.storage_target.endpoint = endpoint;
  }

  static std::vector<std::string> Committables() {
    return {
        LoadCommittable{
            .table = "p.d.t", .uris = {"gs://b/x/w2/part-0.json"}, .rows = 2}
            .Encode(),
        LoadCommittable{
            .table = "p.d.t",
            .uris = {"gs://b/x/w1/part-1.json", "gs://b/x/w1/part-0.json"},
            .rows = 3}
            .Encode()};
  }

  std::vector<ReceivedRequest> Requests(const std::string& method) {
    std::vector<ReceivedRequest> out;
    for (ReceivedRequest& request :
         receiver_->WaitFor(0, absl::ZeroDuration())) {
      if (request.method == method) out.push_back(std::move(request));
    }
    return out;
  }

  static std::string Target(const ReceivedRequest& request) {
    return request.target;
  }

  FakeService service_;
  std::unique_ptr<HttpReceiver> receiver_;
  BigQuerySinkOptions options_;
};

TEST_F(BigQueryLoadCommitterTest, OneJobPerTableOverEveryWritersFiles) {
  service_.gets = {{.status = 404, .body = "{}"},
                   {.status = 200, .body = JobAnswer("DONE")}};
  BigQueryLoadCommitter committer(options_);
  ASSERT_TRUE(committer.Commit(7, Committables()).ok());

  const std::vector<ReceivedRequest> inserts = Requests("POST");
  ASSERT_EQ(inserts.size(), 1);
  const Json body = Json::parse(inserts[0].body);
  const std::vector<std::string> sorted = {"gs://b/x/w1/part-0.json",
                                           "gs://b/x/w1/part-1.json",
                                           "gs://b/x/w2/part-0.json"};
  EXPECT_EQ(body["configuration"]["load"]["sourceUris"], Json(sorted));
  EXPECT_EQ(body["jobReference"]["jobId"],
            LoadJobId("orders sink", 7, "p.d.t", sorted));
  // The job runs where the table is.
  EXPECT_EQ(body["jobReference"]["location"], "EU");
  EXPECT_EQ(body["configuration"]["load"]["writeDisposition"], "WRITE_APPEND");
  EXPECT_EQ(body["configuration"]["load"]["createDisposition"], "CREATE_NEVER");
  EXPECT_EQ(body["configuration"]["load"]["sourceFormat"],
            "NEWLINE_DELIMITED_JSON");
  // Loaded files are deleted.
  std::vector<std::string> deleted;
  for (const ReceivedRequest& request : Requests("DELETE")) {
    deleted.push_back(request.target);
  }
  EXPECT_THAT(deleted, ElementsAre("/storage/v1/b/b/o/x%2Fw1%2Fpart-0.json",
                                   "/storage/v1/b/b/o/x%2Fw1%2Fpart-1.json",
                                   "/storage/v1/b/b/o/x%2Fw2%2Fpart-0.json"));
}

// A replayed commit whose job another attempt started: the start is refused
// as existing (409), and the job is waited for until done, never run again.
TEST_F(BigQueryLoadCommitterTest, AJobStartedBeforeIsWaitedForNotRunAgain) {
  service_.gets = {{.status = 404, .body = "{}"},
                   {.status = 200, .body = JobAnswer("RUNNING")},
                   {.status = 200, .body = JobAnswer("DONE")}};
  service_.insert = {.status = 409, .body = R"({"error": {"code": 409,
                                 "message": "Already Exists: Job p:EU.x"}})"};
  BigQueryLoadCommitter committer(options_);
  ASSERT_TRUE(committer.Commit(7, Committables()).ok());
  EXPECT_EQ(Requests("POST").size(), 1);
  const std::vector<ReceivedRequest> gets = Requests("GET");
  ASSERT_EQ(gets.size(), 4);  // The table, then the job three times.
  for (size_t i = 1; i < gets.size(); ++i) {
    EXPECT_THAT(gets[i].target, HasSubstr("?location=EU"));
  }
  EXPECT_EQ(Requests("DELETE").size(), 3);
}

TEST_F(BigQueryLoadCommitterTest, AJobFoundDoneIsNotStarted) {
  service_.gets = {{.status = 200, .body = JobAnswer("DONE")}};
  BigQueryLoadCommitter committer(options_);
  ASSERT_TRUE(committer.Commit(7, Committables()).ok());
  EXPECT_THAT(Requests("POST"), IsEmpty());
  // Files a replay finds deleted already count as deleted.
  EXPECT_EQ(Requests("DELETE").size(), 3);
}

TEST_F(BigQueryLoadCommitterTest, AFailedJobFailsTheCommitAndKeepsTheFiles) {
  service_.gets = {{.status = 404, .body = "{}"}};
  service_.insert = {.status = 200, .body = JobAnswer("DONE", "invalid")};
  BigQueryLoadCommitter committer(options_);
  const absl::Status status = committer.Commit(7, Committables());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("orders sink"));
  EXPECT_THAT(status.message(), HasSubstr("p.d.t"));
  EXPECT_THAT(status.message(), HasSubstr("staged files are kept"));
  EXPECT_THAT(status.message(), HasSubstr("bad value in row 3"));
  EXPECT_THAT(status.message(), HasSubstr("gs://b/x/part-1.json"));
  EXPECT_THAT(Requests("DELETE"), IsEmpty());
}

TEST_F(BigQueryLoadCommitterTest, AMissingTableFailsBeforeAnyJob) {
  service_.table_exists = false;
  BigQueryLoadCommitter committer(options_);
  const absl::Status status = committer.Commit(7, Committables());
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(status.message(), HasSubstr("staged files are kept"));
  EXPECT_THAT(Requests("POST"), IsEmpty());
}

TEST_F(BigQueryLoadCommitterTest, AGarbledCommittableIsRefused) {
  BigQueryLoadCommitter committer(options_);
  const absl::Status status = committer.Commit(7, {"{\"table\": 1}"});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("not a BigQuery load committable"));
}

TEST(LoadJobId, DependsOnCheckpointTableAndFilesOnly) {
  const std::vector<std::string> files = {"gs://b/1", "gs://b/2"};
  const std::string id = LoadJobId("my sink/Ä", 12, "p.d.t", files);
  EXPECT_TRUE(absl::StartsWith(id, "gcpstream_my_sink____c12_")) << id;
  for (const char c : id) {
    EXPECT_TRUE(absl::ascii_isalnum(c) || c == '_') << id;
  }
  EXPECT_EQ(id, LoadJobId("my sink/Ä", 12, "p.d.t", files));
  EXPECT_NE(id, LoadJobId("my sink/Ä", 13, "p.d.t", files));
  EXPECT_NE(id, LoadJobId("my sink/Ä", 12, "p.d.u", files));
  EXPECT_NE(id, LoadJobId("my sink/Ä", 12, "p.d.t", {"gs://b/1"}));
}

TEST(LoadCommittable, RoundTripsAndRefusesOtherText) {
  const LoadCommittable committable{
      .table = "p.d.t", .uris = {"gs://b/1", "gs://b/2"}, .rows = 9};
  absl::StatusOr<LoadCommittable> decoded =
      LoadCommittable::Decode(committable.Encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->table, "p.d.t");
  EXPECT_THAT(decoded->uris, ElementsAre("gs://b/1", "gs://b/2"));
  EXPECT_EQ(decoded->rows, 9);
  for (const char* text : {"", "[]", R"({"table":"p.d.t","uris":[],"rows":1})",
                           R"({"table":"p.d.t","uris":[1],"rows":1})",
                           R"({"table":"p.d.t","uris":["gs://b/1"]})",
                           R"({"table":"p.d.t","stream":"s","rows":1})"}) {
    EXPECT_FALSE(LoadCommittable::Decode(text).ok()) << text;
  }
}

TEST(LoadJobStateFromJson, ReadsStateErrorsAndRows) {
  absl::StatusOr<LoadJobState> state = LoadJobStateFromJson(R"({
      "jobReference": {"location": "asia-east1"},
      "status": {"state": "DONE",
                 "errorResult": {"reason": "invalid", "message": "m1"},
                 "errors": [{"reason": "invalid", "message": "m1"},
                            {"reason": "invalid", "message": "row 4: x",
                             "location": "gs://b/f"}]},
      "statistics": {"load": {"outputRows": "12"}}})");
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_TRUE(state->done);
  EXPECT_EQ(state->location, "asia-east1");
  ASSERT_TRUE(state->error.has_value());
  EXPECT_EQ(state->error->code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->error->message(),
            "m1 [invalid]; first error: row 4: x (at gs://b/f) [invalid]; 2 "
            "errors in all");
  EXPECT_EQ(state->output_rows, 12);
  EXPECT_FALSE(LoadJobStateFromJson(R"({"status": 3})").ok());
  EXPECT_FALSE(LoadJobStateFromJson("not json").ok());
  // Members of the wrong type are ignored, not thrown at.
  absl::StatusOr<LoadJobState> odd = LoadJobStateFromJson(
      R"({"jobReference": {"location": 5}, "status": {"state": 1}})");
  ASSERT_TRUE(odd.ok());
  EXPECT_FALSE(odd->done);
}

TEST(ParseStagingPath, BucketAndPrefix) {
  absl::StatusOr<StagingLocation> location = ParseStagingPath("gs://b/a/c//");
  ASSERT_TRUE(location.ok());
  EXPECT_EQ(location->bucket, "b");
  EXPECT_EQ(location->prefix, "a/c/");
  EXPECT_EQ(ParseStagingPath("gs://b")->prefix, "");
  EXPECT_EQ(ParseStagingPath("gs://b/")->prefix, "");
  EXPECT_FALSE(ParseStagingPath("s3://b/a").ok());
  EXPECT_FALSE(ParseStagingPath("gs:///a").ok());
}

}  // namespace
}  // namespace gcpstream::bigquery

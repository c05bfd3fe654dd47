// The exactly-once BigQuery sink (PENDING streams with offsets, committed
// per checkpoint) against a scripted Storage Write service: what a resend,
// a refusal and a repeated commit do, which the emulator cannot stage.

#include <string>
#include <vector>

#include "gcpstream/bigquery/bigquery_stream_committer.h"
#include "gcpstream/bigquery/scripted_bigquery_fixture.h"
#include "gcpstream/bigquery/stream_committable.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::gcpstream::testing::Always;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::Typed;
using testing::Appended;
using testing::AppendRowsRequest;
using testing::AppendRowsResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InStreamError;
using testing::kAppendRows;
using ::testing::SizeIs;
using testing::Values;

constexpr char kService[] = "google.cloud.bigquery.storage.v1.BigQueryWrite.";
constexpr char kStream[] = "projects/p/datasets/d/tables/t/streams/s1";
constexpr char kTable[] = "projects/p/datasets/d/tables/t";

std::string Method(const char* name) { return absl::StrCat(kService, name); }

storage_v1::StorageError StreamError(
    storage_v1::StorageError::StorageErrorCode code,
    const std::string& stream) {
  storage_v1::StorageError error;
  error.set_code(code);
  error.set_entity(stream);
  error.set_error_message("scripted");
  return error;
}

class BigQueryExactlyOnceTest : public testing::ScriptedBigQueryTest {
 protected:
  void SetUp() override {
    ScriptedBigQueryTest::SetUp();
    storage_v1::WriteStream stream;
    stream.set_name(kStream);
    server_->SetDefault(Method("CreateWriteStream"), Always(Respond(stream)));
    server_->SetDefault(
        Method("FinalizeWriteStream"),
        Typed<storage_v1::FinalizeWriteStreamRequest>(
            [this](const storage_v1::FinalizeWriteStreamRequest&) {
              storage_v1::FinalizeWriteStreamResponse response;
              response.set_row_count(rows_held_);
              return Respond(response);
            }));
  }

  BigQuerySinkOptions ExactlyOnce() const {
    BigQuerySinkOptions options = Options();
    options.write_method = WriteMethod::kStorageApiExactlyOnce;
    return options;
  }

  // An AppendRows answer that also counts the rows the stream now holds.
  ::gcpstream::testing::Reply Append(const AppendRowsRequest& request) {
    rows_held_ += request.proto_rows().rows().serialized_rows_size();
    return Appended();
  }

  std::vector<int64_t> Offsets() const {
    std::vector<int64_t> offsets;
    for (const AppendRowsRequest& request : Sent()) {
      offsets.push_back(request.has_offset() ? request.offset().value() : -1);
    }
    return offsets;
  }

  int64_t rows_held_ = 0;
};

TEST_F(BigQueryExactlyOnceTest, RowsGoToOneStreamWithOffsetsAndAreFinalized) {
  server_->SetDefault(kAppendRows,
                      Typed<AppendRowsRequest>([this](const auto& request) {
                        return Append(request);
                      }));
  std::vector<std::string> committables;
  ASSERT_TRUE(WriteValues({"a", "b", "c", "d", "e", "f", "g"}, ExactlyOnce(),
                          &committables)
                  .ok());
  EXPECT_THAT(Offsets(), ElementsAre(0, 3, 6));
  for (const AppendRowsRequest& request : Sent()) {
    EXPECT_EQ(request.write_stream(), kStream);
  }
  const auto created = server_->Requests(Method("CreateWriteStream"));
  ASSERT_THAT(created, SizeIs(1));
  const auto& create = static_cast<const storage_v1::CreateWriteStreamRequest&>(
      *created[0].message);
  EXPECT_EQ(create.parent(), kTable);
  EXPECT_EQ(create.write_stream().type(), storage_v1::WriteStream::PENDING);
  ASSERT_THAT(committables, SizeIs(1));
  absl::StatusOr<StreamCommittable> committable =
      StreamCommittable::Decode(committables[0]);
  ASSERT_TRUE(committable.ok()) << committable.status();
  EXPECT_EQ(committable->table, kTable);
  EXPECT_EQ(committable->stream, kStream);
  EXPECT_EQ(committable->rows, 7);
  EXPECT_EQ(server_->CallCount(Method("FinalizeWriteStream")), 1);
  EXPECT_EQ(task_.Metric("write_streams_created"), "1");
  EXPECT_EQ(task_.Metric("write_streams_finalized"), "1");
  EXPECT_EQ(task_.Metric("records_written"), "7");
}

TEST_F(BigQueryExactlyOnceTest, AResendOfAWrittenAppendIsAlreadyWritten) {
  // The first append is written, but its stream breaks before the answer;
  // the resend at the same offset is answered ALREADY_EXISTS.
  int calls = 0;
  server_->SetDefault(
      kAppendRows,
      Typed<AppendRowsRequest>([&](const AppendRowsRequest& request) {
        if (calls++ == 0) {
          Append(request);
          return ::gcpstream::testing::Fail(grpc::StatusCode::UNAVAILABLE,
                                            "connection reset");
        }
        if (request.offset().value() < rows_held_) {
          return InStreamError(absl::StatusCode::kAlreadyExists,
                               "offset already written");
        }
        return Append(request);
      }));
  std::vector<std::string> committables;
  ASSERT_TRUE(
      WriteValues({"a", "b", "c", "d"}, ExactlyOnce(), &committables).ok());
  EXPECT_THAT(Offsets(), ElementsAre(0, 0, 3));
  EXPECT_EQ(rows_held_, 4);
  EXPECT_EQ(task_.Metric("appends_already_written"), "1");
  EXPECT_EQ(task_.Metric("records_written"), "4");
  EXPECT_THAT(*failures_, SizeIs(0));
  ASSERT_THAT(committables, SizeIs(1));
  EXPECT_EQ(StreamCommittable::Decode(committables[0])->rows, 4);
}

TEST_F(BigQueryExactlyOnceTest, RowErrorsResendTheRestAtTheSameOffset) {
  int calls = 0;
  server_->SetDefault(
      kAppendRows,
      Typed<AppendRowsRequest>([&](const AppendRowsRequest& request) {
        if (calls++ > 0) return Append(request);
        AppendRowsResponse response;
        response.mutable_error()->set_code(3);
        auto& error = *response.add_row_errors();
        error.set_index(1);
        error.set_message("value 'b' is not allowed");
        return Respond(response);
      }));
  std::vector<std::string> committables;
  ASSERT_TRUE(
      WriteValues({"a", "b", "c", "d", "e"}, ExactlyOnce(), &committables)
          .ok());
  const std::vector<AppendRowsRequest> sent = Sent();
  ASSERT_THAT(sent, SizeIs(3));
  EXPECT_THAT(Values(sent[1]), ElementsAre("a", "c"));
  EXPECT_THAT(Offsets(), ElementsAre(0, 0, 2));
  ASSERT_THAT(*failures_, SizeIs(1));
  EXPECT_EQ(StreamCommittable::Decode(committables[0])->rows, 4);
}

TEST_F(BigQueryExactlyOnceTest, AnOffsetPastTheEndFailsTheJob) {
  server_->SetDefault(kAppendRows,
                      Always(InStreamError(absl::StatusCode::kOutOfRange,
                                           "offset 0 beyond end")));
  absl::Status status = WriteValues({"a"}, ExactlyOnce(), nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("appending at offset 0 of stream ",
                                     kStream, " (table p.d.t)")));
  EXPECT_THAT(*failures_, SizeIs(0));
}

TEST_F(BigQueryExactlyOnceTest, AFinalizedCountOtherThanAppendedIsDataLoss) {
  server_->SetDefault(kAppendRows,
                      Typed<AppendRowsRequest>([this](const auto& request) {
                        Append(request);
                        rows_held_ += 1;  // Somebody else's row.
                        return Appended();
                      }));
  std::vector<std::string> committables;
  absl::Status status = WriteValues({"a", "b"}, ExactlyOnce(), &committables);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("holds 3 rows where this writer "
                                          "appended 2"));
}

class BigQueryStreamCommitterTest : public BigQueryExactlyOnceTest {
 protected:
  absl::Status CommitTwoStreams() {
    BigQueryStreamCommitter committer(ExactlyOnce());
    return committer.Commit(
        7,
        {StreamCommittable{.table = kTable, .stream = "s1", .rows = 1}.Encode(),
         StreamCommittable{.table = kTable, .stream = "s2", .rows = 2}
             .Encode()});
  }
  std::vector<storage_v1::BatchCommitWriteStreamsRequest> Commits() const {
    std::vector<storage_v1::BatchCommitWriteStreamsRequest> commits;
    for (const auto& recorded :
         server_->Requests(Method("BatchCommitWriteStreams"))) {
      commits.push_back(
          static_cast<const storage_v1::BatchCommitWriteStreamsRequest&>(
              *recorded.message));
    }
    return commits;
  }
};

storage_v1::BatchCommitWriteStreamsResponse Committed() {
  storage_v1::BatchCommitWriteStreamsResponse response;
  response.mutable_commit_time()->set_seconds(1);
  return response;
}

TEST_F(BigQueryStreamCommitterTest, CommitsATablesStreamsInOneCall) {
  server_->SetDefault(Method("BatchCommitWriteStreams"),
                      Always(Respond(Committed())));
  ASSERT_TRUE(CommitTwoStreams().ok());
  const auto commits = Commits();
  ASSERT_THAT(commits, SizeIs(1));
  EXPECT_EQ(commits[0].parent(), kTable);
  EXPECT_THAT(commits[0].write_streams(), ElementsAre("s1", "s2"));
  const auto recorded = server_->Requests(Method("BatchCommitWriteStreams"));
  const auto params = recorded[0].metadata.find("x-goog-request-params");
  ASSERT_NE(params, recorded[0].metadata.end());
  EXPECT_THAT(params->second, HasSubstr("parent=projects%2Fp"));
}

TEST_F(BigQueryStreamCommitterTest, AStreamAlreadyCommittedIsDone) {
  // s1 was committed before a crash; s2 was not (nothing is committed by a
  // refused batch), so it goes again alone.
  storage_v1::BatchCommitWriteStreamsResponse refused;
  *refused.add_stream_errors() =
      StreamError(storage_v1::StorageError::STREAM_ALREADY_COMMITTED, "s1");
  server_->Enqueue(Method("BatchCommitWriteStreams"), Always(Respond(refused)));
  server_->SetDefault(Method("BatchCommitWriteStreams"),
                      Always(Respond(Committed())));
  ASSERT_TRUE(CommitTwoStreams().ok());
  const auto commits = Commits();
  ASSERT_THAT(commits, SizeIs(2));
  EXPECT_THAT(commits[1].write_streams(), ElementsAre("s2"));
}

TEST_F(BigQueryStreamCommitterTest, AllCommittedBeforeNeedsNoSecondCall) {
  storage_v1::BatchCommitWriteStreamsResponse refused;
  *refused.add_stream_errors() =
      StreamError(storage_v1::StorageError::STREAM_ALREADY_COMMITTED, "s1");
  // The emulator's answer to a second commit: the stream's state.
  *refused.add_stream_errors() =
      StreamError(storage_v1::StorageError::INVALID_STREAM_STATE, "s2");
  server_->SetDefault(Method("BatchCommitWriteStreams"),
                      Always(Respond(refused)));
  server_->SetDefault(Method("GetWriteStream"),
                      Always(Respond(storage_v1::WriteStream())));
  server_->SetDefault(
      Method("FinalizeWriteStream"),
      Always(::gcpstream::testing::Fail(grpc::StatusCode::FAILED_PRECONDITION,
                                        "Stream has already been committed")));
  ASSERT_TRUE(CommitTwoStreams().ok());
  EXPECT_THAT(Commits(), SizeIs(1));
}

TEST_F(BigQueryStreamCommitterTest, AMissingStreamIsDataLoss) {
  storage_v1::BatchCommitWriteStreamsResponse refused;
  *refused.add_stream_errors() =
      StreamError(storage_v1::StorageError::STREAM_NOT_FOUND, "s2");
  server_->SetDefault(Method("BatchCommitWriteStreams"),
                      Always(Respond(refused)));
  absl::Status status = CommitTwoStreams();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("bq: committing checkpoint 7 into ",
                                     kTable, ": stream s2 no longer exists")));
}

TEST_F(BigQueryStreamCommitterTest, TransientFailuresAreRetried) {
  server_->Enqueue(Method("BatchCommitWriteStreams"),
                   Always(::gcpstream::testing::Fail(
                       grpc::StatusCode::UNAVAILABLE, "try again")));
  server_->SetDefault(Method("BatchCommitWriteStreams"),
                      Always(Respond(Committed())));
  ASSERT_TRUE(CommitTwoStreams().ok());
  EXPECT_THAT(Commits(), SizeIs(2));
}

}  // namespace
}  // namespace gcpstream::bigquery

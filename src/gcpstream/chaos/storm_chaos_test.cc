// Status storms a scripted service produces on demand, while a pipeline
// checkpoints every second: for two windows of 2 s every call is refused
// with RESOURCE_EXHAUSTED, then UNAVAILABLE. The sinks wait them out with
// their backoff: every record is acknowledged, nothing is routed, no
// restart.

#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gcpstream/chaos/chaos_pipeline.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_sink_fixture.h"
#include "gcpstream/spanner/spanner_sink_fixture.h"
#include "gcpstream/testing/scripted_server.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {
namespace {

using ::gcpstream::testing::Fail;

// The storm windows, from the first call the service sees.
class Storm {
 public:
  // The status to refuse a call with now, if any.
  std::optional<grpc::StatusCode> Now() {
    absl::MutexLock lock(&mu_);
    if (start_ == absl::InfinitePast()) start_ = absl::Now();
    const absl::Duration since = absl::Now() - start_;
    if (since >= absl::Seconds(1) && since < absl::Seconds(3)) {
      ++refused_;
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    }
    if (since >= absl::Seconds(5) && since < absl::Seconds(7)) {
      ++refused_;
      return grpc::StatusCode::UNAVAILABLE;
    }
    return std::nullopt;
  }
  int refused() {
    absl::MutexLock lock(&mu_);
    return refused_;
  }

 private:
  absl::Mutex mu_;
  absl::Time start_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int refused_ ABSL_GUARDED_BY(mu_) = 0;
};

// What a scripted service acknowledged (its responders run on gRPC's
// threads).
struct Acknowledged {
  absl::Mutex mu;
  std::multiset<int64_t> values ABSL_GUARDED_BY(mu);

  void Check(const std::string& what, int refused, int restarts) {
    absl::MutexLock lock(&mu);
    const std::set<int64_t> distinct(values.begin(), values.end());
    for (int64_t i = 0; i < kRecords; ++i) {
      ASSERT_TRUE(distinct.contains(i)) << what << ": record " << i;
    }
    std::cout << "chaos " << what << ": " << kRecords << " in, "
              << distinct.size() << " acknowledged, "
              << values.size() - distinct.size() << " duplicates, " << refused
              << " calls refused by the storms, " << restarts << " restarts\n";
  }
};

class PubSubStormTest : public pubsub::testing::PubSubSinkTest {};

TEST_F(PubSubStormTest, PublishesWaitOutTheStorms) {
  auto storm = std::make_shared<Storm>();
  auto acknowledged = std::make_shared<Acknowledged>();
  server_->SetDefault(
      pubsub::testing::kPublish,
      [storm, acknowledged](const google::protobuf::Message& message) {
        const auto& request =
            static_cast<const google::pubsub::v1::PublishRequest&>(message);
        if (std::optional<grpc::StatusCode> code = storm->Now()) {
          return Fail(*code, "storm");
        }
        absl::MutexLock lock(&acknowledged->mu);
        for (const auto& m : request.messages()) {
          int64_t value = 0;
          EXPECT_TRUE(absl::SimpleAtoi(m.data(), &value));
          acknowledged->values.insert(value);
        }
        return pubsub::testing::Acknowledge(request);
      });
  pubsub::PubSubSinkOptions options = Options();
  options.retry = RetryOptions();  // The defaults, as a user has them.
  runtime::Pipeline pipeline(ChaosOptions("pubsub-storm"));
  pipeline.AddSource(Numbers(), 1)
      .SinkTo(std::make_shared<pubsub::PubSubSink<int64_t>>(
          options, pubsub::TopicDestination("p", "orders"),
          pubsub::MakeMessageSerializer<int64_t>(
              [](const int64_t& i)
                  -> absl::StatusOr<std::optional<std::string>> {
                return absl::StrCat(i);
              }),
          pubsub::testing::Recording(failures_)));
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(failures_->empty()) << failures_->front().status;
  EXPECT_GT(storm->refused(), 0);
  EXPECT_EQ(summary->restarts, 0);
  acknowledged->Check("pubsub sink storms", storm->refused(),
                      summary->restarts);
}

class SpannerStormTest : public spanner::testing::SpannerSinkTest {};

TEST_F(SpannerStormTest, BatchWritesWaitOutTheStorms) {
  auto storm = std::make_shared<Storm>();
  auto acknowledged = std::make_shared<Acknowledged>();
  server_->SetDefault(
      spanner::testing::kBatchWrite,
      [storm, acknowledged](const google::protobuf::Message& message) {
        const auto& request =
            static_cast<const google::spanner::v1::BatchWriteRequest&>(message);
        if (std::optional<grpc::StatusCode> code = storm->Now()) {
          return Fail(*code, "storm");
        }
        google::spanner::v1::BatchWriteResponse response;
        absl::MutexLock lock(&acknowledged->mu);
        for (int g = 0; g < request.mutation_groups_size(); ++g) {
          response.add_indexes(g);
          acknowledged->values.insert(
              spanner::testing::IdOf(request.mutation_groups(g).mutations(0)));
        }
        return ::gcpstream::testing::RespondStream({&response});
      });
  spanner::SpannerSinkOptions options = Options();
  options.retry = RetryOptions();  // The defaults, as a user has them.
  options.max_batch_mutations = 100;
  runtime::Pipeline pipeline(ChaosOptions("spanner-storm"));
  pipeline.AddSource(Numbers(), 1)
      .SinkTo(std::make_shared<spanner::SpannerSink<int64_t>>(
          options,
          [](const int64_t& i, const WriterContext&)
              -> absl::StatusOr<std::optional<spanner::Mutation>> {
            return spanner::Mutation::InsertOrUpdate("Orders")
                .Set("OrderId", spanner::Value::Int64(i))
                .Set("Amount", spanner::Value::Int64(i));
          },
          gcpstream::testing::RecordingFactory(failures_)));
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(failures_->empty()) << failures_->front().status;
  EXPECT_GT(storm->refused(), 0);
  EXPECT_EQ(summary->restarts, 0);
  acknowledged->Check("spanner sink storms", storm->refused(),
                      summary->restarts);
}

}  // namespace
}  // namespace gcpstream::chaos

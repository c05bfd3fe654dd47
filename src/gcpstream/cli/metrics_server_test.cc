#include "gcpstream/cli/metrics_server.h"

#include <string>

#include "gcpstream/base/clock.h"
#include "gcpstream/cli/metrics_text.h"
#include "gcpstream/testing/cli_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

using ::gcpstream::testing::HttpGet;
using ::testing::HasSubstr;

TEST(MetricsServerTest, ServesMetricsAndHealth) {
  MetricsRegistry registry;
  MetricLabels labels;
  labels.pipeline = "p";
  labels.operator_name = "orders";
  auto counter = registry.GetCounter("records_written", "Written.", labels);
  ASSERT_TRUE(counter.ok());
  (*counter)->Increment(42);
  auto server = MetricsServer::Start(registry, "127.0.0.1", 0);
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->port();
  ASSERT_GT(port, 0);
  const std::string metrics = HttpGet(port, "/metrics");
  EXPECT_THAT(metrics, HasSubstr("HTTP/1.1 200 OK"));
  EXPECT_THAT(metrics, HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(metrics, HasSubstr("records_written{pipeline=\"p\",operator="
                                 "\"orders\",subtask=\"0\"} 42"));
  EXPECT_THAT(HttpGet(port, "/healthz"), HasSubstr("\r\n\r\nok: ok\n"));
  EXPECT_THAT(HttpGet(port, "/readyz"), HasSubstr("200 OK"));
  EXPECT_THAT(HttpGet(port, "/"), HasSubstr("404 Not Found"));
  EXPECT_EQ(SumMetric(registry.ExportPrometheusText(), "records_written",
                      "operator=\"orders\""),
            42);
}

TEST(MetricsServerTest, ProbesAnswerTheJobsHealth) {
  MetricsRegistry registry;
  FakeClock clock;
  runtime::JobHealth health(absl::Minutes(1), &clock);
  auto server = MetricsServer::Start(registry, "127.0.0.1", 0, &health);
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->port();
  EXPECT_THAT(HttpGet(port, "/readyz"), HasSubstr("503 Service Unavailable"));
  health.RunStarted();
  health.AttemptRunning();
  EXPECT_THAT(HttpGet(port, "/readyz"), HasSubstr("200 OK"));
  EXPECT_THAT(HttpGet(port, "/healthz"), HasSubstr("200 OK"));
  clock.Advance(absl::Minutes(2));
  const std::string stalled = HttpGet(port, "/healthz");
  EXPECT_THAT(stalled, HasSubstr("503 Service Unavailable"));
  EXPECT_THAT(stalled, HasSubstr("with no checkpoint"));
  health.CheckpointCompleted();
  EXPECT_THAT(HttpGet(port, "/healthz"), HasSubstr("200 OK"));
  health.FailedForGood(absl::NotFoundError("subscription orders-sub"));
  EXPECT_THAT(HttpGet(port, "/healthz"),
              HasSubstr("failed for good: NOT_FOUND: subscription orders-sub"));
}

TEST(MetricsServerTest, RefusesABadAddressNamingTheOption) {
  MetricsRegistry registry;
  auto server = MetricsServer::Start(registry, "localhost", 0);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.status().message(), HasSubstr("--metrics-address"));
}

}  // namespace
}  // namespace gcpstream::cli

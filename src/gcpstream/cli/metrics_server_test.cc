#include "gcpstream/cli/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/cli/metrics_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

using ::testing::HasSubstr;

// The whole HTTP response to `request_line` on loopback:port.
std::string Get(int port, const std::string& request_line) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return "";
  }
  const std::string request = request_line + "\r\nHost: x\r\n\r\n";
  (void)send(fd, request.data(), request.size(), 0);
  std::string response;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) {
    response.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return response;
}

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
  const std::string metrics = Get(port, "GET /metrics HTTP/1.1");
  EXPECT_THAT(metrics, HasSubstr("HTTP/1.1 200 OK"));
  EXPECT_THAT(metrics, HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(metrics, HasSubstr("records_written{pipeline=\"p\",operator="
                                 "\"orders\",subtask=\"0\"} 42"));
  EXPECT_THAT(Get(port, "GET /healthz HTTP/1.1"),
              HasSubstr("\r\n\r\nok: ok\n"));
  EXPECT_THAT(Get(port, "GET /readyz HTTP/1.1"), HasSubstr("200 OK"));
  EXPECT_THAT(Get(port, "GET / HTTP/1.1"), HasSubstr("404 Not Found"));
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
  EXPECT_THAT(Get(port, "GET /readyz HTTP/1.1"),
              HasSubstr("503 Service Unavailable"));
  health.RunStarted();
  health.AttemptRunning();
  EXPECT_THAT(Get(port, "GET /readyz HTTP/1.1"), HasSubstr("200 OK"));
  EXPECT_THAT(Get(port, "GET /healthz HTTP/1.1"), HasSubstr("200 OK"));
  clock.Advance(absl::Minutes(2));
  const std::string stalled = Get(port, "GET /healthz HTTP/1.1");
  EXPECT_THAT(stalled, HasSubstr("503 Service Unavailable"));
  EXPECT_THAT(stalled, HasSubstr("with no checkpoint"));
  health.CheckpointCompleted();
  EXPECT_THAT(Get(port, "GET /healthz HTTP/1.1"), HasSubstr("200 OK"));
  health.FailedForGood(absl::NotFoundError("subscription orders-sub"));
  EXPECT_THAT(Get(port, "GET /healthz HTTP/1.1"),
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

#include "gcpstream/base/host_port.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::HasSubstr;

TEST(HostPortTest, ParsesHostAndPort) {
  auto parsed = ParseHostPort("localhost:8085", "PUBSUB_EMULATOR_HOST");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->host, "localhost");
  EXPECT_EQ(parsed->port, 8085);
  EXPECT_EQ(parsed->ToString(), "localhost:8085");
}

TEST(HostPortTest, ParsesBracketedIpv6AndPrintsItBack) {
  auto parsed = ParseHostPort("[::1]:9010", "endpoint");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->host, "::1");
  EXPECT_EQ(parsed->port, 9010);
  EXPECT_EQ(parsed->ToString(), "[::1]:9010");
}

TEST(HostPortTest, RejectsMalformedSpellingsNamingTheOption) {
  for (const char* bad : {"", "localhost", "localhost:", ":8085", "localhost:0",
                          "host:65536", "host:-1", "host:+80", "host:80x",
                          " host:80", "::1:80", "[::1]80", "[::1:80"}) {
    auto parsed = ParseHostPort(bad, "SPANNER_EMULATOR_HOST");
    ASSERT_FALSE(parsed.ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("SPANNER_EMULATOR_HOST"));
  }
}

}  // namespace
}  // namespace gcpstream

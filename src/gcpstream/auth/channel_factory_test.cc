#include "gcpstream/auth/channel_factory.h"

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::auth {
namespace {

using ::testing::HasSubstr;

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const char* value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value == nullptr) {
      unsetenv(name_.c_str());
    } else {
      setenv(name_.c_str(), value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST(ChannelFactoryTest, EmulatorVariableSelectsPlaintextTarget) {
  ScopedEnv env("PUBSUB_EMULATOR_HOST", "127.0.0.1:8681");
  auto target = ResolveTarget(Service::kPubSub, {});
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->address, "127.0.0.1:8681");
  EXPECT_TRUE(target->plaintext);
  EXPECT_TRUE(target->from_emulator_env);
}

TEST(ChannelFactoryTest, WithoutEmulatorUsesProductionTls) {
  ScopedEnv env("SPANNER_EMULATOR_HOST", nullptr);
  auto target = ResolveTarget(Service::kSpanner, {});
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->address, "spanner.googleapis.com:443");
  EXPECT_FALSE(target->plaintext);
}

TEST(ChannelFactoryTest, BigtableAdminSharesTheDataEmulator) {
  ScopedEnv env("BIGTABLE_EMULATOR_HOST", "localhost:8086");
  auto target = ResolveTarget(Service::kBigtableAdmin, {});
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->address, "localhost:8086");
}

TEST(ChannelFactoryTest, ExplicitEndpointWinsOverEmulator) {
  ScopedEnv env("PUBSUB_EMULATOR_HOST", "127.0.0.1:1");
  auto target = ResolveTarget(Service::kPubSub,
                              {.endpoint = "[::1]:9999", .plaintext = true});
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->address, "[::1]:9999");
  EXPECT_FALSE(target->from_emulator_env);
}

TEST(ChannelFactoryTest, MalformedEmulatorVariableIsNamedInTheError) {
  ScopedEnv env("BIGTABLE_EMULATOR_HOST", "localhost");
  auto target = ResolveTarget(Service::kBigtable, {});
  ASSERT_FALSE(target.ok());
  EXPECT_THAT(target.status().message(), HasSubstr("BIGTABLE_EMULATOR_HOST"));
}

}  // namespace
}  // namespace gcpstream::auth

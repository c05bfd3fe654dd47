#include "gcpstream/emulators/emulator_kind.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::emulators {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(EmulatorKindTest, NamesRoundTripCaseInsensitively) {
  for (EmulatorKind kind : AllEmulatorKinds()) {
    auto parsed = ParseEmulatorKind(SpecOf(kind).name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, kind);
  }
  auto upper = ParseEmulatorKind("PubSub");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, EmulatorKind::kPubSub);
}

TEST(EmulatorKindTest, UnknownNameListsAcceptedOnes) {
  auto parsed = ParseEmulatorKind("firestore");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("accepted: pubsub, spanner, bigtable, cloudtasks, "
                        "storage, bigquery"));
}

TEST(EmulatorKindTest, CommandsBindLoopbackOnTheGivenPort) {
  EXPECT_THAT(EmulatorCommand(EmulatorKind::kSpanner, "/sdk", {.port = 4242}),
              ElementsAre("/sdk/bin/cloud_spanner_emulator/emulator_main",
                          "--host_port=127.0.0.1:4242"));
  EXPECT_THAT(
      EmulatorCommand(EmulatorKind::kPubSub, "/sdk", {.port = 4243}),
      ElementsAre("/sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator",
                  "--host=127.0.0.1", "--port=4243"));
  const std::vector<std::string> tasks =
      EmulatorCommand(EmulatorKind::kCloudTasks, "/sdk", {.port = 4245});
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_THAT(tasks[1], ::testing::EndsWith("scripts/cloudtasks-emulator.py"));
  EXPECT_EQ(tasks[2], "--port=4245");
  EXPECT_THAT(EmulatorCommand(EmulatorKind::kBigtable, "/sdk", {.port = 4244}),
              ElementsAre("/sdk/platform/bigtable-emulator/cbtemulator",
                          "-host=127.0.0.1", "-port=4244"));
}

TEST(EmulatorKindTest, BigQueryListensOnTwoPortsAndReadsTheStorageRoot) {
  ASSERT_TRUE(HasSecondPort(EmulatorKind::kBigQuery));
  EXPECT_FALSE(HasSecondPort(EmulatorKind::kStorage));
  const std::vector<std::string> bigquery = EmulatorCommand(
      EmulatorKind::kBigQuery, "/sdk",
      {.port = 4246, .second_port = 4247, .storage_root = "/r"});
  EXPECT_THAT(bigquery, ::testing::Contains("BQEMU_GCS_LOCAL_ROOT=/r"));
  EXPECT_THAT(bigquery, ::testing::IsSupersetOf(
                            {"--rest-port", "4246", "--grpc-port", "4247"}));
  const std::vector<std::string> storage = EmulatorCommand(
      EmulatorKind::kStorage, "/sdk", {.port = 4248, .storage_root = "/r"});
  EXPECT_THAT(storage, ::testing::IsSupersetOf({"-filesystem-root", "/r"}));
}

TEST(EmulatorKindTest, EachKindHasItsStandardVariable) {
  EXPECT_EQ(SpecOf(EmulatorKind::kPubSub).env_variable, "PUBSUB_EMULATOR_HOST");
  EXPECT_EQ(SpecOf(EmulatorKind::kSpanner).env_variable,
            "SPANNER_EMULATOR_HOST");
  EXPECT_EQ(SpecOf(EmulatorKind::kBigtable).env_variable,
            "BIGTABLE_EMULATOR_HOST");
}

}  // namespace
}  // namespace gcpstream::emulators

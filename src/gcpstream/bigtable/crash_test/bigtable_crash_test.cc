// Kills a pipeline that writes Bigtable cells with SIGKILL at random
// moments, restarts it on the same checkpoint directory, lets the last run
// finish, and reads every cell version back: with explicit timestamps each
// cell has exactly one version (replays rewrite it); with the writer's clock
// every cell is there (nothing lost), with one version or more.

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/crash_runs.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::bigtable {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRecords = 30'000;
constexpr int64_t kKeys = 500;
constexpr char kProject[] = "crash-project";
constexpr char kInstance[] = "crash-instance";

// (row, qualifier) -> the values of its versions.
using Versions =
    std::map<std::pair<std::string, std::string>, std::vector<std::string>>;

Versions ReadVersions(const std::shared_ptr<grpc::Channel>& channel,
                      const std::string& table_name) {
  auto stub = google::bigtable::v2::Bigtable::NewStub(channel);
  grpc::ClientContext context;
  google::bigtable::v2::ReadRowsRequest request;
  request.set_table_name(table_name);
  auto reader = stub->ReadRows(&context, request);
  Versions versions;
  std::string row;
  std::string qualifier;
  std::string value;
  google::bigtable::v2::ReadRowsResponse response;
  while (reader->Read(&response)) {
    for (const auto& chunk : response.chunks()) {
      if (!chunk.row_key().empty()) row = chunk.row_key();
      if (chunk.has_qualifier()) qualifier = chunk.qualifier().value();
      value += chunk.value();
      if (chunk.value_size() == 0) {
        versions[{row, qualifier}].push_back(value);
        value.clear();
      }
    }
  }
  grpc::Status status = reader->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return versions;
}

class BigtableCrashTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BigtableCrashTest, NothingIsLostAndExplicitTimestampsKeepOneVersion) {
  const std::string& mode = GetParam();
  const bool explicit_timestamps = mode == "explicit";
  ASSERT_TRUE(
      ::gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kBigtable)
          .ok());
  auto channel = auth::MakeChannel(auth::Service::kBigtable);
  ASSERT_TRUE(channel.ok());
  const std::string table = absl::StrCat("cells-", mode, "-", getpid());
  ASSERT_TRUE(emulators::EnsureBigtableTable(*channel, kProject, kInstance,
                                             table, {"cf"})
                  .ok());
  const std::string table_name = absl::StrCat(
      "projects/", kProject, "/instances/", kInstance, "/tables/", table);
  const std::string root = ::testing::TempDir() + "/bigtable-crash-" + mode +
                           "-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const auto seed = static_cast<uint32_t>(absl::ToUnixMicros(absl::Now()));
  std::cout << "random seed " << seed << "\n";

  absl::StatusOr<std::string> final_output =
      ::gcpstream::testing::RunWithRandomKills(
          {.program = GCPSTREAM_BIGTABLE_CRASH_PIPELINE,
           .args = {"--checkpoint-dir", root + "/checkpoints", "--table",
                    table_name, "--records", absl::StrCat(kRecords), "--keys",
                    absl::StrCat(kKeys), "--rate", "4000", "--timestamps",
                    mode},
           .checkpoint_dir = root + "/checkpoints",
           .log_dir = root,
           .kills = 6,
           .seed = seed});
  ASSERT_TRUE(final_output.ok()) << final_output.status();
  std::cout << *final_output;
  // The final run must have resumed from a checkpoint, or nothing was
  // replayed and the test proves little.
  EXPECT_THAT(*final_output, ::testing::ContainsRegex("resumed from [1-9]"));

  const Versions versions = ReadVersions(*channel, table_name);
  ASSERT_EQ(versions.size(), static_cast<size_t>(kRecords)) << "seed " << seed;
  int64_t replayed = 0;
  for (int64_t i = 0; i < kRecords; ++i) {
    auto it = versions.find(
        {absl::StrCat("row-", i % kKeys), absl::StrCat("c", i / kKeys)});
    ASSERT_NE(it, versions.end()) << "record " << i << " lost; seed " << seed;
    for (const std::string& value : it->second) {
      ASSERT_EQ(value, absl::StrCat(i)) << "record " << i << "; seed " << seed;
    }
    if (explicit_timestamps) {
      ASSERT_EQ(it->second.size(), 1u) << "record " << i << "; seed " << seed;
    }
    replayed += static_cast<int64_t>(it->second.size()) - 1;
  }
  std::cout << mode << ": " << replayed
            << " cells got a second version from replays\n";
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Timestamps, BigtableCrashTest,
                         ::testing::Values("explicit", "writer-clock"));

}  // namespace
}  // namespace gcpstream::bigtable

#include "gcpstream/runtime/checkpoint_storage.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CheckpointStorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        ::testing::TempDir() + "/checkpoints-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  static CheckpointData Data(int64_t id) {
    CheckpointData data;
    data.id = id;
    data.pipeline = "p";
    data.source_splits["source-0"] = {Split{"a", std::string("\x00\x01", 2)},
                                      Split{"b", "42"}};
    data.sink_states["sink-0"] = {"state-0", ""};
    data.committables["sink-0"] = {"commit-me"};
    return data;
  }

  std::string directory_;
};

TEST_F(CheckpointStorageTest, RoundTripsEveryField) {
  auto storage = CheckpointStorage::Open(directory_, 3);
  ASSERT_TRUE(storage.ok()) << storage.status();
  auto empty = storage->LoadLatest();
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
  CheckpointData data = Data(7);
  data.final = true;
  ASSERT_TRUE(storage->Write(data).ok());
  auto loaded = storage->LoadLatest();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->has_value());
  const CheckpointData& back = **loaded;
  EXPECT_EQ(back.id, 7);
  EXPECT_TRUE(back.final);
  ASSERT_EQ(back.source_splits.at("source-0").size(), 2u);
  EXPECT_EQ(back.source_splits.at("source-0")[0].state,
            std::string("\x00\x01", 2));
  EXPECT_THAT(back.sink_states.at("sink-0"), ElementsAre("state-0", ""));
  EXPECT_THAT(back.committables.at("sink-0"), ElementsAre("commit-me"));
}

TEST_F(CheckpointStorageTest, KeepsTheLastNAndLoadsTheNewest) {
  auto storage = CheckpointStorage::Open(directory_, 2);
  ASSERT_TRUE(storage.ok());
  for (int64_t id : {1, 2, 3, 10}) ASSERT_TRUE(storage->Write(Data(id)).ok());
  EXPECT_THAT(*storage->List(), ElementsAre(3, 10));
  EXPECT_EQ((*storage->LoadLatest())->id, 10);
}

TEST_F(CheckpointStorageTest, TemporaryFilesOfACrashedWriteAreIgnored) {
  auto storage = CheckpointStorage::Open(directory_, 3);
  ASSERT_TRUE(storage.ok());
  ASSERT_TRUE(storage->Write(Data(4)).ok());
  std::ofstream(directory_ + "/chk-00000000000000000005.json.tmp") << "{tor";
  EXPECT_EQ((*storage->LoadLatest())->id, 4);
}

TEST_F(CheckpointStorageTest, CorruptLatestIsAnErrorNotASilentFallback) {
  auto storage = CheckpointStorage::Open(directory_, 3);
  ASSERT_TRUE(storage.ok());
  ASSERT_TRUE(storage->Write(Data(4)).ok());
  std::ofstream(directory_ + "/chk-00000000000000000005.json") << "garbage";
  auto loaded = storage->LoadLatest();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.status().message(), HasSubstr("chk-00000000000000000005"));
}

TEST_F(CheckpointStorageTest, RetentionMustBePositive) {
  auto storage = CheckpointStorage::Open(directory_, 0);
  ASSERT_FALSE(storage.ok());
  EXPECT_THAT(storage.status().message(), HasSubstr("checkpoint-retention"));
}

}  // namespace
}  // namespace gcpstream::runtime

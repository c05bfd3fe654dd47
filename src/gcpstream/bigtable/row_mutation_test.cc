#include "gcpstream/bigtable/row_mutation.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigtable {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1'700'000'000'123'000;

absl::StatusOr<CheckedEntry> Prepare(RowMutationEntry& entry) {
  return PrepareEntry(entry.mutable_entry(), [] { return kNow; });
}

std::string Refusal(RowMutationEntry entry) {
  absl::StatusOr<CheckedEntry> checked = Prepare(entry);
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(checked.status().message());
}

TEST(RowMutationTest, WriterClockCellsAreStampedAndIdempotent) {
  RowMutationEntry entry("row");
  entry.SetCell("cf", "a", "1").SetCell("cf", "b", "2", 5'000);
  absl::StatusOr<CheckedEntry> checked = Prepare(entry);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_TRUE(checked->idempotent);
  EXPECT_EQ(entry.entry().mutations(0).set_cell().timestamp_micros(), kNow);
  EXPECT_EQ(entry.entry().mutations(1).set_cell().timestamp_micros(), 5'000);
  EXPECT_EQ(checked->bytes, static_cast<int64_t>(entry.entry().ByteSizeLong()));
}

TEST(RowMutationTest, ServerTimestampedCellsAreNotIdempotent) {
  RowMutationEntry entry("row");
  entry.SetCellWithServerTimestamp("cf", "a", "1");
  absl::StatusOr<CheckedEntry> checked = Prepare(entry);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_FALSE(checked->idempotent);
  EXPECT_EQ(entry.entry().mutations(0).set_cell().timestamp_micros(), -1);
}

TEST(RowMutationTest, DeletionsAreChecked) {
  RowMutationEntry entry("row");
  entry.DeleteCells("cf", "a")
      .DeleteCells("cf", "b", 1'000, 2'000)
      .DeleteFamily("old")
      .DeleteRow();
  ASSERT_TRUE(Prepare(entry).ok());
  EXPECT_EQ(entry.mutation_count(), 4);
  EXPECT_THAT(
      Refusal(RowMutationEntry("r").DeleteCells("cf", "a", 5'000, 2'000)),
      HasSubstr("ends before it starts"));
  EXPECT_THAT(Refusal(RowMutationEntry("r").DeleteCells("cf", "a", 1'500)),
              HasSubstr("multiples of 1000"));
  EXPECT_THAT(Refusal(RowMutationEntry("r").DeleteFamily("")),
              HasSubstr("empty column family"));
}

TEST(RowMutationTest, TheServicesLimitsAreEnforcedHere) {
  EXPECT_THAT(Refusal(RowMutationEntry("").SetCell("cf", "q", "v", 0)),
              HasSubstr("row key is empty"));
  EXPECT_THAT(
      Refusal(
          RowMutationEntry(std::string(4097, 'k')).SetCell("cf", "q", "v", 0)),
      HasSubstr("4097 bytes; Bigtable's limit is 4096"));
  EXPECT_TRUE(
      Prepare(
          RowMutationEntry(std::string(4096, 'k')).SetCell("cf", "q", "v", 0))
          .ok());
  EXPECT_THAT(Refusal(RowMutationEntry("r")), HasSubstr("no mutations"));
  EXPECT_THAT(Refusal(RowMutationEntry("r").SetCell("cf", "q", "v", 1'500)),
              HasSubstr("multiple of 1000"));
  EXPECT_THAT(Refusal(RowMutationEntry("r").SetCell("cf", "q", "v", -5'000)),
              HasSubstr("multiple of 1000"));
  EXPECT_THAT(Refusal(RowMutationEntry("r").SetCell("", "q", "v", 0)),
              HasSubstr("mutation #0 has an empty column family"));
  RowMutationEntry many("r");
  for (int i = 0; i <= kMaxMutationsPerEntry; ++i) many.DeleteRow();
  EXPECT_THAT(Refusal(std::move(many)), HasSubstr("100001 mutations"));
  EXPECT_THAT(Refusal(RowMutationEntry("r").SetCell(
                  "cf", "q", std::string(kMaxCellValueBytes + 1, 'x'), 0)),
              HasSubstr("Bigtable's limit is 104857600 bytes per cell"));
  RowMutationEntry large("r");
  for (int i = 0; i < 3; ++i) {
    large.SetCell("cf", "q", std::string(kMaxCellValueBytes, 'x'), 0);
  }
  EXPECT_THAT(Refusal(std::move(large)), HasSubstr("bytes per row"));
}

TEST(RowMutationTest, ForEachFamilyNamesEveryFamily) {
  RowMutationEntry entry("r");
  entry.SetCell("a", "q", "v", 0)
      .DeleteCells("b", "q")
      .DeleteFamily("c")
      .DeleteRow();
  std::string seen;
  ForEachFamily(entry.entry(), [&](absl::string_view family) {
    seen.append(family.data(), family.size());
  });
  EXPECT_EQ(seen, "abc");
}

}  // namespace
}  // namespace gcpstream::bigtable

#include "gcpstream/iceberg/add_files/add_files.h"

#include <functional>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/time/clock.h"
#include "gcpstream/iceberg/add_files/add_files_test_fixture.h"
#include "gcpstream/iceberg/spec/name_mapping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Adding files through commits that lose races, run out of retries or have
// an unknown outcome (add_files_test: what gets added).
namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::AddFilesTest;

// A suite of its own: the add-files tests share one test executable.
class AddFilesCommitTest : public AddFilesTest {};
using ::gcpstream::iceberg::testing::CatalogKind;
using ::testing::HasSubstr;
using Json = nlohmann::json;

INSTANTIATE_TEST_SUITE_P(Catalogs, AddFilesCommitTest,
                         ::testing::Values(CatalogKind::kFilesystem,
                                           CatalogKind::kRest),
                         testing::CatalogName);

// A catalog that lets another writer commit first, once: the commit that
// loses is planned and tried again against what the winner left.
class RacingCatalog final : public Catalog {
 public:
  RacingCatalog(Catalog& inner, std::function<void()> rival)
      : inner_(inner), rival_(std::move(rival)) {}
  absl::StatusOr<LoadedTable> Load(const TableIdentifier& table) override {
    return inner_.Load(table);
  }
  absl::StatusOr<LoadedTable> Create(const TableIdentifier& table,
                                     const TableCreation& creation) override {
    return inner_.Create(table, creation);
  }
  absl::StatusOr<LoadedTable> Commit(const TableIdentifier& table,
                                     const LoadedTable& base,
                                     const TableChange& change) override {
    ++commits;
    if (always_lose) {
      return absl::AbortedError("another writer committed first");
    }
    if (rival_ != nullptr) std::exchange(rival_, nullptr)();
    absl::StatusOr<LoadedTable> committed = inner_.Commit(table, base, change);
    if (committed.ok() && report_unknown_once) {
      report_unknown_once = false;
      return absl::UnknownError("connection reset after the commit");
    }
    return committed;
  }
  int commits = 0;
  bool report_unknown_once = false;
  bool always_lose = false;

 private:
  Catalog& inner_;
  std::function<void()> rival_;
};

TEST_P(AddFilesCommitTest, ACommitThatLosesARaceIsRetriedAgainstTheWinner) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  RacingCatalog racing(
      *catalog_, [this] { ASSERT_TRUE(Add({"orders_own_ids.parquet"}).ok()); });
  absl::StatusOr<AddFilesResult> result =
      AddTo(racing, {"orders_b.parquet"},
            Evolving({EvolutionOption::kAllowFieldAddition}));
  ASSERT_TRUE(result.ok()) << result.status();
  // The filesystem catalog refuses any commit from a stale version: the
  // schema commit loses, is planned again and wins, then the data commit.
  // A REST server checks only what the commit asserts (the schema commit
  // asserts the current schema and last column id, which the rival's
  // append left alone), so nothing is lost there.
  EXPECT_EQ(racing.commits, GetParam() == CatalogKind::kFilesystem ? 3 : 2);
  const Json checked =
      Check({"orders_a.parquet", "orders_own_ids.parquet", "orders_b.parquet"});
  EXPECT_EQ(checked["snapshots"], 3);
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
}

TEST_P(AddFilesCommitTest, TheTablesRetryPropertiesBoundTheAttempts) {
  TableCreation creation;
  creation.schema = Schema{
      0,
      {iceberg::Field{1, "id", true, Primitive(TypeKind::kLong), ""},
       iceberg::Field{2, "amount", false, Primitive(TypeKind::kInt), ""}}};
  creation.last_column_id = 2;
  creation.properties = {
      {kNameMappingProperty, NameMappingToJson(NameMappingOf(creation.schema))},
      {"commit.retry.num-retries", "2"},
      {"commit.retry.min-wait-ms", "1"},
      {"commit.retry.max-wait-ms", "0"}};  // Raised to the minimum.
  absl::StatusOr<LoadedTable> created = catalog_->Create(table_, creation);
  ASSERT_TRUE(created.ok()) << created.status();
  RacingCatalog losing(*catalog_, nullptr);
  losing.always_lose = true;
  const absl::Time start = absl::Now();
  absl::StatusOr<AddFilesResult> result =
      AddTo(losing, {"orders_own_ids.parquet"});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(result.status().message(), HasSubstr("gave up after 3 attempts"));
  EXPECT_EQ(losing.commits, 3);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_P(AddFilesCommitTest, ACommitOfUnknownOutcomeIsFoundNotRepeated) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  RacingCatalog unknown(*catalog_, nullptr);
  unknown.report_unknown_once = true;
  absl::StatusOr<AddFilesResult> result =
      AddTo(unknown, {"orders_own_ids.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(unknown.commits, 1);
  ASSERT_TRUE(result->snapshot.has_value());
  const Json checked = Check({"orders_a.parquet", "orders_own_ids.parquet"});
  EXPECT_EQ(checked["snapshots"], 2);
  EXPECT_TRUE(checked["equal"]) << checked.dump();
}

}  // namespace
}  // namespace gcpstream::iceberg

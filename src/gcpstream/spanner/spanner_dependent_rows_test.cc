// Rows that depend on each other (interleaved children, foreign keys)
// against a scripted BatchWrite that applies mutation groups in reverse
// order, as the service may: nothing may be refused for being applied before
// the row it depends on.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gcpstream/spanner/spanner_sink_fixture.h"

namespace gcpstream::spanner {
namespace {

using ::gcpstream::spanner::testing::AddRow;
using ::gcpstream::spanner::testing::kBatchWrite;
using ::gcpstream::spanner::testing::kCommit;
using ::gcpstream::spanner::testing::kExecuteSql;
using ::gcpstream::spanner::testing::SpannerSinkTest;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::RespondStream;
using ::gcpstream::testing::Typed;
using ::google::spanner::v1::BatchWriteRequest;
using ::google::spanner::v1::BatchWriteResponse;
using ::google::spanner::v1::ExecuteSqlRequest;
using ::google::spanner::v1::ResultSet;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Singers(SingerId)
//   Albums(SingerId, AlbumId) INTERLEAVE IN PARENT Singers
//     Songs(SingerId, AlbumId, SongId) INTERLEAVE IN PARENT Albums
// Reviews(ReviewId, SingerId) FOREIGN KEY (SingerId) REFERENCES Singers
// Labels(LabelId): on its own.
const std::map<std::string, std::vector<std::string>>& Keys() {
  static const std::map<std::string, std::vector<std::string>> kKeys = {
      {"Singers", {"SingerId"}},
      {"Albums", {"SingerId", "AlbumId"}},
      {"Songs", {"SingerId", "AlbumId", "SongId"}},
      {"Reviews", {"ReviewId"}},
      {"Labels", {"LabelId"}}};
  return kKeys;
}

Reply FamilySchema(const ExecuteSqlRequest& request) {
  ResultSet result;
  if (absl::StrContains(request.sql(), "REFERENTIAL_CONSTRAINTS")) {
    AddRow(result, {"", "Albums", "INTERLEAVE", "", "Singers"});
    AddRow(result, {"", "Songs", "INTERLEAVE", "", "Albums"});
    AddRow(result, {"", "Reviews", "FOREIGN_KEY", "", "Singers"});
  } else if (absl::StrContains(request.sql(), "INDEX_COLUMNS")) {
    for (const auto& [table, key] : Keys()) {
      for (size_t i = 0; i < key.size(); ++i) {
        AddRow(result, {"", table, "PRIMARY_KEY", "PRIMARY_KEY", key[i],
                        absl::StrCat(i + 1)});
      }
    }
  } else {
    for (const auto& [table, key] : Keys()) {
      for (const std::string& column : key) {
        AddRow(result, {"", table, column, "INT64", "NO"});
      }
    }
    AddRow(result, {"", "Reviews", "SingerId", "INT64", "NO"});
  }
  return Respond(result);
}

// A record: one row of one table (its key, and for Reviews the singer).
struct FamilyRow {
  std::string table;
  std::vector<int64_t> key;
  int64_t singer = 0;   // Reviews only.
  bool remove = false;  // A delete instead of an insert.
};

absl::StatusOr<std::optional<Mutation>> ToMutation(const FamilyRow& row,
                                                   const WriterContext&) {
  const std::vector<std::string>& columns = Keys().at(row.table);
  if (row.remove) {
    std::vector<Value> key;
    key.reserve(row.key.size());
    for (int64_t part : row.key) key.push_back(Value::Int64(part));
    return Mutation::Delete(row.table).Key(std::move(key));
  }
  Mutation mutation = Mutation::Insert(row.table);
  for (size_t i = 0; i < columns.size(); ++i) {
    mutation.Set(columns[i], Value::Int64(row.key[i]));
  }
  if (row.table == "Reviews") {
    mutation.Set("SingerId", Value::Int64(row.singer));
  }
  return mutation;
}

// The database behind the scripted BatchWrite: applies each request's groups
// last to first, each group's mutations in order and atomically, with
// Spanner's refusals for a child without its parent (NOT_FOUND), a review of
// a missing singer and a row deleted under its children or reviews
// (FAILED_PRECONDITION), and an existing key (ALREADY_EXISTS).
class ReversingDatabase {
 public:
  Reply Apply(const BatchWriteRequest& request) {
    std::vector<BatchWriteResponse> responses;
    for (int g = request.mutation_groups_size() - 1; g >= 0; --g) {
      State state = state_;
      absl::Status status;
      for (const auto& mutation : request.mutation_groups(g).mutations()) {
        status = ApplyOne(mutation, state);
        if (!status.ok()) break;
      }
      if (status.ok()) state_ = std::move(state);
      BatchWriteResponse& response = responses.emplace_back();
      response.add_indexes(g);
      response.mutable_status()->set_code(static_cast<int>(status.code()));
      response.mutable_status()->set_message(std::string(status.message()));
    }
    std::vector<const google::protobuf::Message*> out;
    out.reserve(responses.size());
    for (const auto& response : responses) out.push_back(&response);
    return RespondStream(out);
  }

  // A commit (rejection confirmation sends one mutation each).
  Reply Commit(const google::spanner::v1::CommitRequest& request) {
    State state = state_;
    for (const auto& mutation : request.mutations()) {
      if (absl::Status status = ApplyOne(mutation, state); !status.ok()) {
        return ::gcpstream::testing::Fail(
            static_cast<grpc::StatusCode>(status.code()),
            std::string(status.message()));
      }
    }
    state_ = std::move(state);
    return Respond(google::spanner::v1::CommitResponse());
  }

  // Every row, as "Table(key,...)".
  std::set<std::string> rows() const {
    std::set<std::string> out;
    for (const auto& [table, key] : state_.rows) out.insert(Name(table, key));
    return out;
  }

 private:
  using Key = std::vector<std::string>;
  struct State {
    std::set<std::pair<std::string, Key>> rows;
    std::map<Key, Key> singer_of_review;
  };

  static std::string Name(const std::string& table, const Key& key) {
    return absl::StrCat(table, "(", absl::StrJoin(key, ","), ")");
  }
  static Key KeyOf(const google::protobuf::ListValue& values, size_t parts) {
    Key key;
    for (size_t i = 0; i < parts; ++i) {
      key.push_back(values.values(static_cast<int>(i)).string_value());
    }
    return key;
  }
  // Whether `table` is interleaved (at any depth) under `ancestor`.
  static bool Under(const std::string& table, const std::string& ancestor) {
    if (table == "Songs") return ancestor == "Albums" || ancestor == "Singers";
    if (table == "Albums") return ancestor == "Singers";
    return false;
  }

  static absl::Status ApplyOne(const google::spanner::v1::Mutation& mutation,
                               State& state) {
    if (mutation.has_delete_()) {
      const std::string& table = mutation.delete_().table();
      for (const auto& values : mutation.delete_().key_set().keys()) {
        const Key key = KeyOf(values, Keys().at(table).size());
        for (const auto& [other_table, other_key] : state.rows) {
          if (Under(other_table, table) &&
              Key(other_key.begin(),
                  other_key.begin() +
                      static_cast<std::ptrdiff_t>(key.size())) == key) {
            return absl::FailedPreconditionError(
                absl::StrCat("cannot delete ", Name(table, key), ": ",
                             Name(other_table, other_key), " exists"));
          }
        }
        for (const auto& [review, singer] : state.singer_of_review) {
          if (table == "Singers" && singer == key) {
            return absl::FailedPreconditionError(
                absl::StrCat("cannot delete ", Name(table, key), ": ",
                             Name("Reviews", review), " references it"));
          }
        }
        state.rows.erase({table, key});
        state.singer_of_review.erase(key);
      }
      return absl::OkStatus();
    }
    const auto& write = mutation.insert();
    const std::string& table = write.table();
    const auto& values = write.values(0);
    const Key key = KeyOf(values, Keys().at(table).size());
    for (const char* parent : {"Singers", "Albums"}) {
      const size_t parts = Keys().at(parent).size();
      if (Under(table, parent) &&
          !state.rows.contains({parent, KeyOf(values, parts)})) {
        return absl::NotFoundError(
            absl::StrCat("parent ", Name(parent, KeyOf(values, parts)), " of ",
                         Name(table, key), " is missing"));
      }
    }
    if (table == "Reviews") {
      const Key singer = {values.values(1).string_value()};
      if (!state.rows.contains({"Singers", singer})) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Foreign key constraint violated: ", Name("Singers", singer),
            " is missing"));
      }
      state.singer_of_review[key] = singer;
    }
    if (!state.rows.insert({table, key}).second) {
      return absl::AlreadyExistsError(
          absl::StrCat(Name(table, key), " already exists"));
    }
    return absl::OkStatus();
  }

  State state_;
};

class SpannerDependentRowsTest : public SpannerSinkTest {
 protected:
  void SetUp() override {
    SpannerSinkTest::SetUp();
    server_->SetDefault(kExecuteSql, Typed<ExecuteSqlRequest>(FamilySchema));
    server_->SetDefault(kBatchWrite,
                        Typed<BatchWriteRequest>([this](const auto& request) {
                          return database_->Apply(request);
                        }));
    server_->SetDefault(kCommit, Typed<google::spanner::v1::CommitRequest>(
                                     [this](const auto& request) {
                                       return database_->Commit(request);
                                     }));
  }

  // The groups of every BatchWrite, each as "Table(key) Table(key)".
  std::vector<std::vector<std::string>> Groups() const {
    std::vector<std::vector<std::string>> requests;
    for (const auto& recorded : server_->Requests(kBatchWrite)) {
      const auto& request =
          static_cast<const BatchWriteRequest&>(*recorded.message);
      std::vector<std::string>& groups = requests.emplace_back();
      for (const auto& group : request.mutation_groups()) {
        std::vector<std::string> names;
        for (const auto& mutation : group.mutations()) {
          const auto& key = mutation.has_delete_()
                                ? mutation.delete_().key_set().keys(0)
                                : mutation.insert().values(0);
          const std::string& table = mutation.has_delete_()
                                         ? mutation.delete_().table()
                                         : mutation.insert().table();
          std::vector<std::string> parts;
          parts.reserve(Keys().at(table).size());
          for (size_t i = 0; i < Keys().at(table).size(); ++i) {
            parts.push_back(key.values(static_cast<int>(i)).string_value());
          }
          names.push_back(absl::StrCat(mutation.has_delete_() ? "-" : "", table,
                                       "(", absl::StrJoin(parts, ","), ")"));
        }
        groups.push_back(absl::StrJoin(names, " "));
      }
    }
    return requests;
  }

  std::shared_ptr<ReversingDatabase> database_ =
      std::make_shared<ReversingDatabase>();
};

TEST_F(SpannerDependentRowsTest, ParentsAndChildrenShareAGroupInOrder) {
  auto writer = WriterOf<FamilyRow>(Options(), ToMutation);
  ASSERT_TRUE(writer.ok()) << writer.status();
  const std::vector<FamilyRow> rows = {
      {"Singers", {1}},     {"Albums", {1, 1}},   {"Labels", {7}},
      {"Albums", {1, 2}},   {"Singers", {2}},     {"Songs", {1, 2, 1}},
      {"Albums", {2, 1}},   {"Labels", {8}},      {"Songs", {2, 1, 1}},
      {"Reviews", {10}, 1}, {"Reviews", {11}, 2}, {"Singers", {3}},
      {"Reviews", {12}, 3}, {"Albums", {3, 1}},
  };
  for (const FamilyRow& row : rows) {
    ASSERT_TRUE(Write(**writer, row).ok());
  }
  ASSERT_TRUE((*writer)->Flush(false).ok());
  EXPECT_THAT(*failures_, IsEmpty());
  EXPECT_EQ(database_->rows().size(), rows.size());
  // One group per root key, in arrival order; a table of the foreign-key
  // family with another hierarchy in the batch starts a new batch.
  EXPECT_THAT(
      Groups(),
      ElementsAre(
          ElementsAre("Singers(1) Albums(1,1) Albums(1,2) Songs(1,2,1)",
                      "Labels(7)", "Singers(2) Albums(2,1) Songs(2,1,1)",
                      "Labels(8)"),
          ElementsAre("Reviews(10)", "Reviews(11)"), ElementsAre("Singers(3)"),
          ElementsAre("Reviews(12)"), ElementsAre("Albums(3,1)")));
  (*writer)->Close();
}

TEST_F(SpannerDependentRowsTest, ChildrenAreDeletedBeforeTheirParent) {
  auto writer = WriterOf<FamilyRow>(Options(), ToMutation);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const FamilyRow& row : std::vector<FamilyRow>{
           {"Singers", {1}}, {"Albums", {1, 1}}, {"Songs", {1, 1, 1}}}) {
    ASSERT_TRUE(Write(**writer, row).ok());
  }
  ASSERT_TRUE((*writer)->Flush(false).ok());
  for (const FamilyRow& row :
       std::vector<FamilyRow>{{"Songs", {1, 1, 1}, 0, true},
                              {"Albums", {1, 1}, 0, true},
                              {"Singers", {1}, 0, true}}) {
    ASSERT_TRUE(Write(**writer, row).ok());
  }
  ASSERT_TRUE((*writer)->Flush(false).ok());
  EXPECT_THAT(*failures_, IsEmpty());
  EXPECT_THAT(database_->rows(), IsEmpty());
  (*writer)->Close();
}

// A group refused for one of its mutations does not say which: each is
// committed alone, in order, so the parent lands and only the refused child
// is routed.
TEST_F(SpannerDependentRowsTest, ARefusedGroupIsDecidedMutationByMutation) {
  auto writer = WriterOf<FamilyRow>(Options(), ToMutation);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(Write(**writer, FamilyRow{"Singers", {5}}).ok());
  ASSERT_TRUE(Write(**writer, FamilyRow{"Albums", {5, 1}}).ok());
  ASSERT_TRUE((*writer)->Flush(false).ok());
  // One group under Singers(5): a new album, the existing one again, and a
  // song of the new album.
  for (const FamilyRow& row : std::vector<FamilyRow>{
           {"Albums", {5, 2}}, {"Albums", {5, 1}}, {"Songs", {5, 2, 1}}}) {
    ASSERT_TRUE(Write(**writer, row).ok());
  }
  ASSERT_TRUE((*writer)->Flush(false).ok());
  ASSERT_EQ(failures_->size(), 1u);
  EXPECT_EQ(failures_->front().attributes.at("table"), "Albums");
  EXPECT_EQ(failures_->front().status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(database_->rows().contains("Albums(5,2)"));
  EXPECT_TRUE(database_->rows().contains("Songs(5,2,1)"));
  (*writer)->Close();
}

}  // namespace
}  // namespace gcpstream::spanner

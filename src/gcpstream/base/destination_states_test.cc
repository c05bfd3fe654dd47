#include "gcpstream/base/destination_states.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct TableDestination : DestinationIdentity<TableDestination> {
  std::string table;
  std::string display_hint;  // Not part of the identity.
  std::string ResourceName() const { return "tables/" + table; }
};

TableDestination Table(const std::string& name, const std::string& hint = "") {
  TableDestination destination;
  destination.table = name;
  destination.display_hint = hint;
  return destination;
}

struct FakeState {
  std::string name;
  std::vector<std::string>* released = nullptr;
  int in_flight = 0;
  absl::Status release_status;

  bool IsClean() const { return in_flight == 0; }
  absl::Status Release() const {
    released->push_back(name);
    return release_status;
  }
};

using States = DestinationStates<TableDestination, FakeState>;

class DestinationStatesTest : public ::testing::Test {
 protected:
  States Make(DestinationStatesOptions options) {
    return States(options,
                  [this](const TableDestination& destination)
                      -> absl::StatusOr<std::unique_ptr<FakeState>> {
                    if (destination.table == "broken") {
                      return absl::UnavailableError("cannot open broken");
                    }
                    created_.push_back(destination.table);
                    auto state = std::make_unique<FakeState>();
                    state->name = destination.table;
                    state->released = &released_;
                    return state;
                  });
  }

  static FakeState* AcquireOrDie(States& states, const std::string& table,
                                 absl::Time now) {
    auto acquired = states.Acquire(Table(table), now);
    EXPECT_TRUE(acquired.ok()) << acquired.status();
    EXPECT_FALSE(acquired->must_wait);
    return acquired->state;
  }

  const absl::Time t0_ = absl::UnixEpoch();
  std::vector<std::string> created_;
  std::vector<std::string> released_;
};

TEST_F(DestinationStatesTest, CreatesLazilyOncePerResourceName) {
  States states = Make({});
  EXPECT_EQ(states.size(), 0u);
  FakeState* first = AcquireOrDie(states, "a", t0_);
  auto again = states.Acquire(Table("a", "other hint"), t0_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->state, first);
  EXPECT_THAT(created_, ElementsAre("a"));
  EXPECT_EQ(states.stats().created, 1);
  EXPECT_EQ(states.Find(Table("a")), first);
  EXPECT_EQ(states.Find(Table("b")), nullptr);
}

TEST_F(DestinationStatesTest, FactoryErrorFailsTheAcquire) {
  States states = Make({});
  auto acquired = states.Acquire(Table("broken"), t0_);
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(states.size(), 0u);
}

TEST_F(DestinationStatesTest, SweepReleasesOnlyIdleCleanStates) {
  States states = Make({.idle_timeout = absl::Minutes(10)});
  AcquireOrDie(states, "old", t0_);
  FakeState* busy = AcquireOrDie(states, "old-busy", t0_);
  busy->in_flight = 1;
  AcquireOrDie(states, "recent", t0_ + absl::Minutes(5));

  // Exactly at the timeout is not yet idle for longer than it.
  ASSERT_TRUE(states.SweepIdle(t0_ + absl::Minutes(10)).ok());
  EXPECT_THAT(released_, IsEmpty());

  ASSERT_TRUE(states.SweepIdle(t0_ + absl::Minutes(11)).ok());
  EXPECT_THAT(released_, ElementsAre("old"));
  EXPECT_EQ(states.stats().evicted_idle, 1);
  EXPECT_NE(states.Find(Table("old-busy")), nullptr);
  EXPECT_NE(states.Find(Table("recent")), nullptr);

  // A state recreated later is a new one, transparently.
  AcquireOrDie(states, "old", t0_ + absl::Minutes(12));
  EXPECT_THAT(created_, ElementsAre("old", "old-busy", "recent", "old"));
}

TEST_F(DestinationStatesTest, UseResetsTheIdleClock) {
  States states = Make({.idle_timeout = absl::Minutes(10)});
  AcquireOrDie(states, "a", t0_);
  AcquireOrDie(states, "a", t0_ + absl::Minutes(9));
  ASSERT_TRUE(states.SweepIdle(t0_ + absl::Minutes(15)).ok());
  EXPECT_THAT(released_, IsEmpty());
}

TEST_F(DestinationStatesTest, CapacityEvictsLeastRecentlyUsedCleanState) {
  States states = Make({.capacity = 2});
  FakeState* a = AcquireOrDie(states, "a", t0_);
  AcquireOrDie(states, "b", t0_ + absl::Seconds(1));
  a->in_flight = 3;  // "a" is older, but busy.
  AcquireOrDie(states, "c", t0_ + absl::Seconds(2));
  EXPECT_THAT(released_, ElementsAre("b"));
  EXPECT_EQ(states.size(), 2u);
  EXPECT_EQ(states.stats().evicted_capacity, 1);
}

TEST_F(DestinationStatesTest, AtCapacityWithNothingCleanTheWriterMustWait) {
  States states = Make({.capacity = 1});
  FakeState* a = AcquireOrDie(states, "a", t0_);
  a->in_flight = 1;
  auto blocked = states.Acquire(Table("b"), t0_);
  ASSERT_TRUE(blocked.ok());
  EXPECT_TRUE(blocked->must_wait);
  EXPECT_EQ(blocked->state, nullptr);
  EXPECT_EQ(states.size(), 1u);
  a->in_flight = 0;  // A completion arrived through the mailbox.
  EXPECT_NE(AcquireOrDie(states, "b", t0_), nullptr);
  EXPECT_THAT(released_, ElementsAre("a"));
}

TEST_F(DestinationStatesTest, ReleaseErrorFailsTheAcquireThatEvicts) {
  States states = Make({.capacity = 1});
  FakeState* a = AcquireOrDie(states, "a", t0_);
  a->release_status = absl::DeadlineExceededError("shutdown-timeout");
  auto acquired = states.Acquire(Table("b"), t0_);
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kDeadlineExceeded);
  // No replacement was opened after the failed shutdown.
  EXPECT_THAT(created_, ElementsAre("a"));
}

TEST_F(DestinationStatesTest, ReleaseAllReleasesEverything) {
  States states = Make({});
  AcquireOrDie(states, "a", t0_);
  AcquireOrDie(states, "b", t0_);
  ASSERT_TRUE(states.ReleaseAll().ok());
  EXPECT_THAT(released_, ::testing::UnorderedElementsAre("a", "b"));
  EXPECT_EQ(states.size(), 0u);
}

TEST_F(DestinationStatesTest, MetricsMirrorTheStates) {
  MetricsRegistry registry;
  auto metrics = DestinationMetrics::Create(
      registry, MetricLabels{"p", "bigtable-sink", 0, std::nullopt});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto shared = std::make_shared<DestinationMetrics>(*metrics);
  States states(
      {.idle_timeout = absl::Minutes(1), .capacity = 2},
      [this](const TableDestination& destination)
          -> absl::StatusOr<std::unique_ptr<FakeState>> {
        auto state = std::make_unique<FakeState>();
        state->name = destination.table;
        state->released = &released_;
        return state;
      },
      shared);
  AcquireOrDie(states, "a", t0_);
  AcquireOrDie(states, "b", t0_);
  AcquireOrDie(states, "c", t0_ + absl::Seconds(1));  // Evicts "a".
  EXPECT_EQ(shared->active->Value(), 2);
  ASSERT_TRUE(states.SweepIdle(t0_ + absl::Minutes(2)).ok());
  EXPECT_EQ(shared->active->Value(), 0);
  EXPECT_EQ(shared->created->Value(), 3u);
  EXPECT_EQ(shared->evicted_capacity->Value(), 1u);
  EXPECT_EQ(shared->evicted_idle->Value(), 2u);
  EXPECT_THAT(registry.ExportPrometheusText(),
              ::testing::HasSubstr("destinations_active{"));
}

// Random operations against a simple model of the LRU-of-clean rule: the
// bound is never exceeded, the state released is always the least recently
// used clean one, and the writer is told to wait exactly when none is clean.
TEST_F(DestinationStatesTest, RandomOperationsMatchTheModel) {
  constexpr size_t kCapacity = 4;
  std::mt19937 random(20261202);
  for (int round = 0; round < 50; ++round) {
    created_.clear();
    released_.clear();
    States states = Make({.capacity = kCapacity});
    struct ModelEntry {
      int last_used;
      bool clean;
    };
    std::map<std::string, ModelEntry> model;
    for (int step = 0; step < 400; ++step) {
      const std::string key = "t" + std::to_string(random() % 8);
      const int op = static_cast<int>(random() % 3);
      if (op == 0) {  // Acquire.
        std::optional<std::string> expected_victim;
        bool expect_wait = false;
        if (!model.contains(key) && model.size() >= kCapacity) {
          int oldest = INT32_MAX;
          for (const auto& [name, entry] : model) {
            if (entry.clean && entry.last_used < oldest) {
              oldest = entry.last_used;
              expected_victim = name;
            }
          }
          expect_wait = !expected_victim.has_value();
        }
        const size_t released_before = released_.size();
        auto acquired = states.Acquire(Table(key), t0_ + absl::Seconds(step));
        ASSERT_TRUE(acquired.ok());
        ASSERT_EQ(acquired->must_wait, expect_wait) << "step " << step;
        if (expected_victim.has_value()) {
          ASSERT_EQ(released_.size(), released_before + 1);
          ASSERT_EQ(released_.back(), *expected_victim) << "step " << step;
          model.erase(*expected_victim);
        } else {
          ASSERT_EQ(released_.size(), released_before);
        }
        if (!expect_wait) {
          auto [it, inserted] = model.try_emplace(key, ModelEntry{step, true});
          it->second.last_used = step;
        }
      } else if (FakeState* state = states.Find(Table(key))) {
        state->in_flight = op == 1 ? 1 : 0;  // Send, or complete.
        model.at(key).clean = state->in_flight == 0;
      }
      ASSERT_LE(states.size(), kCapacity);
      ASSERT_EQ(states.size(), model.size());
    }
  }
}

TEST(ResolveDestinationTest, FailureAndEmptyNameAreFatalAndNameTheRecord) {
  auto failing = MakeResolver<int, TableDestination>(
      [](const int&, const WriterContext&) -> absl::StatusOr<TableDestination> {
        return absl::InvalidArgumentError("no region field");
      });
  WriterContext context;
  context.record_position = 41;
  context.subtask_index = 3;
  auto failed = ResolveDestination(*failing, 7, context, "pubsub sink 'out'");
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(failed.status().message(),
              ::testing::AllOf(::testing::HasSubstr("pubsub sink 'out'"),
                               ::testing::HasSubstr("record #41"),
                               ::testing::HasSubstr("no region field")));

  struct Unnamed : DestinationIdentity<Unnamed> {
    static std::string ResourceName() { return ""; }
  };
  auto empty = MakeResolver<int, Unnamed>(
      [](const int&, const WriterContext&) -> absl::StatusOr<Unnamed> {
        return Unnamed{};
      });
  auto none = ResolveDestination(*empty, 7, context, "sink");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), ::testing::HasSubstr("no destination"));
}

// Identity fields stand in for the resource name: equal and hashed alike
// exactly when the names are, and any empty field is no destination.
struct FieldsDestination : DestinationIdentity<FieldsDestination> {
  std::string project;
  std::string topic;
  std::string ResourceName() const { return project + "/" + topic; }
  std::tuple<absl::string_view, absl::string_view> IdentityFields() const {
    return {project, topic};
  }
};

FieldsDestination Fields(std::string project, std::string topic) {
  FieldsDestination destination;
  destination.project = std::move(project);
  destination.topic = std::move(topic);
  return destination;
}

TEST(DestinationIdentityTest, IdentityFieldsCompareHashAndNameLikeTheName) {
  const FieldsDestination a = Fields("p", "t");
  const FieldsDestination same = Fields("p", "t");
  const FieldsDestination other = Fields("p", "u");
  EXPECT_TRUE(a == same);
  EXPECT_FALSE(a == other);
  EXPECT_EQ(absl::Hash<FieldsDestination>{}(a),
            absl::Hash<FieldsDestination>{}(same));
  EXPECT_NE(absl::Hash<FieldsDestination>{}(a),
            absl::Hash<FieldsDestination>{}(other));
  EXPECT_FALSE(IsUnnamed(a));
  EXPECT_TRUE(IsUnnamed(Fields("p", "")));
  EXPECT_TRUE(IsUnnamed(Fields("", "t")));

  auto half_named = MakeResolver<int, FieldsDestination>(
      [](const int&,
         const WriterContext&) -> absl::StatusOr<FieldsDestination> {
        return Fields("p", "");
      });
  auto none = ResolveDestination(*half_named, 7, WriterContext(), "sink");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), ::testing::HasSubstr("no destination"));
}

TEST(ResolveDestinationTest, SeesEventTimeAndWatermarkNotWallClock) {
  auto by_hour = MakeResolver<int, TableDestination>(
      [](const int&,
         const WriterContext& context) -> absl::StatusOr<TableDestination> {
        return Table(absl::FormatTime("%Y%m%d%H", *context.event_time,
                                      absl::UTCTimeZone()));
      });
  WriterContext context;
  context.event_time = absl::FromUnixSeconds(1'700'000'000);
  auto resolved = ResolveDestination(*by_hour, 1, context, "sink");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->ResourceName(), "tables/2023111422");
}

}  // namespace
}  // namespace gcpstream

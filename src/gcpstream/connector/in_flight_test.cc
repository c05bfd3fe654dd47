#include "gcpstream/connector/in_flight.h"

#include <memory>
#include <thread>

#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::HasSubstr;

constexpr ClassificationTable kInFlightTable(
    ClassificationTable::Level({}, StatusClass::kFatal),
    ClassificationTable::Level({}, StatusClass::kFatal));

struct Element : FailedElement {};

class InFlightTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime::SinkWriterContext context;
    context.mailbox = executor_;
    ASSERT_TRUE(core_
                    .Open(WriterCoreOptions{.connector = "t",
                                            .sink_name = "sink",
                                            .classification = &kInFlightTable,
                                            .clock = &clock_},
                          context, nullptr)
                    .ok());
  }

  static InFlightOptions Options() {
    return InFlightOptions{.max_records = 2,
                           .max_bytes = 100,
                           .progress_timeout = absl::Minutes(1),
                           .max_records_key = "max-in-flight-records",
                           .max_bytes_key = "max-in-flight-bytes",
                           .progress_timeout_key = "progress-timeout",
                           .completion = "write"};
  }

  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  runtime::MailboxExecutor executor_{&mailbox_};
  FakeClock clock_;
  ManualTimer timer_{clock_, executor_};
  WriterCore<Element> core_;
};

TEST_F(InFlightTest, CapsRecordsAndBytesButAlwaysAdmitsIntoAnEmptyWriter) {
  InFlight in_flight(Options(), core_, timer_, executor_);
  EXPECT_TRUE(in_flight.HasRoom(1000)) << "an oversized record still goes";
  in_flight.Add(1, 60);
  EXPECT_TRUE(in_flight.HasRoom(40));
  EXPECT_FALSE(in_flight.HasRoom(41));
  in_flight.Add(1, 10);
  EXPECT_FALSE(in_flight.HasRoom(0));
  EXPECT_EQ(core_.metrics().in_flight_records->Value(), 2);
  EXPECT_EQ(core_.metrics().in_flight_bytes->Value(), 70);
  in_flight.Release(2, 70);
  EXPECT_TRUE(in_flight.empty());
  EXPECT_EQ(core_.metrics().in_flight_records->Value(), 0);
}

TEST_F(InFlightTest, WaitForRoomSendsFirstThenServesCompletionsThatFreeRoom) {
  InFlight in_flight(Options(), core_, timer_, executor_);
  auto gauge = std::make_shared<Gauge>();
  in_flight.MirrorRecordsTo(gauge);
  in_flight.Add(2, 20);
  bool sent = false;
  std::thread completion(
      [&] { executor_.Post([&] { in_flight.Release(1, 10); }); });
  EXPECT_TRUE(in_flight.WaitForRoom(10, [&] { sent = true; }).ok());
  completion.join();
  EXPECT_TRUE(sent);
  EXPECT_EQ(in_flight.records(), 1);
  EXPECT_EQ(gauge->Value(), 1);
}

TEST_F(InFlightTest, NoCompletionForTheProgressTimeoutFailsTheWriter) {
  InFlight in_flight(Options(), core_, timer_, executor_);
  in_flight.Add(2, 20);
  std::thread advance([&] {
    while (timer_.pending() == 0) absl::SleepFor(absl::Milliseconds(1));
    timer_.Advance(absl::Minutes(1));
  });
  absl::Status status = in_flight.WaitUntil([&] { return in_flight.empty(); },
                                            "every write (Flush)");
  advance.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("sink: no write completed for 1m"));
  EXPECT_THAT(status.message(), HasSubstr("option 'progress-timeout'"));
  EXPECT_THAT(status.message(), HasSubstr("2 records are still in flight"));
  EXPECT_EQ(core_.failure(), status);
}

TEST_F(InFlightTest, EachCompletionMovesTheProgressDeadline) {
  InFlight in_flight(Options(), core_, timer_, executor_);
  in_flight.Add(2, 20);
  std::thread service([&] {
    // 50 s, a completion, 50 s more: never a minute without progress.
    while (timer_.pending() == 0) absl::SleepFor(absl::Milliseconds(1));
    timer_.Advance(absl::Seconds(50));
    executor_.Post([&] { in_flight.Release(1, 10); });
    absl::SleepFor(absl::Milliseconds(20));
    timer_.Advance(absl::Seconds(50));
    executor_.Post([&] { in_flight.Release(1, 10); });
  });
  absl::Status status =
      in_flight.WaitUntil([&] { return in_flight.empty(); }, "Flush");
  service.join();
  EXPECT_TRUE(status.ok()) << status;
}

TEST_F(InFlightTest, AWaitEndsAtTheWritersFirstFailure) {
  InFlight in_flight(Options(), core_, timer_, executor_);
  in_flight.Add(1, 1);
  std::thread failure([&] {
    executor_.Post([&] { core_.Fail(absl::PermissionDeniedError("no")); });
  });
  EXPECT_EQ(in_flight.WaitUntil([] { return false; }, "Flush"),
            absl::PermissionDeniedError("no"));
  failure.join();
}

TEST_F(InFlightTest, ACancelledJobStopsTheWait) {
  std::atomic<bool> cancelled{true};
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>(), &cancelled);
  runtime::MailboxExecutor executor(&mailbox);
  ManualTimer timer(clock_, executor);
  InFlight in_flight(Options(), core_, timer, executor);
  in_flight.Add(2, 2);
  absl::Status status = in_flight.WaitForRoom(1, [] {});
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(status.message(), HasSubstr("max-in-flight-records"));
  EXPECT_FALSE(core_.failed());
}

}  // namespace
}  // namespace gcpstream::connector

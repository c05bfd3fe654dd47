#include "gcpstream/base/async_failure.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace gcpstream {
namespace {

TEST(AsyncFailureTest, OkUntilAFailureIsCaptured) {
  AsyncFailure failure;
  failure.Capture(absl::OkStatus());
  EXPECT_TRUE(failure.Check().ok());
  EXPECT_FALSE(failure.failed());
}

TEST(AsyncFailureTest, FirstFailureWinsAndStays) {
  AsyncFailure failure;
  failure.Capture(absl::PermissionDeniedError("first"));
  failure.Capture(absl::CancelledError("consequence"));
  EXPECT_EQ(failure.Check(), absl::PermissionDeniedError("first"));
  EXPECT_EQ(failure.Check(), absl::PermissionDeniedError("first"));
}

TEST(AsyncFailureTest, CaptureFromOtherThreadsIsSeenOnTheTaskThread) {
  AsyncFailure failure;
  std::vector<std::thread> completions;
  completions.reserve(8);
  for (int i = 0; i < 8; ++i) {
    completions.emplace_back([&failure, i] {
      failure.Capture(absl::InternalError("completion " + std::to_string(i)));
    });
  }
  for (auto& thread : completions) thread.join();
  const absl::Status seen = failure.Check();
  EXPECT_EQ(seen.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(failure.Check(), seen);  // Whichever came first, it stays.
}

}  // namespace
}  // namespace gcpstream

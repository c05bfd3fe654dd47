#include "gcpstream/base/status_class.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::absl::StatusCode;

// Built at compile time, as connectors declare theirs.
constexpr ClassificationTable kClassTable(
    /*request_level=*/{{{StatusCode::kUnavailable, StatusClass::kTransient},
                        {StatusCode::kResourceExhausted,
                         StatusClass::kTransient},
                        {StatusCode::kInvalidArgument,
                         StatusClass::kPerRecord}},
                       StatusClass::kFatal},
    /*entry_level=*/{{{StatusCode::kAlreadyExists, StatusClass::kPerRecord},
                      {StatusCode::kUnavailable, StatusClass::kTransient},
                      {StatusCode::kPermissionDenied, StatusClass::kFatal}},
                     StatusClass::kPerRecord});

TEST(StatusClassTest, NamesAreTheDocumentedSpellings) {
  EXPECT_EQ(StatusClassName(StatusClass::kTransient), "transient");
  EXPECT_EQ(StatusClassName(StatusClass::kPerRecord), "per-record");
  EXPECT_EQ(StatusClassName(StatusClass::kFatal), "fatal");
  std::ostringstream os;
  os << StatusClass::kPerRecord;
  EXPECT_EQ(os.str(), "per-record");
}

TEST(ClassificationTableTest, RequestLevelUsesListedCodesThenDefault) {
  EXPECT_EQ(kClassTable.ClassifyRequest(absl::UnavailableError("x")),
            StatusClass::kTransient);
  EXPECT_EQ(kClassTable.ClassifyRequest(absl::ResourceExhaustedError("x")),
            StatusClass::kTransient);
  EXPECT_EQ(kClassTable.ClassifyRequest(absl::InvalidArgumentError("x")),
            StatusClass::kPerRecord);
  EXPECT_EQ(kClassTable.ClassifyRequest(absl::AlreadyExistsError("x")),
            StatusClass::kFatal);
  EXPECT_EQ(kClassTable.ClassifyRequest(absl::InternalError("x")),
            StatusClass::kFatal);
}

TEST(ClassificationTableTest, EntryLevelIsIndependentOfRequestLevel) {
  EXPECT_EQ(kClassTable.ClassifyEntry(absl::AlreadyExistsError("x")),
            StatusClass::kPerRecord);
  EXPECT_EQ(kClassTable.ClassifyEntry(absl::PermissionDeniedError("x")),
            StatusClass::kFatal);
  EXPECT_EQ(kClassTable.ClassifyEntry(absl::UnavailableError("x")),
            StatusClass::kTransient);
  // Unlisted at entry level: the entry default, not the request default.
  EXPECT_EQ(kClassTable.ClassifyEntry(absl::ResourceExhaustedError("x")),
            StatusClass::kPerRecord);
  EXPECT_EQ(kClassTable.ClassifyRequest(absl::PermissionDeniedError("x")),
            StatusClass::kFatal);
}

TEST(ClassificationTableTest, EveryCodeIsClassifiedAndListsIsExact) {
  for (int i = 1; i <= 16; ++i) {
    const auto code = static_cast<StatusCode>(i);
    const bool listed = code == StatusCode::kUnavailable ||
                        code == StatusCode::kResourceExhausted ||
                        code == StatusCode::kInvalidArgument;
    EXPECT_EQ(kClassTable.request_level().Lists(code), listed) << code;
    if (!listed) {
      EXPECT_EQ(kClassTable.request_level().Classify(code), StatusClass::kFatal)
          << code;
    }
  }
  EXPECT_FALSE(kClassTable.request_level().Lists(StatusCode::kOk));
}

TEST(ClassificationTableTest, UnknownCodesTakeTheDefault) {
  const auto foreign = static_cast<StatusCode>(42);
  EXPECT_EQ(kClassTable.request_level().Classify(foreign), StatusClass::kFatal);
  EXPECT_EQ(kClassTable.entry_level().Classify(foreign),
            StatusClass::kPerRecord);
  EXPECT_FALSE(kClassTable.entry_level().Lists(foreign));
}

TEST(ClassificationTableTest, EmptyLevelClassifiesEverythingAsDefault) {
  const ClassificationTable::Level level({}, StatusClass::kTransient);
  EXPECT_EQ(level.Classify(StatusCode::kInternal), StatusClass::kTransient);
  EXPECT_EQ(level.default_class(), StatusClass::kTransient);
  EXPECT_EQ(level.ToString(), "default=transient");
}

TEST(ClassificationTableTest, ToStringListsCodesInCodeOrder) {
  EXPECT_EQ(kClassTable.ToString(),
            "request: INVALID_ARGUMENT=per-record, "
            "RESOURCE_EXHAUSTED=transient, UNAVAILABLE=transient, "
            "default=fatal; entry: ALREADY_EXISTS=per-record, "
            "PERMISSION_DENIED=fatal, UNAVAILABLE=transient, "
            "default=per-record");
}

using ClassificationTableDeathTest = ::testing::Test;

TEST(ClassificationTableDeathTest, DuplicateCodeIsRejected) {
  EXPECT_DEATH(
      {
        const ClassificationTable::Level level(
            {{StatusCode::kUnavailable, StatusClass::kTransient},
             {StatusCode::kUnavailable, StatusClass::kTransient}},
            StatusClass::kFatal);
        (void)level;
      },
      "listed twice");
}

TEST(ClassificationTableDeathTest, OkEntryIsRejected) {
  EXPECT_DEATH(
      {
        const ClassificationTable::Level level(
            {{StatusCode::kOk, StatusClass::kTransient}}, StatusClass::kFatal);
        (void)level;
      },
      "invalid ClassificationTable entry");
}

TEST(ClassificationTableDeathTest, ClassifyingOkAborts) {
  EXPECT_DEATH((void)kClassTable.ClassifyRequest(absl::OkStatus()),
               "classify an OK status");
}

}  // namespace
}  // namespace gcpstream

#include "gcpstream/iceberg/spec/partition.h"

#include <string>

#include "gcpstream/iceberg/spec/single_value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

std::optional<PartitionLiteral> Apply(const std::string& transform,
                                      TypeKind source, PartitionLiteral value) {
  absl::StatusOr<std::optional<PartitionLiteral>> out =
      ApplyTransform(transform, Primitive(source), value);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::nullopt;
}

// The hash values Iceberg's spec lists for its bucket transform.
TEST(PartitionTest, BucketHashesMatchTheSpecsExamples) {
  EXPECT_EQ(Murmur3Hash32(LongValue(34)), 2017239379);
  EXPECT_EQ(Murmur3Hash32(LongValue(17486)), -653330422);  // 2017-11-16.
  EXPECT_EQ(Murmur3Hash32(LongValue(1510871468000000)), -2047944441);
  EXPECT_EQ(Murmur3Hash32("iceberg"), 1210000089);
  EXPECT_EQ(Murmur3Hash32(std::string("\x00\x01\x02\x03", 4)), -188683207);
  EXPECT_EQ(Apply("bucket[16]", TypeKind::kInt, int64_t{34}),
            PartitionLiteral(int64_t{2017239379 % 16}));
}

TEST(PartitionTest, TemporalTransformsCountFromTheEpoch) {
  const int64_t micros = 1510871468000000;  // 2017-11-16T22:31:08Z.
  EXPECT_EQ(Apply("year", TypeKind::kTimestampTz, micros),
            PartitionLiteral(int64_t{47}));
  EXPECT_EQ(Apply("month", TypeKind::kTimestampTz, micros),
            PartitionLiteral(int64_t{47 * 12 + 10}));
  EXPECT_EQ(Apply("day", TypeKind::kTimestampTz, micros),
            PartitionLiteral(int64_t{17486}));
  EXPECT_EQ(Apply("hour", TypeKind::kTimestampTz, micros),
            PartitionLiteral(int64_t{17486 * 24 + 22}));
  // Before the epoch, days and hours round down.
  EXPECT_EQ(Apply("day", TypeKind::kTimestamp, int64_t{-1}),
            PartitionLiteral(int64_t{-1}));
  EXPECT_EQ(Apply("day", TypeKind::kDate, int64_t{17486}),
            PartitionLiteral(int64_t{17486}));
  EXPECT_EQ(Apply("day", TypeKind::kTimestampNs, micros * 1000),
            PartitionLiteral(int64_t{17486}));
}

TEST(PartitionTest, TruncateRoundsTowardsNegativeInfinity) {
  EXPECT_EQ(Apply("truncate[10]", TypeKind::kInt, int64_t{1}),
            PartitionLiteral(int64_t{0}));
  EXPECT_EQ(Apply("truncate[10]", TypeKind::kLong, int64_t{-1}),
            PartitionLiteral(int64_t{-10}));
  EXPECT_EQ(Apply("truncate[3]", TypeKind::kString, std::string("iceberg")),
            PartitionLiteral(std::string("ice")));
  EXPECT_EQ(Apply("void", TypeKind::kString, std::string("x")), std::nullopt);
  EXPECT_EQ(ApplyTransform("zorder", Primitive(TypeKind::kInt), int64_t{1})
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace gcpstream::iceberg

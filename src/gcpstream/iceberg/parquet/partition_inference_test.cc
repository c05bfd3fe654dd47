#include "gcpstream/iceberg/parquet/partition_inference.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::HasSubstr;

TEST(PartitionTest, HiveStylePathsNameEachField) {
  const Schema schema{
      0,
      {Field{1, "kind", false, Primitive(TypeKind::kString), ""},
       Field{2, "at", false, Primitive(TypeKind::kTimestampTz), ""}}};
  PartitionSpec spec;
  spec.fields = {PartitionField{2, 1000, "at_hour", "hour"},
                 PartitionField{1, 1001, "kind", "identity"}};
  absl::StatusOr<PartitionTuple> parsed =
      PartitionFromPath(spec, schema, "kind=a%2Fb/at_hour=2017-11-16-22");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, (PartitionTuple{PartitionLiteral(int64_t{17486 * 24 + 22}),
                                     PartitionLiteral(std::string("a/b"))}));
  parsed = PartitionFromPath(
      spec, schema, "at_hour=2017-11-16-22/kind=__HIVE_DEFAULT_PARTITION__");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ((*parsed)[1], std::nullopt);
  EXPECT_THAT(PartitionFromPath(spec, schema, "kind=a").status().message(),
              HasSubstr("names no value for partition field at_hour"));
  EXPECT_THAT(PartitionFromPath(spec, schema, "kind=a/at_hour=yesterday")
                  .status()
                  .message(),
              HasSubstr("'yesterday' is not a partition value"));
}

}  // namespace
}  // namespace gcpstream::iceberg

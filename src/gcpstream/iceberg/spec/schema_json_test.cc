#include <string>

#include <nlohmann/json.hpp>

#include "gcpstream/iceberg/spec/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Type> TypeNamed(const std::string& name) {
  nlohmann::ordered_json json = {
      {"type", "struct"},
      {"schema-id", 0},
      {"fields",
       {{{"id", 1}, {"name", "c"}, {"required", false}, {"type", name}}}}};
  absl::StatusOr<Schema> schema = SchemaFromJson(json);
  if (!schema.ok()) return schema.status();
  return schema->fields.at(0).type;
}

TEST(SchemaJsonTest, DecimalAndFixedParseAsEveryWriterSpellsThem) {
  for (const char* name :
       {"decimal(10,2)", "decimal(10, 2)", "decimal( 10 , 2 )"}) {
    absl::StatusOr<Type> type = TypeNamed(name);
    ASSERT_TRUE(type.ok()) << name << ": " << type.status();
    EXPECT_EQ(type->kind, TypeKind::kDecimal) << name;
    EXPECT_EQ(type->precision, 10) << name;
    EXPECT_EQ(type->scale, 2) << name;
  }
  absl::StatusOr<Type> fixed = TypeNamed("fixed[16]");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(fixed->kind, TypeKind::kFixed);
  EXPECT_EQ(fixed->length, 16);
}

TEST(SchemaJsonTest, AnythingAroundOrBetweenTheNumbersIsAnUnknownType) {
  for (const char* name : {"decimal(10,2)x", "decimal(10)", "decimal(10,2,3)",
                           "decimal(a,2)", "decimal(99999999999,2)", "fixed[16",
                           "fixed[]", "fixed[16]]", "xfixed[16]"}) {
    absl::StatusOr<Type> type = TypeNamed(name);
    ASSERT_FALSE(type.ok()) << name;
    EXPECT_EQ(type.status().code(), absl::StatusCode::kDataLoss) << name;
    EXPECT_THAT(type.status().message(), HasSubstr("unknown type")) << name;
  }
}

}  // namespace
}  // namespace gcpstream::iceberg

#include "gcpstream/bigquery/row_descriptor.h"

#include "gcpstream/bigquery/row_test_util.h"
#include "gmock/gmock.h"
#include "google/cloud/bigquery/storage/v1/storage.pb.h"
#include "google/cloud/bigquery/storage/v1/stream.pb.h"
#include "google/pubsub/v1/pubsub.pb.h"
#include "google/rpc/status.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::testing::HasSubstr;

TEST(RowDescriptorTest, ColumnsBecomeNumberedFieldsWithNestedRecords) {
  const TableSchema schema{
      {{.name = "id", .type = FieldType::kInt64},
       {.name = "day", .type = FieldType::kDate},
       {.name = "when", .type = FieldType::kTimestamp},
       {.name = "2nd col", .type = FieldType::kString},
       {.name = "r",
        .type = FieldType::kRecord,
        .mode = FieldMode::kRepeated,
        .fields = {{.name = "x", .type = FieldType::kNumeric}}}}};
  const google::protobuf::DescriptorProto row = RowDescriptorFor(schema);
  testing::RowReader reader(row);
  ASSERT_TRUE(reader.ok());
  const google::protobuf::Descriptor& d = *reader.descriptor();
  ASSERT_EQ(d.field_count(), 5);
  EXPECT_EQ(d.field(0)->type(), google::protobuf::FieldDescriptor::TYPE_INT64);
  EXPECT_EQ(d.field(1)->type(), google::protobuf::FieldDescriptor::TYPE_INT32);
  EXPECT_EQ(d.field(2)->type(), google::protobuf::FieldDescriptor::TYPE_INT64);
  EXPECT_EQ(d.field(3)->name(), "column_4");
  EXPECT_EQ(row.field(3).options().GetExtension(
                google::cloud::bigquery::storage::v1::column_name),
            "2nd col");
  EXPECT_TRUE(d.field(4)->is_repeated());
  EXPECT_EQ(d.field(4)->message_type()->field(0)->type(),
            google::protobuf::FieldDescriptor::TYPE_STRING);
}

TEST(RowDescriptorTest, SelfContainedCopiesTypesFromOtherFiles) {
  absl::StatusOr<google::protobuf::DescriptorProto> status =
      SelfContainedDescriptor(*google::rpc::Status::descriptor());
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->nested_type_size(), 1);
  EXPECT_EQ(status->nested_type(0).name(), "google_protobuf_Any");
  EXPECT_EQ(status->field(2).type_name(), "google_protobuf_Any");
  testing::RowReader reader(*status);
  ASSERT_TRUE(reader.ok());

  absl::StatusOr<google::protobuf::DescriptorProto> error =
      SelfContainedDescriptor(
          *google::cloud::bigquery::storage::v1::StorageError::descriptor());
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_EQ(error->enum_type_size(), 1);
  EXPECT_TRUE(testing::RowReader(*error).ok());
}

TEST(RowDescriptorTest, RefusesMapsAndRecursion) {
  EXPECT_THAT(
      SelfContainedDescriptor(*google::pubsub::v1::PubsubMessage::descriptor())
          .status()
          .message(),
      HasSubstr("is a map"));
  EXPECT_THAT(
      SelfContainedDescriptor(
          *google::cloud::bigquery::storage::v1::TableFieldSchema::descriptor())
          .status()
          .message(),
      HasSubstr("contain itself"));
}

TEST(RowDescriptorTest, ProtoIdentifiers) {
  EXPECT_TRUE(IsProtoIdentifier("_a1"));
  EXPECT_FALSE(IsProtoIdentifier("1a"));
  EXPECT_FALSE(IsProtoIdentifier("a-b"));
  EXPECT_FALSE(IsProtoIdentifier(""));
}

}  // namespace
}  // namespace gcpstream::bigquery

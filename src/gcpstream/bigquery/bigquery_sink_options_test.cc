#include "gcpstream/bigquery/bigquery_sink_options.h"

#include <string>

#include <google/protobuf/wrappers.pb.h>

#include "gcpstream/bigquery/row_serializer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::testing::HasSubstr;

TEST(CheckBigQuerySinkOptions, FileLoadsNeedAStagingPathAndOnlyThey) {
  BigQuerySinkOptions options;
  options.write_method = WriteMethod::kFileLoads;
  absl::Status status = CheckBigQuerySinkOptions(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("'staging-path'"));
  options.staging_path = "gs://b/p";
  EXPECT_TRUE(CheckBigQuerySinkOptions(options).ok());
  options.write_method = WriteMethod::kStorageApiAtLeastOnce;
  status = CheckBigQuerySinkOptions(options);
  EXPECT_THAT(status.message(), HasSubstr("stages nothing"));
}

BigQuerySinkOptions ChangeOptions() {
  BigQuerySinkOptions options;
  options.table.schema = TableSchema{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "tags",
        .type = FieldType::kString,
        .mode = FieldMode::kRepeated}}};
  options.table.primary_key = {"id"};
  options.change_type_field = "op";
  options.change_sequence_field = "lsn";
  return options;
}

TEST(CheckBigQuerySinkOptions, ChangeFieldsNeedTheDefaultStreamAndAKey) {
  EXPECT_TRUE(CheckBigQuerySinkOptions(ChangeOptions()).ok());

  BigQuerySinkOptions options = ChangeOptions();
  options.write_method = WriteMethod::kStorageApiExactlyOnce;
  EXPECT_THAT(CheckBigQuerySinkOptions(options).message(),
              HasSubstr("BigQuery applies changes from the default stream"));

  options = ChangeOptions();
  options.table.primary_key.clear();
  EXPECT_THAT(CheckBigQuerySinkOptions(options).message(),
              HasSubstr("set option 'primary-key'"));
  // Tables made by someone else bring their own key.
  options.create_disposition = CreateDisposition::kCreateNever;
  options.table = {};
  EXPECT_TRUE(CheckBigQuerySinkOptions(options).ok());

  options = ChangeOptions();
  options.change_type_field.clear();
  EXPECT_THAT(CheckBigQuerySinkOptions(options).message(),
              HasSubstr("'change-sequence-field' is set without"));
}

TEST(CheckBigQuerySinkOptions, APrimaryKeyNamesTopLevelColumns) {
  BigQuerySinkOptions options = ChangeOptions();
  options.table.primary_key = {"tags"};
  EXPECT_THAT(CheckBigQuerySinkOptions(options).message(),
              HasSubstr("names 'tags', which is no top-level, non-repeated"));
  options.table.primary_key = {"nope"};
  EXPECT_THAT(CheckBigQuerySinkOptions(options).message(),
              HasSubstr("names 'nope'"));
}

TEST(ProtoRows, RefuseChangeFieldsNamingWhatToDoInstead) {
  absl::StatusOr<std::shared_ptr<const RowFormat>> format =
      ProtoRows<google::protobuf::StringValue>()->FormatFor(
          TableSchema{}, {.change_type_field = "op"});
  ASSERT_FALSE(format.ok());
  EXPECT_THAT(format.status().message(),
              HasSubstr("give the message string fields named _CHANGE_TYPE"));
}

}  // namespace
}  // namespace gcpstream::bigquery

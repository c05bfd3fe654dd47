#ifndef GCPSTREAM_BIGQUERY_ROW_SERIALIZER_H_
#define GCPSTREAM_BIGQUERY_ROW_SERIALIZER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/bigquery/change_columns.h"
#include "gcpstream/bigquery/json_row_encoder.h"
#include "gcpstream/bigquery/row_descriptor.h"
#include "gcpstream/bigquery/row_format.h"
#include "gcpstream/bigquery/table_schema.h"

namespace gcpstream::bigquery {

// What the sink's options say about turning records into rows.
struct RowFormatOptions {
  bool ignore_unknown_fields = false;
  // CDC upserts: see BigQuerySinkOptions.
  std::string change_type_field{};
  std::string change_sequence_field{};
};

// How the BigQuery sink turns records of type T into rows (the kit's
// serializer convention, with the table's schema as an input): the format
// of a table's rows, made once per table, and each record encoded in it.
template <typename T>
class RowSerializer {
 public:
  virtual ~RowSerializer() = default;
  // The format of rows for a table whose columns are `schema`.
  virtual absl::StatusOr<std::shared_ptr<const RowFormat>> FormatFor(
      const TableSchema& schema, const RowFormatOptions& options) const = 0;
  // Writes `record` as a row of `format` into `row` (replacing it). False
  // skips the record (counted); an error is the record's failure (routed).
  virtual absl::StatusOr<bool> Encode(const T& record, const RowFormat& format,
                                      const WriterContext& context,
                                      std::string& row) const = 0;
};

// Records whose JSON object holds the row, fields matched to columns by
// name (JsonRowEncoder says what each type accepts). `to_json` returns the
// object, or null to skip the record; for T = nlohmann::json, JsonRows()
// takes the record itself.
template <typename T>
class JsonRowSerializer final : public RowSerializer<T> {
 public:
  using ToJson =
      std::function<const nlohmann::json*(const T&, const WriterContext&)>;
  explicit JsonRowSerializer(ToJson to_json) : to_json_(std::move(to_json)) {}

  absl::StatusOr<std::shared_ptr<const RowFormat>> FormatFor(
      const TableSchema& schema,
      const RowFormatOptions& options) const override {
    JsonRowEncoder encoder(
        schema, {.ignore_unknown_fields = options.ignore_unknown_fields,
                 .change_type_field = options.change_type_field,
                 .change_sequence_field = options.change_sequence_field});
    google::protobuf::DescriptorProto descriptor = encoder.descriptor();
    return std::make_shared<const RowFormat>(std::move(descriptor),
                                             std::move(encoder));
  }
  absl::StatusOr<bool> Encode(const T& record, const RowFormat& format,
                              const WriterContext& context,
                              std::string& row) const override {
    const nlohmann::json* json = to_json_(record, context);
    if (json == nullptr) return false;
    if (absl::Status status = format.json()->Encode(*json, row); !status.ok()) {
      return status;
    }
    return true;
  }

 private:
  ToJson to_json_;
};

inline std::shared_ptr<const RowSerializer<nlohmann::json>> JsonRows() {
  return std::make_shared<JsonRowSerializer<nlohmann::json>>(
      [](const nlohmann::json& record, const WriterContext&) {
        return &record;
      });
}

// Records that become protobuf messages of type M, whose fields name the
// columns (a field of another name is ignored by the service; see
// docs/bigquery.md for the types each column takes). The writer schema is
// M's descriptor made self-contained; the table's schema is not consulted.
template <typename T, typename M>
class ProtoRowSerializer final : public RowSerializer<T> {
 public:
  using ToMessage = std::function<absl::StatusOr<std::optional<M>>(
      const T&, const WriterContext&)>;
  explicit ProtoRowSerializer(ToMessage to_message)
      : to_message_(std::move(to_message)) {}

  absl::StatusOr<std::shared_ptr<const RowFormat>> FormatFor(
      const TableSchema& /*schema*/,
      const RowFormatOptions& options) const override {
    if (!options.change_type_field.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "option '", kChangeTypeFieldKey,
          "' applies to JSON records; give the message string fields named ",
          kChangeTypeColumn, " and ", kChangeSequenceColumn, " instead"));
    }
    absl::StatusOr<google::protobuf::DescriptorProto> descriptor =
        SelfContainedDescriptor(*M::descriptor());
    if (!descriptor.ok()) return descriptor.status();
    return std::make_shared<const RowFormat>(*std::move(descriptor));
  }
  absl::StatusOr<bool> Encode(const T& record, const RowFormat& /*format*/,
                              const WriterContext& context,
                              std::string& row) const override {
    absl::StatusOr<std::optional<M>> message = to_message_(record, context);
    if (!message.ok()) return message.status();
    if (!message->has_value()) return false;
    row.clear();
    if (!(*message)->SerializeToString(&row)) {
      return absl::InvalidArgumentError(
          "the message could not be serialized (a required field unset?)");
    }
    return true;
  }

 private:
  ToMessage to_message_;
};

// Records that are the row messages themselves.
template <typename M>
std::shared_ptr<const RowSerializer<M>> ProtoRows() {
  return std::make_shared<ProtoRowSerializer<M, M>>(
      [](const M& message, const WriterContext&) {
        return absl::StatusOr<std::optional<M>>(message);
      });
}

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_ROW_SERIALIZER_H_

#include "gcpstream/spanner/wire_write.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gcpstream::spanner {

std::optional<WireWrite> WireWrite::Start(const SchemaCatalog& catalog,
                                          absl::string_view table,
                                          Operation operation, size_t columns,
                                          google::protobuf::Arena& arena) {
  const TableSchema* schema = catalog.FindTable(table);
  if (schema == nullptr) return std::nullopt;
  EncodedMutation encoded;
  encoded.table = schema;
  encoded.proto =
      google::protobuf::Arena::CreateMessage<google::spanner::v1::Mutation>(
          &arena);
  google::spanner::v1::Mutation::Write* write = nullptr;
  switch (operation) {
    case Operation::kInsert:
      write = encoded.proto->mutable_insert();
      break;
    case Operation::kUpdate:
      write = encoded.proto->mutable_update();
      break;
    case Operation::kInsertOrUpdate:
      write = encoded.proto->mutable_insert_or_update();
      break;
    case Operation::kReplace:
    case Operation::kDelete:  // Not a write; callers encode deletes.
      write = encoded.proto->mutable_replace();
      break;
  }
  write->set_table(schema->QualifiedName());
  const auto reserve = static_cast<int>(columns);
  write->mutable_columns()->Reserve(reserve);
  google::protobuf::ListValue* row = write->add_values();
  row->mutable_values()->Reserve(reserve);
  return WireWrite(*schema, operation, encoded, write, row);
}

absl::Status WireWrite::Add(absl::string_view column, const Value& value) {
  const ColumnInfo* info = table_->Find(column);
  if (info == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "column '", column, "' is not in table ", table_->QualifiedName(),
        " (INFORMATION_SCHEMA, read when the writer opened)"));
  }
  if (absl::Status fits =
          EncodeForColumn(value, info->type, "column", table_->QualifiedName(),
                          info->name, row_->add_values());
      !fits.ok()) {
    return fits;
  }
  Added(*info);
  return absl::OkStatus();
}

bool WireWrite::AddText(absl::string_view column, absl::string_view text) {
  const ColumnInfo* info = table_->Find(column);
  if (info == nullptr ||
      !EncodeTextForColumn(text, info->type, row_->add_values())) {
    return false;
  }
  Added(*info);
  return true;
}

void WireWrite::Added(const ColumnInfo& column) {
  write_->add_columns(column.name);
  encoded_.cells += 1 + column.index_count;
}

absl::StatusOr<EncodedMutation> WireWrite::Finish() && {
  if (write_->columns().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", OperationName(operation_), " of ",
                     table_->QualifiedName(), " sets no column"));
  }
  encoded_.bytes = static_cast<int64_t>(encoded_.proto->ByteSizeLong());
  return encoded_;
}

}  // namespace gcpstream::spanner

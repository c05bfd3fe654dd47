#include "gcpstream/spanner/schema_catalog.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gcpstream/spanner/wire_write.h"

namespace gcpstream::spanner {
namespace {

using ::google::spanner::v1::ResultSet;

std::optional<TypeCode> ScalarGoogleSql(absl::string_view s) {
  if (s == "BOOL") return TypeCode::kBool;
  if (s == "INT64") return TypeCode::kInt64;
  if (s == "FLOAT32") return TypeCode::kFloat32;
  if (s == "FLOAT64") return TypeCode::kFloat64;
  if (s == "NUMERIC") return TypeCode::kNumeric;
  if (absl::StartsWith(s, "STRING")) return TypeCode::kString;
  if (absl::StartsWith(s, "BYTES")) return TypeCode::kBytes;
  if (s == "DATE") return TypeCode::kDate;
  if (s == "TIMESTAMP") return TypeCode::kTimestamp;
  if (s == "JSON") return TypeCode::kJson;
  return std::nullopt;
}

std::optional<TypeCode> ScalarPostgreSql(absl::string_view s) {
  if (s == "boolean") return TypeCode::kBool;
  if (s == "bigint") return TypeCode::kInt64;
  if (s == "real") return TypeCode::kFloat32;
  if (s == "double precision") return TypeCode::kFloat64;
  if (s == "numeric") return TypeCode::kNumeric;
  if (absl::StartsWith(s, "character varying") || s == "text") {
    return TypeCode::kString;
  }
  if (s == "bytea") return TypeCode::kBytes;
  if (s == "date") return TypeCode::kDate;
  if (s == "timestamp with time zone") return TypeCode::kTimestamp;
  if (s == "jsonb") return TypeCode::kJson;
  return std::nullopt;
}

std::string Key(absl::string_view schema, absl::string_view table) {
  return absl::AsciiStrToLower(absl::StrCat(schema, ".", table));
}

// The string cell of `row` at `i` (empty for NULL).
std::string Cell(const google::protobuf::ListValue& row, int i) {
  if (i >= row.values_size()) return "";
  return row.values(i).string_value();
}

}  // namespace

ColumnType ParseSpannerType(absl::string_view spelling, Dialect dialect) {
  ColumnType type;
  type.spelling = std::string(spelling);
  absl::string_view s = absl::StripAsciiWhitespace(spelling);
  if (dialect == Dialect::kGoogleSql) {
    if (absl::ConsumePrefix(&s, "ARRAY<") && absl::ConsumeSuffix(&s, ">")) {
      type.code = TypeCode::kArray;
      type.element = ScalarGoogleSql(s);
      type.supported = type.element.has_value();
      return type;
    }
    std::optional<TypeCode> scalar = ScalarGoogleSql(s);
    type.supported = scalar.has_value();
    if (scalar.has_value()) type.code = *scalar;
    return type;
  }
  std::string lower = absl::AsciiStrToLower(s);
  absl::string_view l = lower;
  if (absl::ConsumeSuffix(&l, "[]")) {
    type.code = TypeCode::kArray;
    type.element = ScalarPostgreSql(l);
    type.supported = type.element.has_value();
    return type;
  }
  std::optional<TypeCode> scalar = ScalarPostgreSql(l);
  type.supported = scalar.has_value();
  if (scalar.has_value()) type.code = *scalar;
  return type;
}

const ColumnInfo* TableSchema::Find(absl::string_view column) const {
  if (auto it = column_index.find(column); it != column_index.end()) {
    return &columns[it->second];
  }
  for (const ColumnInfo& info : columns) {
    if (absl::EqualsIgnoreCase(info.name, column)) return &info;
  }
  return nullptr;
}

std::string SchemaCatalog::ColumnsQuery(Dialect dialect) {
  // Spanner's own schemas hold no user tables.
  if (dialect == Dialect::kGoogleSql) {
    return "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, SPANNER_TYPE, "
           "IS_NULLABLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA "
           "NOT IN ('INFORMATION_SCHEMA', 'SPANNER_SYS') ORDER BY "
           "TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION";
  }
  return "SELECT table_schema, table_name, column_name, spanner_type, "
         "is_nullable FROM information_schema.columns WHERE table_schema "
         "NOT IN ('information_schema', 'spanner_sys', 'pg_catalog') ORDER BY "
         "table_schema, table_name, ordinal_position";
}

std::string SchemaCatalog::IndexColumnsQuery(Dialect dialect) {
  if (dialect == Dialect::kGoogleSql) {
    return "SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, INDEX_TYPE, "
           "COLUMN_NAME, ORDINAL_POSITION FROM "
           "INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA NOT IN "
           "('INFORMATION_SCHEMA', 'SPANNER_SYS')";
  }
  return "SELECT table_schema, table_name, index_name, index_type, "
         "column_name, ordinal_position FROM "
         "information_schema.index_columns WHERE table_schema NOT IN "
         "('information_schema', 'spanner_sys', 'pg_catalog')";
}

std::string SchemaCatalog::RelationsQuery(Dialect dialect) {
  // Interleaved tables live in their parent's schema.
  if (dialect == Dialect::kGoogleSql) {
    return "SELECT TABLE_SCHEMA, TABLE_NAME, 'INTERLEAVE', TABLE_SCHEMA, "
           "PARENT_TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE "
           "PARENT_TABLE_NAME IS NOT NULL AND TABLE_SCHEMA NOT IN "
           "('INFORMATION_SCHEMA', 'SPANNER_SYS') "
           "UNION ALL "
           "SELECT fk.TABLE_SCHEMA, fk.TABLE_NAME, 'FOREIGN_KEY', "
           "pk.TABLE_SCHEMA, pk.TABLE_NAME FROM "
           "INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS AS rc JOIN "
           "INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS fk ON "
           "fk.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND "
           "fk.CONSTRAINT_NAME = rc.CONSTRAINT_NAME JOIN "
           "INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS pk ON "
           "pk.CONSTRAINT_SCHEMA = rc.UNIQUE_CONSTRAINT_SCHEMA AND "
           "pk.CONSTRAINT_NAME = rc.UNIQUE_CONSTRAINT_NAME";
  }
  return "SELECT table_schema, table_name, 'INTERLEAVE', table_schema, "
         "parent_table_name FROM information_schema.tables WHERE "
         "parent_table_name IS NOT NULL AND table_schema NOT IN "
         "('information_schema', 'spanner_sys', 'pg_catalog') "
         "UNION ALL "
         "SELECT fk.table_schema, fk.table_name, 'FOREIGN_KEY', "
         "pk.table_schema, pk.table_name FROM "
         "information_schema.referential_constraints AS rc JOIN "
         "information_schema.table_constraints AS fk ON "
         "fk.constraint_schema = rc.constraint_schema AND "
         "fk.constraint_name = rc.constraint_name JOIN "
         "information_schema.table_constraints AS pk ON "
         "pk.constraint_schema = rc.unique_constraint_schema AND "
         "pk.constraint_name = rc.unique_constraint_name";
}

absl::Status SchemaCatalog::LinkRelations(const ResultSet& relations) {
  absl::flat_hash_map<TableSchema*, TableSchema*> parent;
  std::vector<std::pair<TableSchema*, TableSchema*>> references;
  for (const auto& row : relations.rows()) {
    auto from = tables_.find(Key(Cell(row, 0), Cell(row, 1)));
    auto to = tables_.find(Key(Cell(row, 3), Cell(row, 4)));
    if (from == tables_.end() || to == tables_.end()) continue;
    if (Cell(row, 2) == "INTERLEAVE") {
      parent[&from->second] = &to->second;
    } else {
      references.emplace_back(&from->second, &to->second);
    }
  }
  for (auto& [key, table] : tables_) {
    TableSchema* root = &table;
    for (int depth = 0; parent.contains(root); ++depth) {
      if (depth > 16) {  // Spanner allows 7 levels: this is a cycle.
        return absl::InternalError(
            absl::StrCat("spanner schema: the interleave parents of ",
                         table.QualifiedName(), " form a cycle"));
      }
      root = parent[root];
    }
    table.root = root;
    table.root_key_parts = root->primary_key.size();
    if (root != &table) {
      table.hierarchy = true;
      root->hierarchy = true;
    }
  }
  // Families: hierarchies joined by foreign keys (union-find on roots).
  absl::flat_hash_map<const TableSchema*, const TableSchema*> leader;
  auto find = [&leader](const TableSchema* t) {
    while (leader.contains(t) && leader[t] != t) t = leader[t];
    return t;
  };
  for (const auto& [from, to] : references) {
    const TableSchema* a = find(from->root);
    const TableSchema* b = find(to->root);
    leader.try_emplace(a, a);
    leader.try_emplace(b, b);
    if (a != b) leader[a] = b;
  }
  absl::flat_hash_map<const TableSchema*, int> family_of;
  for (auto& [key, table] : tables_) {
    if (!leader.contains(table.root)) continue;
    const TableSchema* top = find(table.root);
    table.family =
        family_of.try_emplace(top, static_cast<int>(family_of.size()))
            .first->second;
  }
  return absl::OkStatus();
}

absl::StatusOr<SchemaCatalog> SchemaCatalog::FromResults(
    Dialect dialect, const ResultSet& columns, const ResultSet& index_columns,
    const ResultSet& relations) {
  SchemaCatalog catalog(dialect);
  for (const auto& row : columns.rows()) {
    const std::string schema = Cell(row, 0);
    const std::string table = Cell(row, 1);
    TableSchema& t = catalog.tables_[Key(schema, table)];
    t.schema = schema;
    t.name = table;
    ColumnInfo column;
    column.name = Cell(row, 2);
    column.type = ParseSpannerType(Cell(row, 3), dialect);
    column.nullable = absl::EqualsIgnoreCase(Cell(row, 4), "YES");
    t.columns.push_back(std::move(column));
  }
  // Index name -> counted once per table for deletes.
  absl::flat_hash_map<std::string, bool> seen_index;
  std::vector<std::pair<int, std::string>> key_parts;
  for (const auto& row : index_columns.rows()) {
    auto it = catalog.tables_.find(Key(Cell(row, 0), Cell(row, 1)));
    if (it == catalog.tables_.end()) continue;
    TableSchema& table = it->second;
    const std::string index_type = absl::AsciiStrToUpper(Cell(row, 3));
    ColumnInfo* column = nullptr;
    for (ColumnInfo& c : table.columns) {
      if (c.name == Cell(row, 4)) column = &c;
    }
    if (column == nullptr) continue;
    if (index_type == "PRIMARY_KEY") {
      int position = 0;
      if (!absl::SimpleAtoi(Cell(row, 5), &position)) continue;
      const int column_index = static_cast<int>(column - table.columns.data());
      if (static_cast<int>(table.primary_key.size()) < position) {
        table.primary_key.resize(position, -1);
      }
      table.primary_key[position - 1] = column_index;
      continue;
    }
    ++column->index_count;
    if (!seen_index[absl::StrCat(it->first, "/", Cell(row, 2))]) {
      seen_index[absl::StrCat(it->first, "/", Cell(row, 2))] = true;
      ++table.secondary_indexes;
    }
  }
  for (auto& [key, table] : catalog.tables_) {
    table.qualified_name = table.schema.empty() || table.schema == "public"
                               ? table.name
                               : absl::StrCat(table.schema, ".", table.name);
    catalog.by_exact_name_[table.qualified_name] = &table;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      table.column_index[table.columns[i].name] = static_cast<int>(i);
    }
    for (int part : table.primary_key) {
      if (part < 0) {
        return absl::InternalError(absl::StrCat(
            "spanner schema: the primary key of ", table.QualifiedName(),
            " has a gap in INFORMATION_SCHEMA.INDEX_COLUMNS"));
      }
    }
  }
  if (absl::Status linked = catalog.LinkRelations(relations); !linked.ok()) {
    return linked;
  }
  return catalog;
}

const TableSchema* SchemaCatalog::FindTable(absl::string_view name) const {
  if (auto it = by_exact_name_.find(name); it != by_exact_name_.end()) {
    return it->second;
  }
  const std::string default_schema =
      dialect_ == Dialect::kGoogleSql ? "" : "public";
  const size_t dot = name.find('.');
  const std::string key = dot == absl::string_view::npos
                              ? Key(default_schema, name)
                              : Key(name.substr(0, dot), name.substr(dot + 1));
  auto it = tables_.find(key);
  return it == tables_.end() ? nullptr : &it->second;
}

namespace {

// Encodes a non-array value into a column of scalar type `code`, widening
// INT64 and FLOAT32 as Spanner would; false when it does not fit.
// Text for a column whose wire encoding is itself text (DATE, TIMESTAMP,
// NUMERIC, JSON, BYTES as base64), as records from JSON carry them: checked
// here, so a bad value is refused for its record rather than by the
// service for the whole batch.
bool EncodeText(absl::string_view text, TypeCode code,
                google::protobuf::Value* out) {
  switch (code) {
    case TypeCode::kDate: {
      absl::CivilDay day;
      if (!absl::ParseCivilTime(text, &day)) return false;
      Value::Date(day).ToProto(out);
      return true;
    }
    case TypeCode::kTimestamp: {
      absl::Time time;
      std::string error;
      if (!absl::ParseTime(absl::RFC3339_full, text, &time, &error)) {
        return false;
      }
      Value::Timestamp(time).ToProto(out);
      return true;
    }
    case TypeCode::kNumeric: {
      // [-+]digits[.digits]: what Spanner's NUMERIC text accepts.
      absl::string_view rest = text;
      absl::ConsumePrefix(&rest, "-") || absl::ConsumePrefix(&rest, "+");
      const size_t dot = rest.find('.');
      const absl::string_view whole = rest.substr(0, dot);
      const absl::string_view fraction =
          dot == absl::string_view::npos ? "" : rest.substr(dot + 1);
      auto digits = [](absl::string_view s) {
        return std::all_of(s.begin(), s.end(), absl::ascii_isdigit);
      };
      if (whole.empty() || !digits(whole) || !digits(fraction) ||
          (dot != absl::string_view::npos && fraction.empty())) {
        return false;
      }
      out->set_string_value(text.data(), text.size());
      return true;
    }
    case TypeCode::kJson:
      if (!nlohmann::json::accept(text.begin(), text.end())) return false;
      out->set_string_value(text.data(), text.size());
      return true;
    case TypeCode::kBytes: {
      std::string raw;
      if (!absl::Base64Unescape(text, &raw)) return false;
      out->set_string_value(text.data(), text.size());
      return true;
    }
    default:
      return false;
  }
}

bool EncodeScalar(const Value& value, TypeCode code,
                  google::protobuf::Value* out) {
  if (value.is_null()) {
    value.ToProto(out);
    return true;
  }
  if (std::holds_alternative<Value::CommitTimestamp>(value.data())) {
    if (code != TypeCode::kTimestamp) return false;
    value.ToProto(out);
    return true;
  }
  const std::optional<TypeCode> value_type = value.type();
  if (value_type == code) {
    value.ToProto(out);
    return true;
  }
  if (const auto* i = std::get_if<int64_t>(&value.data())) {
    switch (code) {
      case TypeCode::kFloat64:
        Value::Float64(static_cast<double>(*i)).ToProto(out);
        return true;
      case TypeCode::kFloat32:
        Value::Float32(static_cast<float>(*i)).ToProto(out);
        return true;
      case TypeCode::kNumeric:
        out->set_string_value(absl::StrCat(*i));
        return true;
      default:
        return false;
    }
  }
  if (const auto* f = std::get_if<float>(&value.data());
      f != nullptr && code == TypeCode::kFloat64) {
    Value::Float64(static_cast<double>(*f)).ToProto(out);
    return true;
  }
  if (const auto* text = std::get_if<std::string>(&value.data())) {
    return EncodeText(*text, code, out);
  }
  return false;
}

}  // namespace

absl::Status EncodeForColumn(const Value& value, const ColumnType& type,
                             absl::string_view what, absl::string_view table,
                             absl::string_view column,
                             google::protobuf::Value* out) {
  // Error text is only built on the error path: this runs for every cell.
  auto mismatch = [&](absl::string_view value_text, absl::string_view index) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", table, ".", column, index, " is ",
                     type.spelling, "; cannot write ", value_text, " to it"));
  };
  auto value_name = [](const Value& v) {
    if (std::holds_alternative<Value::CommitTimestamp>(v.data())) {
      return std::string("the commit timestamp");
    }
    return absl::StrCat("a ", TypeCodeName(*v.type()));
  };
  if (!type.supported) {
    return mismatch("a value (gcpstream does not write this column type)", "");
  }
  if (type.code != TypeCode::kArray) {
    if (value.type() == TypeCode::kArray) return mismatch("an ARRAY", "");
    if (EncodeScalar(value, type.code, out)) return absl::OkStatus();
    return mismatch(value_name(value), "");
  }
  if (value.is_null()) {
    value.ToProto(out);
    return absl::OkStatus();
  }
  const auto* elements = std::get_if<Value::Array>(&value.data());
  if (elements == nullptr) return mismatch(value_name(value), "");
  auto& list = *out->mutable_list_value();
  for (size_t i = 0; i < elements->size(); ++i) {
    const Value& element = (*elements)[i];
    if (element.type() == TypeCode::kArray) {
      return mismatch("an array of arrays", "");
    }
    if (!EncodeScalar(element, *type.element, list.add_values())) {
      return mismatch(value_name(element), absl::StrCat("[", i, "]"));
    }
  }
  return absl::OkStatus();
}

bool EncodeTextForColumn(absl::string_view text, const ColumnType& type,
                         google::protobuf::Value* out) {
  if (!type.supported || type.code == TypeCode::kArray) return false;
  if (type.code == TypeCode::kString) {
    out->set_string_value(text.data(), text.size());
    return true;
  }
  return EncodeText(text, type.code, out);
}

namespace {

absl::StatusOr<EncodedMutation> EncodeDelete(const Mutation& mutation,
                                             const TableSchema* table,
                                             google::protobuf::Arena& arena) {
  EncodedMutation out;
  out.table = table;
  out.proto =
      google::protobuf::Arena::CreateMessage<google::spanner::v1::Mutation>(
          &arena);
  auto& del = *out.proto->mutable_delete_();
  del.set_table(table->QualifiedName());
  if (mutation.keys().empty() && mutation.ranges().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a delete of ", table->QualifiedName(), " names no key or range"));
  }
  auto encode_key = [&](const std::vector<Value>& key, bool prefix_ok,
                        google::protobuf::ListValue& into) -> absl::Status {
    if (key.size() > table->primary_key.size() ||
        (!prefix_ok && key.size() != table->primary_key.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a key of ", table->QualifiedName(), " has ", key.size(),
          " parts; the primary key has ", table->primary_key.size()));
    }
    for (size_t i = 0; i < key.size(); ++i) {
      const ColumnInfo& column = table->columns[table->primary_key[i]];
      if (absl::Status part = EncodeForColumn(key[i], column.type, "key column",
                                              table->QualifiedName(),
                                              column.name, into.add_values());
          !part.ok()) {
        return part;
      }
    }
    return absl::OkStatus();
  };
  for (const auto& key : mutation.keys()) {
    if (absl::Status s =
            encode_key(key, false, *del.mutable_key_set()->add_keys());
        !s.ok()) {
      return s;
    }
  }
  for (const KeyRange& range : mutation.ranges()) {
    auto& r = *del.mutable_key_set()->add_ranges();
    absl::Status s = encode_key(range.start, true,
                                range.start_closed ? *r.mutable_start_closed()
                                                   : *r.mutable_start_open());
    s.Update(encode_key(
        range.end, true,
        range.end_closed ? *r.mutable_end_closed() : *r.mutable_end_open()));
    if (!s.ok()) return s;
  }
  const auto entries =
      static_cast<int64_t>(mutation.keys().size() + mutation.ranges().size());
  out.cells = entries * (1 + table->secondary_indexes);
  out.bytes = static_cast<int64_t>(out.proto->ByteSizeLong());
  return out;
}

}  // namespace

absl::StatusOr<EncodedMutation> SchemaCatalog::Encode(
    const Mutation& mutation, google::protobuf::Arena& arena) const {
  if (mutation.operation() != Operation::kDelete) {
    std::optional<WireWrite> write =
        WireWrite::Start(*this, mutation.table(), mutation.operation(),
                         mutation.columns().size(), arena);
    if (write.has_value()) {
      for (size_t i = 0; i < mutation.columns().size(); ++i) {
        if (absl::Status added =
                write->Add(mutation.columns()[i], mutation.values()[i]);
            !added.ok()) {
          return added;
        }
      }
      return std::move(*write).Finish();
    }
  }
  const TableSchema* table = FindTable(mutation.table());
  if (table == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "table '", mutation.table(),
        "' is not in the database (INFORMATION_SCHEMA, read when the writer "
        "opened); check the table name, or restart the job after the DDL"));
  }
  return EncodeDelete(mutation, table, arena);
}

}  // namespace gcpstream::spanner

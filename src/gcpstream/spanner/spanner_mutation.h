#ifndef GCPSTREAM_SPANNER_SPANNER_MUTATION_H_
#define GCPSTREAM_SPANNER_SPANNER_MUTATION_H_

#include <string>
#include <utility>
#include <vector>

#include "gcpstream/spanner/spanner_value.h"
#include "nlohmann/json.hpp"

namespace gcpstream::spanner {

enum class Operation { kInsert, kUpdate, kInsertOrUpdate, kReplace, kDelete };

// "insert", "update", "insert-or-update", "replace", "delete".
const char* OperationName(Operation operation);

// A range of primary keys for a delete; bounds are key prefixes.
struct KeyRange {
  std::vector<Value> start;
  bool start_closed = true;
  std::vector<Value> end;
  bool end_closed = false;
};

// One change to one table, as a serializer builds it:
//   Mutation::InsertOrUpdate("Orders").Set("OrderId", Value::Int64(7))
//                                     .Set("Amount", Value::Int64(120));
//   Mutation::Delete("Orders").Key({Value::Int64(7)});
// The table may be schema-qualified ("sales.Orders"). Values are checked
// against the column types when the writer encodes the mutation.
class Mutation {
 public:
  static Mutation Insert(std::string table) {
    return Mutation(Operation::kInsert, std::move(table));
  }
  static Mutation Update(std::string table) {
    return Mutation(Operation::kUpdate, std::move(table));
  }
  static Mutation InsertOrUpdate(std::string table) {
    return Mutation(Operation::kInsertOrUpdate, std::move(table));
  }
  static Mutation Replace(std::string table) {
    return Mutation(Operation::kReplace, std::move(table));
  }
  static Mutation Delete(std::string table) {
    return Mutation(Operation::kDelete, std::move(table));
  }

  // Room for `columns` Set() calls without reallocating.
  Mutation& Reserve(size_t columns) & {
    columns_.reserve(columns);
    values_.reserve(columns);
    return *this;
  }

  // Write operations: one column's value.
  Mutation& Set(std::string column, Value value) & {
    columns_.push_back(std::move(column));
    values_.push_back(std::move(value));
    return *this;
  }
  Mutation&& Set(std::string column, Value value) && {
    return std::move(Set(std::move(column), std::move(value)));
  }
  // Delete: one primary key (all its parts, in key order).
  Mutation& Key(std::vector<Value> key) & {
    keys_.push_back(std::move(key));
    return *this;
  }
  Mutation&& Key(std::vector<Value> key) && {
    return std::move(Key(std::move(key)));
  }
  // Delete: a range of keys.
  Mutation& Range(KeyRange range) & {
    ranges_.push_back(std::move(range));
    return *this;
  }
  Mutation&& Range(KeyRange range) && {
    return std::move(Range(std::move(range)));
  }

  Operation operation() const { return operation_; }
  const std::string& table() const { return table_; }
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<Value>& values() const { return values_; }
  const std::vector<std::vector<Value>>& keys() const { return keys_; }
  const std::vector<KeyRange>& ranges() const { return ranges_; }

  // The portable encoding of a failed element's payload:
  //   {"table":"Orders","operation":"insert-or-update",
  //    "columns":{"OrderId":"7","Amount":"120"}}
  //   {"table":"Orders","operation":"delete","keys":[["7"]],
  //    "ranges":[{"start":["1"],"start_closed":true,"end":["5"],
  //               "end_closed":false}]}
  // Values use the wire's JSON forms: INT64 and NUMERIC as strings, BYTES
  // base64, DATE "YYYY-MM-DD", TIMESTAMP RFC 3339 UTC, NULL null.
  nlohmann::json ToJson() const;

  friend bool operator==(const Mutation&, const Mutation&) = default;

 private:
  Mutation(Operation operation, std::string table)
      : operation_(operation), table_(std::move(table)) {}

  Operation operation_;
  std::string table_;
  std::vector<std::string> columns_;
  std::vector<Value> values_;
  std::vector<std::vector<Value>> keys_;
  std::vector<KeyRange> ranges_;
};

bool operator==(const KeyRange& a, const KeyRange& b);

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_MUTATION_H_

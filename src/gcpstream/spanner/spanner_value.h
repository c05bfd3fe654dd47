#ifndef GCPSTREAM_SPANNER_SPANNER_VALUE_H_
#define GCPSTREAM_SPANNER_SPANNER_VALUE_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "google/protobuf/struct.pb.h"
#include "nlohmann/json.hpp"

namespace gcpstream::spanner {

// The Spanner column types a mutation can write (both dialects).
enum class TypeCode {
  kBool,
  kInt64,
  kFloat32,
  kFloat64,
  kNumeric,
  kString,
  kBytes,
  kDate,
  kTimestamp,
  kJson,
  kArray,
};

// "BOOL", "INT64", ... as GoogleSQL spells them (ARRAY without element).
const char* TypeCodeName(TypeCode code);

// One typed value of a mutation: a scalar, NULL, the commit timestamp
// placeholder, or an array of scalars. Build with the static functions.
class Value {
 public:
  struct Null {
    friend bool operator==(Null, Null) = default;
  };
  // The decimal text of a NUMERIC, e.g. "-12.50" (Spanner parses it).
  struct Numeric {
    std::string text;
    friend bool operator==(const Numeric&, const Numeric&) = default;
  };
  struct Bytes {
    std::string data;
    friend bool operator==(const Bytes&, const Bytes&) = default;
  };
  // The JSON text of a JSON (GoogleSQL) or JSONB (PostgreSQL) column.
  struct Json {
    std::string text;
    friend bool operator==(const Json&, const Json&) = default;
  };
  // Spanner fills in the transaction's commit timestamp; only for TIMESTAMP
  // columns with allow_commit_timestamp (spanner.commit_timestamp in PG).
  struct CommitTimestamp {
    friend bool operator==(CommitTimestamp, CommitTimestamp) = default;
  };
  using Array = std::vector<Value>;

  Value() : data_(Null{}) {}
  static Value Bool(bool v) { return Value(v); }
  static Value Int64(int64_t v) { return Value(v); }
  static Value Float32(float v) { return Value(v); }
  static Value Float64(double v) { return Value(v); }
  static Value NumericValue(std::string text) {
    return Value(Numeric{std::move(text)});
  }
  static Value String(std::string v) { return Value(std::move(v)); }
  static Value BytesValue(std::string data) {
    return Value(Bytes{std::move(data)});
  }
  static Value Date(absl::CivilDay day) { return Value(day); }
  static Value Timestamp(absl::Time time) { return Value(time); }
  static Value CommitTimestampValue() { return Value(CommitTimestamp{}); }
  static Value JsonValue(std::string text) {
    return Value(Json{std::move(text)});
  }
  // Elements must be scalars of one type (or NULL).
  static Value ArrayOf(Array elements) { return Value(std::move(elements)); }
  static Value NullValue() { return Value(); }

  bool is_null() const { return std::holds_alternative<Null>(data_); }
  // The type this value has, or nothing for NULL.
  std::optional<TypeCode> type() const;

  // The encoding Spanner's wire API expects (INT64 and NUMERIC as strings,
  // BYTES base64, DATE "YYYY-MM-DD", TIMESTAMP RFC 3339 in UTC, ...).
  google::protobuf::Value ToProto() const;
  void ToProto(google::protobuf::Value* out) const;

  // The portable encoding in a failed element's payload: JSON, with the same
  // text forms as the wire (so INT64 stays exact).
  nlohmann::json ToJson() const;

  using Data = std::variant<Null, bool, int64_t, float, double, Numeric,
                            std::string, Bytes, absl::CivilDay, absl::Time,
                            CommitTimestamp, Json, Array>;
  const Data& data() const { return data_; }

  friend bool operator==(const Value& a, const Value& b) {
    return a.data_ == b.data_;
  }

 private:
  template <typename V>
  explicit Value(V v) : data_(std::move(v)) {}

  Data data_;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_VALUE_H_

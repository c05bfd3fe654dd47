#ifndef GCPSTREAM_ICEBERG_SPEC_SCHEMA_TEST_UTIL_H_
#define GCPSTREAM_ICEBERG_SPEC_SCHEMA_TEST_UTIL_H_

// Test-only: short spellings for hand-written schemas.

#include <string>
#include <utility>

#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg::testing {

inline Field Optional(int id, const std::string& name, Type type) {
  return Field{id, name, false, std::move(type), ""};
}
inline Field Required(int id, const std::string& name, Type type) {
  return Field{id, name, true, std::move(type), ""};
}
inline Type Long() { return Primitive(TypeKind::kLong); }
inline Type Int() { return Primitive(TypeKind::kInt); }
inline Type String() { return Primitive(TypeKind::kString); }
inline Type Double() { return Primitive(TypeKind::kDouble); }

}  // namespace gcpstream::iceberg::testing

#endif  // GCPSTREAM_ICEBERG_SPEC_SCHEMA_TEST_UTIL_H_

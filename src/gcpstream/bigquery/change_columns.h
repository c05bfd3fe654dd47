#ifndef GCPSTREAM_BIGQUERY_CHANGE_COLUMNS_H_
#define GCPSTREAM_BIGQUERY_CHANGE_COLUMNS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace gcpstream::bigquery {

// BigQuery's CDC pseudo-columns: rows appended to the default stream of a
// table with a primary key with these are upserts or deletes of the row
// with their key, applied in sequence-number order.
inline constexpr char kChangeTypeColumn[] = "_CHANGE_TYPE";
inline constexpr char kChangeSequenceColumn[] = "_CHANGE_SEQUENCE_NUMBER";

// The sink's options naming the record fields they come from.
inline constexpr char kChangeTypeFieldKey[] = "change-type-field";
inline constexpr char kChangeSequenceFieldKey[] = "change-sequence-field";

// "UPSERT" or "DELETE", from a string of either (any case).
absl::StatusOr<std::string> ParseChangeType(const nlohmann::json& value);

// _CHANGE_SEQUENCE_NUMBER's form (1 to 4 sections of 1 to 16 hexadecimal
// digits separated by '/', compared section by section), from a string in
// that form or a non-negative JSON integer (sent as one section in
// hexadecimal). A string is always read as hexadecimal.
absl::StatusOr<std::string> ParseChangeSequence(const nlohmann::json& value);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_CHANGE_COLUMNS_H_

#ifndef GCPSTREAM_BIGQUERY_CIVIL_VALUES_H_
#define GCPSTREAM_BIGQUERY_CIVIL_VALUES_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::bigquery {

// BigQuery's text forms of dates, times and decimals, checked client side
// so that a value the table would refuse is a per-record failure that names
// it, before it can fail a whole request. Ranges are BigQuery's: years 1 to
// 9999, NUMERIC 29 integer and 9 fraction digits, BIGNUMERIC 38 and 38.

// "YYYY-MM-DD" -> days since 1970-01-01 (the Storage Write API's DATE).
absl::StatusOr<int32_t> ParseDate(absl::string_view text);

// "YYYY-MM-DD[ |T]HH:MM[:SS[.ffffff]]" -> "YYYY-MM-DD HH:MM:SS[.ffffff]".
absl::StatusOr<std::string> ParseDateTime(absl::string_view text);

// "HH:MM[:SS[.ffffff]]" -> "HH:MM:SS[.ffffff]".
absl::StatusOr<std::string> ParseTime(absl::string_view text);

// A date and time with an optional zone ("Z", "+05:30", "-08", " UTC";
// none means UTC), e.g. RFC 3339 -> microseconds since the Unix epoch.
// More than six fraction digits are refused rather than truncated.
absl::StatusOr<int64_t> ParseTimestamp(absl::string_view text);
// Seconds since the epoch, as a JSON number gives them.
absl::StatusOr<int64_t> TimestampFromSeconds(double seconds);

// A decimal number ("-12.5", "3e4", "+7") checked against the type's
// integer and fraction digits -> its plain form without exponent.
absl::StatusOr<std::string> ParseDecimal(absl::string_view text,
                                         int max_integer_digits,
                                         int max_fraction_digits);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_CIVIL_VALUES_H_

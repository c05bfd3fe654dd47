#include "gcpstream/bigquery/civil_values.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"

namespace gcpstream::bigquery {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
// 0001-01-01 00:00:00 and 9999-12-31 23:59:59.999999 UTC.
constexpr int64_t kMinTimestampMicros = -62'135'596'800'000'000;
constexpr int64_t kMaxTimestampMicros = 253'402'300'799'999'999;

// Reads exactly `digits` decimal digits from the front of `text`.
bool TakeDigits(absl::string_view& text, int digits, int& value) {
  if (static_cast<int>(text.size()) < digits) return false;
  value = 0;
  for (int i = 0; i < digits; ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
    value = value * 10 + (text[i] - '0');
  }
  text.remove_prefix(digits);
  return true;
}

bool TakeChar(absl::string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

struct Civil {
  int year = 0, month = 0, day = 0;
  int hour = 0, minute = 0, second = 0;
  int micros = 0;
  int fraction_digits = 0;  // as written, 0 when none
};

absl::Status Invalid(absl::string_view what, absl::string_view text,
                     absl::string_view form) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not a valid ", what, " (", form, ")"));
}

bool TakeDate(absl::string_view& text, Civil& civil) {
  if (!TakeDigits(text, 4, civil.year) || !TakeChar(text, '-') ||
      !TakeDigits(text, 2, civil.month) || !TakeChar(text, '-') ||
      !TakeDigits(text, 2, civil.day)) {
    return false;
  }
  if (civil.year < 1 || civil.month < 1 || civil.month > 12 || civil.day < 1) {
    return false;
  }
  // absl normalises Feb 30 to Mar 2: a changed day means no such date.
  const absl::CivilDay day(civil.year, civil.month, civil.day);
  return day.day() == civil.day;
}

// HH:MM[:SS[.f{1,6}]]; `max_fraction` digits at most (more: false).
bool TakeTime(absl::string_view& text, Civil& civil) {
  if (!TakeDigits(text, 2, civil.hour) || !TakeChar(text, ':') ||
      !TakeDigits(text, 2, civil.minute)) {
    return false;
  }
  if (TakeChar(text, ':')) {
    if (!TakeDigits(text, 2, civil.second)) return false;
    if (TakeChar(text, '.')) {
      int digits = 0;
      while (digits < static_cast<int>(text.size()) &&
             absl::ascii_isdigit(static_cast<unsigned char>(text[digits]))) {
        ++digits;
      }
      if (digits == 0 || digits > 6) return false;
      int value = 0;
      TakeDigits(text, digits, value);
      for (int i = digits; i < 6; ++i) value *= 10;
      civil.micros = value;
      civil.fraction_digits = digits;
    }
  }
  return civil.hour <= 23 && civil.minute <= 59 && civil.second <= 59;
}

std::string FormatTime(const Civil& civil) {
  std::string out =
      absl::StrFormat("%02d:%02d:%02d", civil.hour, civil.minute, civil.second);
  if (civil.micros != 0) absl::StrAppendFormat(&out, ".%06d", civil.micros);
  return out;
}

// " UTC", "Z", "+HH[:MM]", "-HH[:MM]" or nothing -> offset in seconds.
bool TakeZone(absl::string_view& text, int& offset_seconds) {
  offset_seconds = 0;
  if (text.empty()) return true;
  if (text == "Z" || text == "z" || absl::EqualsIgnoreCase(text, " UTC") ||
      absl::EqualsIgnoreCase(text, "UTC")) {
    text = {};
    return true;
  }
  if (text.front() == ' ') text.remove_prefix(1);
  if (text.empty() || (text.front() != '+' && text.front() != '-')) {
    return false;
  }
  const int sign = text.front() == '-' ? -1 : 1;
  text.remove_prefix(1);
  int hours = 0;
  int minutes = 0;
  if (!TakeDigits(text, 2, hours)) return false;
  if (TakeChar(text, ':')) {
    if (!TakeDigits(text, 2, minutes)) return false;
  } else if (!text.empty() && !TakeDigits(text, 2, minutes)) {
    return false;
  }
  if (hours > 14 || minutes > 59 || !text.empty()) return false;
  offset_seconds = sign * (hours * 3600 + minutes * 60);
  return true;
}

}  // namespace

absl::StatusOr<int32_t> ParseDate(absl::string_view text) {
  absl::string_view rest = text;
  Civil civil;
  if (!TakeDate(rest, civil) || !rest.empty()) {
    return Invalid("DATE", text, "YYYY-MM-DD, years 1 to 9999");
  }
  const absl::CivilDay day(civil.year, civil.month, civil.day);
  return static_cast<int32_t>(day - absl::CivilDay(1970, 1, 1));
}

absl::StatusOr<std::string> ParseDateTime(absl::string_view text) {
  absl::string_view rest = text;
  Civil civil;
  if (!TakeDate(rest, civil) || rest.empty() ||
      (rest.front() != ' ' && rest.front() != 'T' && rest.front() != 't')) {
    return Invalid("DATETIME", text, "YYYY-MM-DD HH:MM:SS[.ffffff]");
  }
  rest.remove_prefix(1);
  if (!TakeTime(rest, civil) || !rest.empty()) {
    return Invalid("DATETIME", text,
                   "YYYY-MM-DD HH:MM:SS[.ffffff], at most 6 fraction digits");
  }
  return absl::StrFormat("%04d-%02d-%02d ", civil.year, civil.month,
                         civil.day) +
         FormatTime(civil);
}

absl::StatusOr<std::string> ParseTime(absl::string_view text) {
  absl::string_view rest = text;
  Civil civil;
  if (!TakeTime(rest, civil) || !rest.empty()) {
    return Invalid("TIME", text,
                   "HH:MM:SS[.ffffff], at most 6 fraction digits");
  }
  return FormatTime(civil);
}

absl::StatusOr<int64_t> ParseTimestamp(absl::string_view text) {
  absl::string_view rest = text;
  Civil civil;
  int offset = 0;
  constexpr absl::string_view kForm =
      "YYYY-MM-DD[ |T]HH:MM:SS[.ffffff][Z| UTC|+HH:MM], years 1 to 9999";
  if (!TakeDate(rest, civil)) return Invalid("TIMESTAMP", text, kForm);
  if (!rest.empty()) {
    if (rest.front() != ' ' && rest.front() != 'T' && rest.front() != 't') {
      return Invalid("TIMESTAMP", text, kForm);
    }
    rest.remove_prefix(1);
    if (!TakeTime(rest, civil) || !TakeZone(rest, offset)) {
      return Invalid("TIMESTAMP", text, kForm);
    }
  }
  const absl::CivilSecond second(civil.year, civil.month, civil.day, civil.hour,
                                 civil.minute, civil.second);
  const int64_t seconds =
      (second - absl::CivilSecond(1970, 1, 1, 0, 0, 0)) - offset;
  const int64_t micros = seconds * kMicrosPerSecond + civil.micros;
  if (micros < kMinTimestampMicros || micros > kMaxTimestampMicros) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text,
                     "' is outside BigQuery's TIMESTAMP range (years 1 to 9999 "
                     "UTC)"));
  }
  return micros;
}

absl::StatusOr<int64_t> TimestampFromSeconds(double seconds) {
  const double micros = std::round(seconds * kMicrosPerSecond);
  if (!std::isfinite(micros) ||
      micros < static_cast<double>(kMinTimestampMicros) ||
      micros > static_cast<double>(kMaxTimestampMicros)) {
    return absl::InvalidArgumentError(absl::StrCat(
        seconds,
        " seconds since the epoch is outside BigQuery's TIMESTAMP range "
        "(years 1 to 9999 UTC)"));
  }
  return static_cast<int64_t>(micros);
}

absl::StatusOr<std::string> ParseDecimal(absl::string_view text,
                                         int max_integer_digits,
                                         int max_fraction_digits) {
  absl::string_view rest = text;
  const auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a decimal number"));
  };
  bool negative = false;
  if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  std::string digits;  // Integer and fraction digits, without the point.
  int point = -1;      // Digits before the point.
  while (!rest.empty() &&
         (absl::ascii_isdigit(static_cast<unsigned char>(rest.front())) ||
          rest.front() == '.')) {
    if (rest.front() == '.') {
      if (point >= 0) return invalid();
      point = static_cast<int>(digits.size());
    } else {
      digits.push_back(rest.front());
    }
    rest.remove_prefix(1);
  }
  if (digits.empty()) return invalid();
  if (point < 0) point = static_cast<int>(digits.size());
  if (!rest.empty()) {
    if (rest.front() != 'e' && rest.front() != 'E') return invalid();
    rest.remove_prefix(1);
    int exponent = 0;
    if (!absl::SimpleAtoi(rest, &exponent) || exponent > 1000 ||
        exponent < -1000) {
      return invalid();
    }
    point += exponent;
  }
  // Pad so the point falls inside the digits, then trim zeros.
  if (point < 0) {
    digits.insert(0, static_cast<size_t>(-point), '0');
    point = 0;
  }
  if (point > static_cast<int>(digits.size())) {
    digits.append(static_cast<size_t>(point) - digits.size(), '0');
  }
  std::string integer = digits.substr(0, static_cast<size_t>(point));
  std::string fraction = digits.substr(static_cast<size_t>(point));
  integer.erase(0, integer.find_first_not_of('0'));
  fraction.erase(fraction.find_last_not_of('0') + 1);
  if (static_cast<int>(integer.size()) > max_integer_digits ||
      static_cast<int>(fraction.size()) > max_fraction_digits) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' does not fit: at most ", max_integer_digits,
                     " integer and ", max_fraction_digits, " fraction digits"));
  }
  if (integer.empty()) integer = "0";
  const bool zero = integer == "0" && fraction.empty();
  std::string out = negative && !zero ? "-" : "";
  absl::StrAppend(&out, integer);
  if (!fraction.empty()) absl::StrAppend(&out, ".", fraction);
  return out;
}

}  // namespace gcpstream::bigquery

#include "gcpstream/bigquery/civil_values.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::testing::HasSubstr;

TEST(CivilValuesTest, DatesAreDaysSinceTheEpoch) {
  EXPECT_EQ(*ParseDate("1970-01-01"), 0);
  EXPECT_EQ(*ParseDate("2024-01-01"), 19723);
  EXPECT_EQ(*ParseDate("1969-12-31"), -1);
  EXPECT_EQ(*ParseDate("0001-01-01"), -719162);
  EXPECT_EQ(*ParseDate("9999-12-31"), 2932896);
  for (const char* bad : {"2024-13-01", "2023-02-29", "2024-1-01", "0000-01-01",
                          "2024-01-01x", "", "20240101"}) {
    EXPECT_FALSE(ParseDate(bad).ok()) << bad;
  }
  EXPECT_THAT(ParseDate("2024-02-30").status().message(),
              HasSubstr("'2024-02-30' is not a valid DATE"));
}

TEST(CivilValuesTest, DateTimesAndTimesComeOutCanonical) {
  EXPECT_EQ(*ParseDateTime("2024-01-02T03:04:05.123456"),
            "2024-01-02 03:04:05.123456");
  EXPECT_EQ(*ParseDateTime("2024-01-02 03:04"), "2024-01-02 03:04:00");
  EXPECT_EQ(*ParseDateTime("2024-01-02 03:04:05.5"),
            "2024-01-02 03:04:05.500000");
  EXPECT_FALSE(ParseDateTime("2024-01-02 24:00:00").ok());
  EXPECT_FALSE(ParseDateTime("2024-01-02 03:04:05.1234567").ok());
  EXPECT_FALSE(ParseDateTime("2024-01-02 03:04:05Z").ok());
  EXPECT_EQ(*ParseTime("23:59:59.999999"), "23:59:59.999999");
  EXPECT_EQ(*ParseTime("07:08"), "07:08:00");
  EXPECT_FALSE(ParseTime("7:08").ok());
  EXPECT_FALSE(ParseTime("07:60").ok());
}

TEST(CivilValuesTest, TimestampsTakeZonesAndKeepTheRange) {
  EXPECT_EQ(*ParseTimestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseTimestamp("2024-01-02 03:04:05.123456 UTC"),
            1704164645123456);
  EXPECT_EQ(*ParseTimestamp("2024-01-02T03:04:05.123456+00:00"),
            1704164645123456);
  EXPECT_EQ(*ParseTimestamp("2024-01-02T05:04:05.123456+02:00"),
            1704164645123456);
  EXPECT_EQ(*ParseTimestamp("2024-01-01T19:04:05.123456-08"), 1704164645123456);
  EXPECT_EQ(*ParseTimestamp("2024-01-02"), 1704153600000000);
  EXPECT_EQ(*ParseTimestamp("0001-01-01 00:00:00"), -62135596800000000);
  EXPECT_FALSE(ParseTimestamp("0001-01-01 00:00:00+01:00").ok());
  EXPECT_FALSE(ParseTimestamp("2024-01-02T03:04:05.1234567Z").ok());
  EXPECT_FALSE(ParseTimestamp("2024-01-02T03:04:05+25:00").ok());
  EXPECT_FALSE(ParseTimestamp("yesterday").ok());
  EXPECT_EQ(*TimestampFromSeconds(1704164645.5), 1704164645500000);
  EXPECT_FALSE(TimestampFromSeconds(1e15).ok());
}

TEST(CivilValuesTest, DecimalsAreCheckedAgainstTheirDigits) {
  EXPECT_EQ(*ParseDecimal("123.456", 29, 9), "123.456");
  EXPECT_EQ(*ParseDecimal("-0.50", 29, 9), "-0.5");
  EXPECT_EQ(*ParseDecimal("+007", 29, 9), "7");
  EXPECT_EQ(*ParseDecimal("1.5e3", 29, 9), "1500");
  EXPECT_EQ(*ParseDecimal("25e-10", 29, 10), "0.0000000025");
  EXPECT_EQ(*ParseDecimal("-0", 29, 9), "0");
  EXPECT_EQ(*ParseDecimal(".5", 29, 9), "0.5");
  EXPECT_EQ(*ParseDecimal("99999999999999999999999999999.999999999", 29, 9),
            "99999999999999999999999999999.999999999");
  EXPECT_THAT(ParseDecimal("1e29", 29, 9).status().message(),
              HasSubstr("at most 29 integer and 9 fraction digits"));
  EXPECT_FALSE(ParseDecimal("0.0000000001", 29, 9).ok());
  for (const char* bad : {"abc", "", "-", "1.2.3", "1e", "1e5x", "NaN", "."}) {
    EXPECT_FALSE(ParseDecimal(bad, 29, 9).ok()) << bad;
  }
}

}  // namespace
}  // namespace gcpstream::bigquery

#ifndef GCPSTREAM_CONFIG_DESTINATION_TEMPLATE_H_
#define GCPSTREAM_CONFIG_DESTINATION_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/config/field_path.h"

namespace gcpstream::config {

// A destination name computed per record from its fields and its event time
// only — never the wall clock, so a replay routes every record the same
// way. Placeholders in braces:
//   {region}                  a field (string, whole number or boolean)
//   {customer.region}         a nested field
//   {event_time:%Y%m%d}       the record's event time in UTC, formatted with
//                             %Y %m %d %H %M %S %j (digits only)
//   {hash(customer_id) % 4}   StableHash of the field's text, modulo N
// Anything else is literal text; braces cannot appear in literal text.
class DestinationTemplate {
 public:
  // InvalidArgument naming the offending placeholder and its offset in
  // `text` (the YAML loader adds the file position).
  static absl::StatusOr<DestinationTemplate> Parse(absl::string_view text);

  // The name for one record. InvalidArgument when a field is missing or
  // has a type a name cannot hold: a per-record failure for the sink's
  // failure policy.
  absl::StatusOr<std::string> Render(const json::JsonRecord& record,
                                     absl::Time event_time) const;
  // The same, appended to `out` (left partly written on failure).
  absl::Status RenderTo(const json::JsonRecord& record, absl::Time event_time,
                        std::string& out) const;

  // No placeholders: the same name for every record.
  bool constant() const;
  const std::string& text() const { return text_; }

 private:
  struct Literal {
    std::string text;
  };
  struct Field {
    FieldPath path;
  };
  struct EventTime {
    std::string format;
  };
  struct Hash {
    FieldPath path;
    uint64_t modulus = 1;
  };
  using Part = std::variant<Literal, Field, EventTime, Hash>;

  static absl::StatusOr<Part> ParsePlaceholder(absl::string_view inner);

  std::string text_;
  std::vector<Part> parts_;
};

// 64-bit FNV-1a of `bytes` (offset basis 14695981039346656037, prime
// 1099511628211): a fixed, documented function, so any process, version or
// language computes the same value and a replay lands in the same shard.
uint64_t StableHash(absl::string_view bytes);

// The text a field contributes to a name or a hash: a string as is, a whole
// number in decimal, a boolean as true/false. InvalidArgument for anything
// else (null, fractions, objects, arrays), naming the field.
absl::StatusOr<std::string> FieldText(const json::JsonValue& value,
                                      absl::string_view field);
// The same, appended to `out`.
absl::Status AppendFieldText(const json::JsonValue& value,
                             absl::string_view field, std::string& out);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_DESTINATION_TEMPLATE_H_

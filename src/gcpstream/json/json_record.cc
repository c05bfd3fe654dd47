#include "gcpstream/json/json_record.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/json/json_scan.h"
#include "gcpstream/json/record_scanner.h"
#include "gcpstream/json/simdjson_validate.h"

namespace gcpstream::json {
namespace {

// The default record's text, padded like every record's (not allocated:
// Parse() starts from a default record).
constexpr char kNull[4 + PaddedBytes::kPadding] = "null";

}  // namespace

JsonRecord::JsonRecord() : text_(kNull, 4) {}

absl::StatusOr<JsonRecord> JsonRecord::Parse(PaddedBytes text) {
  absl::string_view view = text.view();
  size_t begin = scan::SkipWhitespace(view, 0);
  size_t end = view.size();
  while (end > begin && scan::IsWhitespace(view[end - 1])) --end;
  if (begin == end) {
    return absl::InvalidArgumentError("not one JSON value: empty");
  }
  if (view.size() > UINT32_MAX) {
    return absl::InvalidArgumentError("not one JSON value: larger than 4 GiB");
  }
  view = view.substr(begin, end - begin);
  JsonRecord record;
  if (!ScanRecord(view, record.members_, record.escaped_keys_)) {
    // simdjson says what is wrong; the scanner refuses the same texts.
    absl::Status refused = ExplainInvalid(view);
    if (refused.ok()) {
      refused = absl::InvalidArgumentError("not one JSON value");
    }
    return refused;
  }
  record.bytes_ = std::move(text);
  record.text_ = view;
  return record;
}

JsonRecord JsonRecord::FromTree(const nlohmann::json& value) {
  absl::StatusOr<JsonRecord> record = Parse(
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  // A tree always dumps to valid JSON.
  return record.ok() ? *std::move(record) : JsonRecord();
}

absl::string_view JsonRecord::KeyOf(const Member& member) const {
  const absl::string_view keys =
      member.key_escaped ? absl::string_view(escaped_keys_) : text_;
  return keys.substr(member.key_offset, member.key_size);
}

std::optional<uint32_t> JsonRecord::Child(uint32_t at,
                                          absl::string_view name) const {
  size_t first = 0;
  size_t end = members_.size();
  if (at != kRoot) {
    if (at >= members_.size()) return std::nullopt;
    first = at + 1;
    end = members_[at].next;
  }
  // Only an object's members follow it in the index (arrays are not
  // indexed), so any other value has none: no type check is needed.
  std::optional<uint32_t> found;
  for (size_t i = first; i < end; i = members_[i].next) {
    const Member& member = members_[i];
    if (member.key_size == name.size() && KeyOf(member) == name) {
      found = static_cast<uint32_t>(i);  // The last of duplicates wins.
    }
  }
  return found;
}

JsonValue JsonRecord::ValueAt(uint32_t at) const {
  if (at == kRoot || at >= members_.size()) return root();
  const Member& member = members_[at];
  return JsonValue::Of(text_.substr(member.value_offset, member.value_size));
}

std::string JsonRecord::CompactText() const {
  std::string out;
  root().AppendCompact(out);
  return out;
}

nlohmann::json JsonRecord::Tree() const {
  return nlohmann::json::parse(text_.begin(), text_.end(), nullptr,
                               /*allow_exceptions=*/false);
}

}  // namespace gcpstream::json

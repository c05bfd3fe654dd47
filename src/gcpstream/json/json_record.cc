#include "gcpstream/json/json_record.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/json/json_scan.h"
#include "simdjson.h"

namespace gcpstream::json {
namespace {

// simdjson's default, kept on every path so that indexing (recursive per
// object) stays shallow.
constexpr size_t kMaxDepth = simdjson::DEFAULT_MAX_DEPTH;

// The default record's text, padded like every record's (not allocated:
// Parse() starts from a default record).
constexpr char kNull[4 + PaddedBytes::kPadding] = "null";

// One validating parser per thread, reused: it keeps its buffers sized to
// the largest record seen.
simdjson::dom::parser& ThreadParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

absl::Status Validate(absl::string_view text) {
  simdjson::dom::element ignored;
  const simdjson::error_code error =
      ThreadParser()
          .parse(text.data(), text.size(), /*realloc_if_needed=*/false)
          .get(ignored);
  if (error == simdjson::SUCCESS) return absl::OkStatus();
  // simdjson refuses whole numbers beyond 64 bits; JSON allows them, and a
  // record holding one is valid (its value reads as a double). Numbers
  // beyond a double's range stay refused. nlohmann stops reading at a NUL
  // byte, which valid JSON never holds.
  if (error == simdjson::NUMBER_ERROR &&
      text.find('\0') == absl::string_view::npos &&
      nlohmann::json::accept(text.begin(), text.end())) {
    if (scan::MaxDepth(text) <= kMaxDepth) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "not one JSON value: nested deeper than 1024 levels");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("not one JSON value: ", simdjson::error_message(error)));
}

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
  if (absl::Status valid = Validate(view); !valid.ok()) return valid;
  JsonRecord record;
  record.bytes_ = std::move(text);
  record.text_ = view;
  if (view.front() == '{') record.IndexObject(0);
  return record;
}

JsonRecord JsonRecord::FromTree(const nlohmann::json& value) {
  absl::StatusOr<JsonRecord> record = Parse(
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  // A tree always dumps to valid JSON.
  return record.ok() ? *std::move(record) : JsonRecord();
}

size_t JsonRecord::IndexObject(size_t open) {
  const absl::string_view text = text_;
  size_t at = scan::SkipWhitespace(text, open + 1);
  while (at < text.size() && text[at] != '}') {
    const size_t key_end = scan::StringEnd(text, at);
    Member member;
    member.key_offset = static_cast<uint32_t>(at + 1);
    member.key_size = static_cast<uint32_t>(key_end - at - 1);
    const absl::string_view key = text.substr(at + 1, key_end - at - 1);
    if (std::memchr(key.data(), '\\', key.size()) != nullptr) {
      member.key_escaped = true;
      member.key_offset = static_cast<uint32_t>(escaped_keys_.size());
      AppendUnescaped(key, escaped_keys_);
      member.key_size =
          static_cast<uint32_t>(escaped_keys_.size() - member.key_offset);
    }
    at = scan::SkipWhitespace(text, key_end + 1);  // At ':'.
    const size_t value = scan::SkipWhitespace(text, at + 1);
    const size_t index = members_.size();
    members_.push_back(member);
    const size_t value_end =
        text[value] == '{' ? IndexObject(value) : scan::ValueEnd(text, value);
    members_[index].value_offset = static_cast<uint32_t>(value);
    members_[index].value_size = static_cast<uint32_t>(value_end - value);
    members_[index].next = static_cast<uint32_t>(members_.size());
    at = scan::SkipWhitespace(text, value_end);
    if (at < text.size() && text[at] == ',') {
      at = scan::SkipWhitespace(text, at + 1);
    }
  }
  return at + 1;
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

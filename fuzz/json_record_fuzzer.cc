// libFuzzer target: JsonRecord::Parse on any bytes, checked against
// nlohmann::json as a reference. Whatever one accepts the other must
// accept (except nesting beyond JsonRecord's documented 1024 levels), and
// every member reachable through objects must read the same. The record
// scanner must also accept exactly what simdjson (ExplainInvalid) accepts.
// See scripts/fuzz.sh.

#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "gcpstream/json/json_record.h"
#include "gcpstream/json/json_scan.h"
#include "gcpstream/json/padded_bytes.h"
#include "gcpstream/json/simdjson_validate.h"

namespace {

using gcpstream::json::JsonRecord;
using gcpstream::json::JsonType;
using gcpstream::json::JsonValue;

void Expect(bool condition) {
  if (!condition) std::abort();
}

void Compare(const JsonValue& value, const nlohmann::json& tree);

void CompareMembers(const JsonRecord& record, uint32_t at,
                    const nlohmann::json& tree) {
  for (const auto& [key, member] : tree.items()) {
    const std::optional<uint32_t> child = record.Child(at, key);
    Expect(child.has_value());
    Compare(record.ValueAt(*child), member);
    if (member.is_object()) CompareMembers(record, *child, member);
  }
}

void Compare(const JsonValue& value, const nlohmann::json& tree) {
  std::string scratch;
  switch (value.type()) {
    case JsonType::kNull:
      Expect(tree.is_null());
      break;
    case JsonType::kBoolean:
      Expect(tree.is_boolean() && tree.get<bool>() == value.boolean());
      break;
    case JsonType::kInteger:
      Expect(tree.is_number_integer() &&
             tree.get<int64_t>() == value.integer());
      break;
    case JsonType::kUnsigned:
      Expect(tree.is_number_unsigned() &&
             tree.get<uint64_t>() == value.unsigned_integer());
      break;
    case JsonType::kFloat:
      Expect(tree.is_number_float() && tree.get<double>() == value.number());
      break;
    case JsonType::kString:
      Expect(tree.is_string() &&
             tree.get_ref<const std::string&>() == value.string(scratch));
      break;
    case JsonType::kObject:
      Expect(tree.is_object());
      break;
    case JsonType::kArray: {
      Expect(tree.is_array());
      const auto elements = value.Elements();
      Expect(elements.size() == tree.size());
      for (size_t i = 0; i < elements.size(); ++i) {
        Compare(elements[i], tree[i]);
      }
      break;
    }
  }
  if (value.type() == JsonType::kObject || value.type() == JsonType::kArray) {
    std::string compact;
    value.AppendCompact(compact);
    Expect(nlohmann::json::parse(compact, nullptr, false) == tree);
  }
}

size_t Depth(const std::string& text) {
  size_t depth = 0;
  size_t deepest = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<JsonRecord> record = JsonRecord::Parse(text);
  const nlohmann::json tree = nlohmann::json::parse(text, nullptr, false);
  {
    // The scanner against simdjson, on the text Parse() scans.
    const gcpstream::json::PaddedBytes padded =
        gcpstream::json::PaddedBytes::Copy(text);
    absl::string_view view = padded.view();
    const size_t begin = gcpstream::json::scan::SkipWhitespace(view, 0);
    size_t end = view.size();
    while (end > begin && gcpstream::json::scan::IsWhitespace(view[end - 1])) {
      --end;
    }
    view = view.substr(begin, end - begin);
    const bool simdjson_accepts =
        !view.empty() && gcpstream::json::ExplainInvalid(view).ok();
    Expect(record.ok() == simdjson_accepts || Depth(text) > 1000);
  }
  if (!record.ok()) {
    // nlohmann has no depth limit, and takes a NUL byte for the end of the
    // input; a bracket count over-estimates depth (brackets inside
    // strings), which only widens that exemption.
    Expect(tree.is_discarded() || Depth(text) > 1000 ||
           text.find('\0') != std::string::npos);
    return 0;
  }
  Expect(!tree.is_discarded());
  Expect(record->text().find('\0') == absl::string_view::npos);
  Compare(record->root(), tree);
  if (tree.is_object()) CompareMembers(*record, JsonRecord::kRoot, tree);
  Expect(nlohmann::json::parse(record->CompactText(), nullptr, false) == tree);
  return 0;
}

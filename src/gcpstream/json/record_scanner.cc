#include "gcpstream/json/record_scanner.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <system_error>

#include "gcpstream/json/json_value.h"
#include "simdjson.h"

namespace gcpstream::json {
namespace {

// 16 bytes compared at once (SSE2 or NEON, by the compiler's vector
// extension), four at a time: string contents are most of a record's
// bytes.
using Bytes16 = uint8_t __attribute__((vector_size(16)));

bool AnySet(Bytes16 mask) {
  uint64_t halves[2];
  std::memcpy(halves, &mask, sizeof(halves));
  return (halves[0] | halves[1]) != 0;
}

// A quote, a backslash or a control character (below 0x20): where a
// string's plain run ends.
Bytes16 Stops(Bytes16 chunk) {
  return (chunk == '"') | (chunk == '\\') | ((chunk & 0xE0) == 0);
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Far beyond any double's decimal exponent; an exponent this large decides
// the sign of the magnitude whatever the digits are.
constexpr int64_t kExponentCap = int64_t{1} << 40;

class Scanner {
 public:
  Scanner(absl::string_view text, MemberIndex& members,
          std::string& escaped_keys)
      : text_(text.data()),
        size_(text.size()),
        members_(members),
        escaped_keys_(escaped_keys) {}

  bool Run() {
    SkipWhitespace();
    if (!Value(/*index=*/true, /*depth=*/0)) return false;
    SkipWhitespace();
    if (at_ != size_) return false;
    // Only strings may hold bytes beyond ASCII (anywhere else the grammar
    // refused them), so their text is checked as UTF-8 once, whole.
    return !AnySet(high_bytes_ >= 0x80) ||
           simdjson::validate_utf8(text_, size_);
  }

 private:
  void SkipWhitespace() {
    while (at_ < size_ && (text_[at_] == ' ' || text_[at_] == '\n' ||
                           text_[at_] == '\r' || text_[at_] == '\t')) {
      ++at_;
    }
  }

  // A value at at_ (after whitespace); leaves at_ just past it. `depth`:
  // the non-empty objects and arrays around it.
  bool Value(bool index, int depth) {
    if (at_ >= size_) return false;
    switch (text_[at_]) {
      case '{':
        return Object(index, depth);
      case '[':
        return Array(depth);
      case '"': {
        bool escaped = false;
        return String(escaped);
      }
      case 't':
        return Literal("true", 4);
      case 'f':
        return Literal("false", 5);
      case 'n':
        return Literal("null", 4);
      default:
        return Number();
    }
  }

  bool Literal(const char* word, size_t size) {
    if (size_ - at_ < size || std::memcmp(text_ + at_, word, size) != 0) {
      return false;
    }
    at_ += size;
    return true;
  }

  // Where an object or array is, or what follows one of its items: kNext
  // (an item follows), kClosed (past its end) or kInvalid.
  enum class After { kNext, kClosed, kInvalid };

  // Past an opening brace or bracket and the whitespace after it. An empty
  // one is closed at once and is no level of nesting; otherwise `depth`
  // counts one more.
  After Open(char close, int& depth) {
    ++at_;
    SkipWhitespace();
    if (at_ < size_ && text_[at_] == close) {
      ++at_;
      return After::kClosed;
    }
    return ++depth > kMaxNesting ? After::kInvalid : After::kNext;
  }

  bool Object(bool index, int depth) {
    if (const After opened = Open('}', depth); opened != After::kNext) {
      return opened == After::kClosed;
    }
    while (true) {
      if (at_ >= size_ || text_[at_] != '"') return false;
      const size_t key = at_ + 1;
      bool key_escaped = false;
      if (!String(key_escaped)) return false;
      const size_t key_size = at_ - 1 - key;
      SkipWhitespace();
      if (at_ >= size_ || text_[at_] != ':') return false;
      ++at_;
      SkipWhitespace();
      const size_t value = at_;
      size_t slot = 0;
      if (index) {
        slot = members_.size();
        IndexedMember& member = members_.emplace_back();
        member.key_offset = static_cast<uint32_t>(key);
        member.key_size = static_cast<uint32_t>(key_size);
        if (key_escaped) {
          member.key_escaped = true;
          member.key_offset = static_cast<uint32_t>(escaped_keys_.size());
          AppendUnescaped(absl::string_view(text_ + key, key_size),
                          escaped_keys_);
          member.key_size =
              static_cast<uint32_t>(escaped_keys_.size() - member.key_offset);
        }
      }
      if (!Value(index, depth)) return false;
      if (index) {
        IndexedMember& member = members_[slot];
        member.value_offset = static_cast<uint32_t>(value);
        member.value_size = static_cast<uint32_t>(at_ - value);
        member.next = static_cast<uint32_t>(members_.size());
      }
      if (const After after = Separator('}'); after != After::kNext) {
        return after == After::kClosed;
      }
    }
  }

  // What follows an object's member or an array's element: a comma (and
  // whitespace) before the next one, or `close`.
  After Separator(char close) {
    SkipWhitespace();
    if (at_ >= size_) return After::kInvalid;
    if (text_[at_] == close) {
      ++at_;
      return After::kClosed;
    }
    if (text_[at_] != ',') return After::kInvalid;
    ++at_;
    SkipWhitespace();
    return After::kNext;
  }

  // Elements are validated, not indexed: field paths do not look into
  // arrays.
  bool Array(int depth) {
    if (const After opened = Open(']', depth); opened != After::kNext) {
      return opened == After::kClosed;
    }
    while (true) {
      if (!Value(/*index=*/false, depth)) return false;
      if (const After after = Separator(']'); after != After::kNext) {
        return after == After::kClosed;
      }
    }
  }

  // A string at at_ (its opening quote); leaves at_ past the closing one.
  bool String(bool& escaped) {
    ++at_;
    while (true) {
      // Most strings are short (keys): one chunk first.
      Bytes16 first;
      std::memcpy(&first, text_ + at_, sizeof(first));
      high_bytes_ |= first;
      if (!AnySet(Stops(first))) {
        at_ += sizeof(first);
        if (at_ >= size_) return false;
        if (!LongString()) return false;
      }
      while (text_[at_] != '"' && text_[at_] != '\\' &&
             static_cast<uint8_t>(text_[at_]) >= 0x20) {
        ++at_;
      }
      if (at_ >= size_) return false;  // The stop was in the padding.
      const char stop = text_[at_];
      if (stop == '"') {
        ++at_;
        return true;
      }
      if (stop != '\\') return false;  // A control character.
      escaped = true;
      if (!Escape()) return false;
      if (at_ >= size_) return false;
    }
  }

  // Skips 64 bytes a step to the 16-byte chunk holding the next stop; false
  // when the text ends first. at_ < size_ here, and 64 bytes of padding
  // follow the text.
  bool LongString() {
    while (true) {
      Bytes16 a;
      Bytes16 b;
      Bytes16 c;
      Bytes16 d;
      std::memcpy(&a, text_ + at_, sizeof(a));
      std::memcpy(&b, text_ + at_ + 16, sizeof(b));
      std::memcpy(&c, text_ + at_ + 32, sizeof(c));
      std::memcpy(&d, text_ + at_ + 48, sizeof(d));
      high_bytes_ |= (a | b) | (c | d);
      const Bytes16 stop_a = Stops(a);
      const Bytes16 stop_b = Stops(b);
      const Bytes16 stop_c = Stops(c);
      const Bytes16 stop_d = Stops(d);
      if (!AnySet((stop_a | stop_b) | (stop_c | stop_d))) {
        at_ += 64;
        if (at_ >= size_) return false;
        continue;
      }
      if (!AnySet(stop_a)) {
        at_ += 16;
        if (!AnySet(stop_b)) {
          at_ += 16;
          if (!AnySet(stop_c)) at_ += 16;
        }
      }
      return true;
    }
  }

  // An escape at at_ (its backslash); leaves at_ past it.
  bool Escape() {
    if (size_ - at_ < 2) return false;
    switch (text_[at_ + 1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        at_ += 2;
        return true;
      case 'u':
        break;
      default:
        return false;
    }
    uint32_t unit = 0;
    if (!HexUnit(unit)) return false;
    if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // A lone low half.
    if (unit < 0xD800 || unit > 0xDBFF) return true;
    // A high half: a low half must follow at once.
    if (size_ - at_ < 2 || text_[at_] != '\\' || text_[at_ + 1] != 'u') {
      return false;
    }
    uint32_t low = 0;
    return HexUnit(low) && low >= 0xDC00 && low <= 0xDFFF;
  }

  // "\uXXXX" at at_; leaves at_ past it.
  bool HexUnit(uint32_t& unit) {
    if (size_ - at_ < 6) return false;
    for (size_t i = 2; i < 6; ++i) {
      const char c = text_[at_ + i];
      if (!IsHex(c)) return false;
      const uint32_t digit = c <= '9'   ? c - '0'
                             : c <= 'F' ? c - 'A' + 10
                                        : c - 'a' + 10;
      unit = unit * 16 + digit;
    }
    at_ += 6;
    return true;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, whose value must be a
  // finite double.
  bool Number() {
    const size_t start = at_;
    if (at_ < size_ && text_[at_] == '-') ++at_;
    const size_t whole = at_;
    if (at_ >= size_ || !IsDigit(text_[at_])) return false;
    if (text_[at_] == '0') {
      ++at_;
    } else {
      while (at_ < size_ && IsDigit(text_[at_])) ++at_;
    }
    const size_t whole_end = at_;
    size_t fraction = at_;
    if (at_ < size_ && text_[at_] == '.') {
      ++at_;
      fraction = at_;
      if (!Digits()) return false;
    }
    const size_t fraction_end = at_;
    size_t exponent = 0;
    if (at_ < size_ && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      exponent = at_;
      if (at_ < size_ && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (!Digits()) return false;
    }
    // Below 10^308 no number reaches DBL_MAX (about 1.8e308): only long
    // numbers or large exponents need reading (underflow is valid: zero).
    int64_t power = 0;
    if (exponent != 0) {
      size_t digit = exponent;
      const bool negative = text_[digit] == '-';
      if (text_[digit] == '+' || negative) ++digit;
      for (; digit < at_ && power < kExponentCap; ++digit) {
        power = power * 10 + (text_[digit] - '0');
      }
      if (negative) power = -power;
    }
    if (static_cast<int64_t>(whole_end - whole) + power <= 308) return true;
    double value = 0;
    if (std::from_chars(text_ + start, text_ + at_, value).ec == std::errc()) {
      return true;
    }
    // Out of range: too large (refused), or too small (it reads as zero,
    // and is valid). Which one is the sign of the decimal exponent.
    int64_t magnitude = 0;
    size_t first = whole;
    while (first < whole_end && text_[first] == '0') ++first;
    if (first < whole_end) {
      magnitude = static_cast<int64_t>(whole_end - first) - 1;
    } else {
      first = fraction;
      while (first < fraction_end && text_[first] == '0') ++first;
      magnitude = -static_cast<int64_t>(first - fraction) - 1;
    }
    return magnitude + power < 0;
  }

  bool Digits() {
    const size_t first = at_;
    while (at_ < size_ && IsDigit(text_[at_])) ++at_;
    return at_ > first;
  }

  const char* text_;
  size_t size_;
  size_t at_ = 0;
  Bytes16 high_bytes_ = {};
  MemberIndex& members_;
  std::string& escaped_keys_;
};

}  // namespace

bool ScanRecord(absl::string_view text, MemberIndex& members,
                std::string& escaped_keys) {
  return Scanner(text, members, escaped_keys).Run();
}

}  // namespace gcpstream::json

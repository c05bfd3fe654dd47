#include "gcpstream/iceberg/avro/avro_reader.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gcpstream::iceberg {
namespace {

using Json = nlohmann::json;

constexpr char kMagic[] = {'O', 'b', 'j', '\x01'};
constexpr size_t kSyncBytes = 16;
// Far beyond any manifest; keeps a corrupt count from allocating without
// bound.
constexpr int64_t kMaxItems = int64_t{1} << 28;
// No manifest block comes near this once inflated.
constexpr size_t kMaxInflatedBytes = size_t{256} << 20;
// Nesting deeper than any Iceberg schema: a corrupt or hostile schema must
// not exhaust the stack.
constexpr int kMaxDepth = 64;

absl::Status Corrupt(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("not a valid Avro file: ", what));
}

// A schema member, or null when `object` is not an object or lacks `key`.
// nlohmann's value() throws on a member of another type than the default;
// a hostile schema must get a status instead.
const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

std::string NameOf(const Json& object) {
  const Json* name = Member(object, "name");
  return name != nullptr && name->is_string() ? name->get<std::string>() : "";
}

// Reads Avro's binary encoding from a span, never past its end.
class Decoder {
 public:
  // Values of zero bytes (null, empty records) cost no input, so a corrupt
  // count could ask for billions: the budget bounds the values decoded by
  // what the bytes can plausibly hold.
  explicit Decoder(absl::string_view bytes)
      : bytes_(bytes),
        budget_(int64_t{16} * static_cast<int64_t>(bytes.size()) + 1024) {}

  bool AtEnd() const { return at_ == bytes_.size(); }

  absl::StatusOr<int64_t> Long() {
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at_ >= bytes_.size()) return Corrupt("a number runs past the end");
      const auto byte = static_cast<uint8_t>(bytes_[at_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return static_cast<int64_t>(value >> 1) ^
               -static_cast<int64_t>(value & 1);
      }
    }
    return Corrupt("a number is longer than 10 bytes");
  }

  absl::StatusOr<absl::string_view> Take(int64_t length) {
    if (length < 0 || static_cast<uint64_t>(length) > bytes_.size() - at_) {
      return Corrupt(
          absl::StrCat("a length of ", length, " runs past the end"));
    }
    absl::string_view out = bytes_.substr(at_, static_cast<size_t>(length));
    at_ += static_cast<size_t>(length);
    return out;
  }

  absl::StatusOr<std::string> Bytes() {
    absl::StatusOr<int64_t> length = Long();
    if (!length.ok()) return length.status();
    absl::StatusOr<absl::string_view> taken = Take(*length);
    if (!taken.ok()) return taken.status();
    return std::string(*taken);
  }

  // A datum of `schema` (the writer's schema JSON; `named` resolves
  // references to named types).
  absl::StatusOr<Json> Datum(const Json& schema,
                             std::map<std::string, Json>& named, int depth) {
    if (depth > kMaxDepth) return Corrupt("the schema nests too deep");
    if (--budget_ < 0) return Corrupt("more values than its bytes can hold");
    if (schema.is_array()) {
      absl::StatusOr<int64_t> branch = Long();
      if (!branch.ok()) return branch.status();
      if (*branch < 0 || static_cast<size_t>(*branch) >= schema.size()) {
        return Corrupt(
            absl::StrCat("union branch ", *branch, " of ", schema.size()));
      }
      return Datum(schema[static_cast<size_t>(*branch)], named, depth + 1);
    }
    if (schema.is_string()) {
      const auto& type = schema.get_ref<const std::string&>();
      auto found = named.find(type);
      if (found != named.end()) return Datum(found->second, named, depth + 1);
      return Primitive(type);
    }
    if (!schema.is_object() || !schema.contains("type")) {
      return Corrupt(absl::StrCat("unreadable schema ", schema.dump()));
    }
    const Json& type = schema["type"];
    if (!type.is_string()) return Datum(type, named, depth + 1);
    const auto& kind = type.get_ref<const std::string&>();
    if (kind == "record" || kind == "error" || kind == "enum" ||
        kind == "fixed") {
      // The first definition stays: Datum() holds references into `named`,
      // which a redefinition (a corrupt schema) must not destroy.
      named.try_emplace(NameOf(schema), schema);
    }
    if (kind == "record" || kind == "error") {
      Json out = Json::object();
      const Json* fields = Member(schema, "fields");
      if (fields == nullptr || !fields->is_array()) {
        return Corrupt("a record schema without fields");
      }
      for (const Json& field : *fields) {
        const Json* field_type = Member(field, "type");
        if (field_type == nullptr) return Corrupt("a field without a type");
        absl::StatusOr<Json> value = Datum(*field_type, named, depth + 1);
        if (!value.ok()) return value.status();
        out[NameOf(field)] = *std::move(value);
      }
      return out;
    }
    if (kind == "enum") {
      absl::StatusOr<int64_t> index = Long();
      if (!index.ok()) return index.status();
      const Json* symbols = Member(schema, "symbols");
      if (symbols == nullptr || !symbols->is_array() || *index < 0 ||
          static_cast<size_t>(*index) >= symbols->size()) {
        return Corrupt(absl::StrCat("enum index ", *index));
      }
      return (*symbols)[static_cast<size_t>(*index)];
    }
    if (kind == "fixed") {
      const Json* size = Member(schema, "size");
      if (size == nullptr || !size->is_number_integer()) {
        return Corrupt("a fixed schema without an integer size");
      }
      absl::StatusOr<absl::string_view> bytes = Take(size->get<int64_t>());
      if (!bytes.ok()) return bytes.status();
      return Json(std::string(*bytes));
    }
    if (kind == "array" || kind == "map") {
      const bool is_map = kind == "map";
      const Json* items = Member(schema, is_map ? "values" : "items");
      if (items == nullptr) {
        return Corrupt(absl::StrCat("a", is_map ? " map" : "n array",
                                    " schema without its item type"));
      }
      Json out = is_map ? Json::object() : Json::array();
      while (true) {
        absl::StatusOr<int64_t> count = Long();
        if (!count.ok()) return count.status();
        if (*count == 0) return out;
        if (*count < 0) {
          // A negative count is followed by the block's size in bytes.
          *count = -*count;
          if (absl::Status skipped = Long().status(); !skipped.ok()) {
            return skipped;
          }
        }
        if (*count > kMaxItems) return Corrupt("a block count is too large");
        for (int64_t i = 0; i < *count; ++i) {
          std::string key;
          if (is_map) {
            absl::StatusOr<std::string> read = Bytes();
            if (!read.ok()) return read.status();
            key = *std::move(read);
          }
          absl::StatusOr<Json> value = Datum(*items, named, depth + 1);
          if (!value.ok()) return value.status();
          if (is_map) {
            out[key] = *std::move(value);
          } else {
            out.push_back(*std::move(value));
          }
        }
      }
    }
    return Primitive(kind);
  }

 private:
  absl::StatusOr<Json> Primitive(const std::string& type) {
    if (type == "null") return Json(nullptr);
    if (type == "boolean") {
      absl::StatusOr<absl::string_view> byte = Take(1);
      if (!byte.ok()) return byte.status();
      return Json((*byte)[0] != 0);
    }
    if (type == "int" || type == "long") {
      absl::StatusOr<int64_t> value = Long();
      if (!value.ok()) return value.status();
      return Json(*value);
    }
    if (type == "float" || type == "double") {
      const bool is_float = type == "float";
      absl::StatusOr<absl::string_view> raw = Take(is_float ? 4 : 8);
      if (!raw.ok()) return raw.status();
      if (is_float) {
        float value = 0;
        std::memcpy(&value, raw->data(), sizeof(value));
        return Json(value);
      }
      double value = 0;
      std::memcpy(&value, raw->data(), sizeof(value));
      return Json(value);
    }
    if (type == "bytes" || type == "string") {
      absl::StatusOr<std::string> value = Bytes();
      if (!value.ok()) return value.status();
      return Json(*std::move(value));
    }
    return Corrupt(absl::StrCat("unknown type '", type, "'"));
  }

  absl::string_view bytes_;
  size_t at_ = 0;
  int64_t budget_;
};

// Avro's deflate codec: raw deflate (no zlib header).
absl::StatusOr<std::string> Inflate(absl::string_view compressed) {
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
    return absl::ResourceExhaustedError("cannot start inflating");
  }
  std::string out;
  std::string chunk(size_t{64} * 1024, '\0');
  stream.next_in =
      reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - stream.avail_out);
    if (out.size() > kMaxInflatedBytes) {
      inflateEnd(&stream);
      return absl::ResourceExhaustedError(
          "an Avro block inflates beyond 256 MiB");
    }
    if (result == Z_BUF_ERROR && stream.avail_in == 0) break;
  }
  inflateEnd(&stream);
  if (result != Z_STREAM_END && result != Z_BUF_ERROR) {
    return Corrupt("a deflate block does not inflate");
  }
  return out;
}

}  // namespace

absl::StatusOr<AvroFile> ReadAvroFile(absl::string_view bytes) {
  if (bytes.size() < sizeof(kMagic) + kSyncBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return Corrupt("the Avro magic bytes are missing");
  }
  Decoder header(bytes.substr(sizeof(kMagic)));
  AvroFile file;
  std::map<std::string, Json> no_names;
  absl::StatusOr<Json> metadata =
      header.Datum(Json{{"type", "map"}, {"values", "bytes"}}, no_names, 0);
  if (!metadata.ok()) return metadata.status();
  for (const auto& [key, value] : metadata->items()) {
    file.metadata[key] = value.get<std::string>();
  }
  absl::StatusOr<absl::string_view> sync = header.Take(kSyncBytes);
  if (!sync.ok()) return sync.status();
  const Json schema = Json::parse(file.metadata["avro.schema"], nullptr, false);
  if (schema.is_discarded()) return Corrupt("the header's schema is not JSON");
  const std::string codec = file.metadata.contains("avro.codec")
                                ? file.metadata["avro.codec"]
                                : "null";
  if (codec != "null" && codec != "deflate") {
    return absl::UnimplementedError(
        absl::StrCat("Avro codec '", codec, "' (only null and deflate)"));
  }
  std::map<std::string, Json> named;
  while (!header.AtEnd()) {
    absl::StatusOr<int64_t> count = header.Long();
    if (!count.ok()) return count.status();
    absl::StatusOr<int64_t> size = header.Long();
    if (!size.ok()) return size.status();
    absl::StatusOr<absl::string_view> block = header.Take(*size);
    if (!block.ok()) return block.status();
    absl::StatusOr<absl::string_view> marker = header.Take(kSyncBytes);
    if (!marker.ok()) return marker.status();
    if (*marker != *sync) return Corrupt("a block's sync marker differs");
    if (*count < 0 || *count > kMaxItems) {
      return Corrupt(absl::StrCat("a block of ", *count, " datums"));
    }
    std::string inflated;
    absl::string_view data = *block;
    if (codec == "deflate") {
      absl::StatusOr<std::string> raw = Inflate(*block);
      if (!raw.ok()) return raw.status();
      inflated = *std::move(raw);
      data = inflated;
    }
    Decoder datums(data);
    for (int64_t i = 0; i < *count; ++i) {
      absl::StatusOr<Json> record = datums.Datum(schema, named, 0);
      if (!record.ok()) return record.status();
      file.records.push_back(*std::move(record));
    }
  }
  return file;
}

}  // namespace gcpstream::iceberg

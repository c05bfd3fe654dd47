#include "gcpstream/iceberg/avro/avro_container.h"

#include <random>
#include <utility>

#include "gcpstream/iceberg/avro/avro_encoder.h"

namespace gcpstream::iceberg {
namespace {

// A block is written once this many bytes of datums have gathered: large
// enough that the per-block framing is noise, small enough that a reader
// never holds much.
constexpr size_t kBlockBytes = size_t{64} << 10;

}  // namespace

AvroContainerWriter::AvroContainerWriter(
    std::string schema_json, std::map<std::string, std::string> metadata,
    std::string sync_marker)
    : sync_marker_(std::move(sync_marker)) {
  metadata["avro.schema"] = std::move(schema_json);
  metadata["avro.codec"] = "null";
  AvroEncoder header;
  header.Fixed("Obj\x01");
  header.BlockCount(static_cast<int64_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    header.String(key);
    header.Bytes(value);
  }
  header.EndBlocks();
  header.Fixed(sync_marker_);
  file_ = header.Take();
}

void AvroContainerWriter::Add(absl::string_view encoded_datum) {
  block_.append(encoded_datum.data(), encoded_datum.size());
  ++block_datums_;
  ++datums_;
  if (block_.size() >= kBlockBytes) FlushBlock();
}

void AvroContainerWriter::FlushBlock() {
  if (block_datums_ == 0) return;
  AvroEncoder framing;
  framing.Long(block_datums_);
  framing.Long(static_cast<int64_t>(block_.size()));
  file_.append(framing.bytes());
  file_.append(block_);
  file_.append(sync_marker_);
  block_.clear();
  block_datums_ = 0;
}

std::string AvroContainerWriter::Finish() {
  FlushBlock();
  return std::move(file_);
}

std::string AvroContainerWriter::RandomSyncMarker() {
  std::random_device random;
  std::string marker(16, '\0');
  for (char& byte : marker) {
    byte = static_cast<char>(random() & 0xff);
  }
  return marker;
}

}  // namespace gcpstream::iceberg

#ifndef GCPSTREAM_ICEBERG_AVRO_AVRO_CONTAINER_H_
#define GCPSTREAM_ICEBERG_AVRO_AVRO_CONTAINER_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/string_view.h"

namespace gcpstream::iceberg {

// An Avro object container file (uncompressed) with key-value metadata in
// its header, as Iceberg's manifests and manifest lists need ("schema",
// "partition-spec", "format-version", ...): the header, then blocks of
// datums each ended by the file's sync marker. See
// docs/adr/0001-avro-container-writer.md for why this is not avro-c's
// writer.
class AvroContainerWriter {
 public:
  // `schema_json` is the writer schema every datum follows; `metadata` is
  // added to the header beside `avro.schema` and `avro.codec` (null).
  // `sync_marker` must be 16 bytes; pass random ones (tests pass fixed
  // ones for reproducible files).
  AvroContainerWriter(std::string schema_json,
                      std::map<std::string, std::string> metadata,
                      std::string sync_marker);

  // One datum, encoded by an AvroEncoder in the schema's order.
  void Add(absl::string_view encoded_datum);

  int64_t datums() const { return datums_; }

  // The whole file.
  std::string Finish();

  // 16 random bytes for a sync marker.
  static std::string RandomSyncMarker();

 private:
  void FlushBlock();

  std::string file_;
  std::string sync_marker_;
  std::string block_;
  int64_t block_datums_ = 0;
  int64_t datums_ = 0;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_AVRO_AVRO_CONTAINER_H_

#ifndef GCPSTREAM_ICEBERG_AVRO_AVRO_READER_H_
#define GCPSTREAM_ICEBERG_AVRO_AVRO_READER_H_

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::iceberg {

// An Avro object container file, decoded with its own (writer's) schema.
struct AvroFile {
  // The header's metadata (`avro.schema`, `avro.codec`, and for Iceberg's
  // files `format-version`, `snapshot-id`, ...).
  std::map<std::string, std::string> metadata;
  // Each datum as a JSON value: records as objects by field name, unions as
  // their branch's value (null for the null branch), arrays, maps as
  // objects, bytes and fixed as strings holding the raw bytes (never to be
  // dumped as JSON text), enums as their symbol.
  std::vector<nlohmann::json> records;
};

// Decodes a whole container file written by any Avro writer: codecs `null`
// and `deflate` (what Iceberg's writers use; others are Unimplemented
// naming the codec). DataLoss describing the first inconsistency when the
// file is not Avro or is corrupt or truncated; never reads past the bytes.
absl::StatusOr<AvroFile> ReadAvroFile(absl::string_view bytes);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_AVRO_AVRO_READER_H_

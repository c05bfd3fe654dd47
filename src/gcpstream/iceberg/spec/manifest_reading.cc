#include "gcpstream/iceberg/spec/manifest_reading.h"

#include <map>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/avro/avro_reader.h"

namespace gcpstream::iceberg {
namespace {

using PlainJson = nlohmann::json;

// Reads named fields of one decoded record, remembering the first problem.
class Fields {
 public:
  Fields(const PlainJson& record, const std::string& path)
      : record_(record), path_(path) {}

  template <typename T>
  std::optional<T> Optional(const char* name) {
    if (!record_.contains(name) || record_[name].is_null()) return std::nullopt;
    const PlainJson& value = record_[name];
    if constexpr (std::is_same_v<T, std::string>) {
      if (value.is_string()) return value.get<std::string>();
    } else {
      if (value.is_number_integer()) return value.get<T>();
    }
    Fail(name, "has the wrong type");
    return std::nullopt;
  }

  template <typename T>
  T Required(const char* name) {
    std::optional<T> value = Optional<T>(name);
    if (!value.has_value() && status_.ok()) Fail(name, "is missing");
    return value.value_or(T());
  }

  // An Iceberg int-keyed map: an array of {key, value} records.
  template <typename T>
  std::map<int32_t, T> IdMap(const char* name) {
    std::map<int32_t, T> out;
    if (!record_.contains(name) || record_[name].is_null()) return out;
    for (const PlainJson& pair : record_[name]) {
      if (!pair.is_object() || !pair.contains("key") ||
          !pair["key"].is_number_integer() || !pair.contains("value")) {
        Fail(name, "is not a map of field ids");
        return out;
      }
      out.emplace(pair["key"].get<int32_t>(), pair["value"].get<T>());
    }
    return out;
  }

  const PlainJson& Record(const char* name) {
    if (!record_.contains(name) || !record_[name].is_object()) {
      Fail(name, "is missing");
      return empty_;
    }
    return record_[name];
  }

  absl::Status status() const { return status_; }

 private:
  void Fail(const char* name, const char* what) {
    if (status_.ok()) {
      status_ = absl::DataLossError(
          absl::StrCat(path_, ": field '", name, "' ", what));
    }
  }

  const PlainJson& record_;
  const std::string& path_;
  absl::Status status_;
  const PlainJson empty_ = PlainJson::object();
};

absl::StatusOr<AvroFile> ReadAvro(FileIO& io, const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadAll(io, path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<AvroFile> file = ReadAvroFile(*bytes);
  if (!file.ok()) {
    return absl::Status(file.status().code(),
                        absl::StrCat(path, ": ", file.status().message()));
  }
  return file;
}

}  // namespace

absl::StatusOr<std::vector<ManifestFile>> ReadManifestList(
    FileIO& io, const std::string& path) {
  absl::StatusOr<AvroFile> file = ReadAvro(io, path);
  if (!file.ok()) return file.status();
  std::vector<ManifestFile> out;
  out.reserve(file->records.size());
  for (const PlainJson& record : file->records) {
    Fields fields(record, path);
    ManifestFile m;
    m.manifest_path = fields.Required<std::string>("manifest_path");
    m.manifest_length = fields.Required<int64_t>("manifest_length");
    m.partition_spec_id = fields.Required<int32_t>("partition_spec_id");
    m.content = fields.Optional<int32_t>("content").value_or(0);
    m.sequence_number = fields.Optional<int64_t>("sequence_number").value_or(0);
    m.min_sequence_number =
        fields.Optional<int64_t>("min_sequence_number").value_or(0);
    m.added_snapshot_id = fields.Required<int64_t>("added_snapshot_id");
    m.added_files_count =
        fields.Optional<int32_t>("added_files_count").value_or(0);
    m.existing_files_count =
        fields.Optional<int32_t>("existing_files_count").value_or(0);
    m.deleted_files_count =
        fields.Optional<int32_t>("deleted_files_count").value_or(0);
    m.added_rows_count =
        fields.Optional<int64_t>("added_rows_count").value_or(0);
    m.existing_rows_count =
        fields.Optional<int64_t>("existing_rows_count").value_or(0);
    m.deleted_rows_count =
        fields.Optional<int64_t>("deleted_rows_count").value_or(0);
    if (!fields.status().ok()) return fields.status();
    out.push_back(std::move(m));
  }
  return out;
}

absl::StatusOr<std::vector<ManifestEntry>> ReadManifest(
    FileIO& io, const ManifestFile& manifest) {
  const std::string& path = manifest.manifest_path;
  absl::StatusOr<AvroFile> file = ReadAvro(io, path);
  if (!file.ok()) return file.status();
  std::vector<ManifestEntry> out;
  out.reserve(file->records.size());
  for (const PlainJson& record : file->records) {
    Fields fields(record, path);
    ManifestEntry entry;
    const auto status = fields.Required<int32_t>("status");
    if (status < 0 || status > 2) {
      return absl::DataLossError(
          absl::StrCat(path, ": entry status ", status, " is unknown"));
    }
    entry.status = static_cast<EntryStatus>(status);
    entry.snapshot_id = fields.Optional<int64_t>("snapshot_id");
    entry.sequence_number = fields.Optional<int64_t>("sequence_number");
    entry.file_sequence_number =
        fields.Optional<int64_t>("file_sequence_number");
    // Added entries inherit what they leave unset from the list.
    if (entry.status == EntryStatus::kAdded) {
      if (!entry.snapshot_id.has_value()) {
        entry.snapshot_id = manifest.added_snapshot_id;
      }
      if (!entry.sequence_number.has_value()) {
        entry.sequence_number = manifest.sequence_number;
      }
      if (!entry.file_sequence_number.has_value()) {
        entry.file_sequence_number = manifest.sequence_number;
      }
    }
    Fields data(fields.Record("data_file"), path);
    DataFile& d = entry.data_file;
    d.file_path = data.Required<std::string>("file_path");
    d.file_format = data.Required<std::string>("file_format");
    d.record_count = data.Required<int64_t>("record_count");
    d.file_size_in_bytes = data.Required<int64_t>("file_size_in_bytes");
    d.column_sizes = data.IdMap<int64_t>("column_sizes");
    d.value_counts = data.IdMap<int64_t>("value_counts");
    d.null_value_counts = data.IdMap<int64_t>("null_value_counts");
    d.lower_bounds = data.IdMap<std::string>("lower_bounds");
    d.upper_bounds = data.IdMap<std::string>("upper_bounds");
    const PlainJson& d_record = fields.Record("data_file");
    if (d_record.contains("split_offsets") &&
        d_record["split_offsets"].is_array()) {
      for (const PlainJson& offset : d_record["split_offsets"]) {
        if (offset.is_number_integer()) {
          d.split_offsets.push_back(offset.get<int64_t>());
        }
      }
    }
    if (!fields.status().ok()) return fields.status();
    if (!data.status().ok()) return data.status();
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace gcpstream::iceberg

#include "gcpstream/runtime/checkpoint_storage.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace gcpstream::runtime {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kPrefix[] = "chk-";
constexpr char kSuffix[] = ".json";

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat("checkpoint storage: ", what, " '",
                                          path, "': ", std::strerror(errno)));
}

absl::Status Fsync(const std::string& path, bool directory) {
  const int fd =
      open(path.c_str(),
           (directory ? O_RDONLY | O_DIRECTORY : O_WRONLY) | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  const int result = fsync(fd);
  close(fd);
  if (result != 0) return Errno("cannot fsync", path);
  return absl::OkStatus();
}

json BlobList(const std::vector<std::string>& blobs) {
  json list = json::array();
  for (const std::string& blob : blobs) {
    list.push_back(absl::Base64Escape(blob));
  }
  return list;
}

absl::StatusOr<std::vector<std::string>> ParseBlobList(const json& list) {
  std::vector<std::string> blobs;
  if (!list.is_array()) return absl::DataLossError("expected an array");
  for (const json& item : list) {
    std::string blob;
    if (!item.is_string() ||
        !absl::Base64Unescape(item.get<std::string>(), &blob)) {
      return absl::DataLossError("expected base64 strings");
    }
    blobs.push_back(std::move(blob));
  }
  return blobs;
}

json ToJson(const CheckpointData& data) {
  json sources = json::object();
  for (const auto& [source, splits] : data.source_splits) {
    json list = json::array();
    for (const Split& split : splits) {
      list.push_back(
          {{"id", split.id}, {"state", absl::Base64Escape(split.state)}});
    }
    sources[source] = std::move(list);
  }
  json sinks = json::object();
  for (const auto& [sink, states] : data.sink_states) {
    sinks[sink]["writer_states"] = BlobList(states);
  }
  for (const auto& [sink, committables] : data.committables) {
    sinks[sink]["committables"] = BlobList(committables);
  }
  return {{"format", 1},
          {"checkpoint_id", data.id},
          {"final", data.final},
          {"time_micros", absl::ToUnixMicros(data.time)},
          {"pipeline", data.pipeline},
          {"sources", std::move(sources)},
          {"sinks", std::move(sinks)}};
}

absl::StatusOr<CheckpointData> FromJson(const json& root) {
  CheckpointData data;
  if (!root.is_object() || root.value("format", 0) != 1) {
    return absl::DataLossError("not a gcpstream checkpoint (format 1)");
  }
  data.id = root.value("checkpoint_id", int64_t{0});
  data.final = root.value("final", false);
  data.time = absl::FromUnixMicros(root.value("time_micros", int64_t{0}));
  data.pipeline = root.value("pipeline", std::string());
  // Named copies: items() of a temporary would dangle in a range-for.
  const json sources = root.value("sources", json::object());
  const json sinks = root.value("sinks", json::object());
  for (const auto& [source, list] : sources.items()) {
    auto& splits = data.source_splits[source];
    for (const json& item : list) {
      Split split;
      split.id = item.value("id", std::string());
      if (!absl::Base64Unescape(item.value("state", std::string()),
                                &split.state)) {
        return absl::DataLossError("split state is not base64");
      }
      splits.push_back(std::move(split));
    }
  }
  for (const auto& [sink, entry] : sinks.items()) {
    if (entry.contains("writer_states")) {
      auto states = ParseBlobList(entry["writer_states"]);
      if (!states.ok()) return states.status();
      data.sink_states[sink] = *std::move(states);
    }
    if (entry.contains("committables")) {
      auto committables = ParseBlobList(entry["committables"]);
      if (!committables.ok()) return committables.status();
      data.committables[sink] = *std::move(committables);
    }
  }
  return data;
}

}  // namespace

absl::StatusOr<CheckpointStorage> CheckpointStorage::Open(std::string directory,
                                                          int retain) {
  if (retain < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint-retention: ", retain, " must be at least 1"));
  }
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("checkpoint-directory: cannot create '", directory,
                     "': ", error.message()));
  }
  return CheckpointStorage(std::move(directory), retain);
}

std::string CheckpointStorage::PathOf(int64_t id) const {
  return absl::StrFormat("%s/%s%020d%s", directory_, kPrefix, id, kSuffix);
}

absl::StatusOr<int64_t> CheckpointStorage::Write(const CheckpointData& data) {
  const std::string text = ToJson(data).dump();
  const std::string path = PathOf(data.id);
  const std::string temp = path + ".tmp";
  {
    const int fd =
        open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Errno("cannot create", temp);
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        close(fd);
        return Errno("cannot write", temp);
      }
      written += static_cast<size_t>(n);
    }
    const int synced = fsync(fd);
    close(fd);
    if (synced != 0) return Errno("cannot fsync", temp);
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    return Errno("cannot rename", temp);
  }
  if (absl::Status synced = Fsync(directory_, true); !synced.ok()) {
    return synced;
  }

  auto ids = List();
  if (ids.ok() && static_cast<int>(ids->size()) > retain_) {
    for (size_t i = 0; i + retain_ < ids->size(); ++i) {
      std::error_code ignored;
      fs::remove(PathOf((*ids)[i]), ignored);
    }
  }
  return static_cast<int64_t>(text.size());
}

absl::StatusOr<std::vector<int64_t>> CheckpointStorage::List() const {
  std::vector<int64_t> ids;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kPrefix) || name.size() <= sizeof(kSuffix) ||
        name.substr(name.size() - (sizeof(kSuffix) - 1)) != kSuffix) {
      continue;  // Temporary files and anything else are not checkpoints.
    }
    int64_t id = 0;
    const std::string digits =
        name.substr(sizeof(kPrefix) - 1, name.size() - (sizeof(kPrefix) - 1) -
                                             (sizeof(kSuffix) - 1));
    if (absl::SimpleAtoi(digits, &id)) ids.push_back(id);
  }
  if (error) {
    return absl::InternalError(
        absl::StrCat("checkpoint-directory: cannot list '", directory_,
                     "': ", error.message()));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

absl::StatusOr<std::optional<CheckpointData>> CheckpointStorage::LoadLatest()
    const {
  auto ids = List();
  if (!ids.ok()) return ids.status();
  if (ids->empty()) return std::optional<CheckpointData>();
  const std::string path = PathOf(ids->back());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    return absl::DataLossError(
        absl::StrCat("cannot read checkpoint '", path, "'"));
  }
  const json root =
      json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::DataLossError(
        absl::StrCat("checkpoint '", path,
                     "' is corrupt (not JSON); refusing to resume from an "
                     "older one. Move it "
                     "away only if you accept replaying what it covered"));
  }
  auto data = FromJson(root);
  if (!data.ok()) {
    return absl::DataLossError(
        absl::StrCat("checkpoint '", path, "': ", data.status().message()));
  }
  return std::optional<CheckpointData>(*std::move(data));
}

}  // namespace gcpstream::runtime

#include "gcpstream/storage/storage_client.h"

#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gcpstream/storage/crc32c.h"

namespace gcpstream::storage {
namespace {

using Json = nlohmann::json;

std::string ObjectPath(const std::string& bucket, const std::string& name) {
  return absl::StrCat("/storage/v1/b/", PercentEncode(bucket), "/o/",
                      PercentEncode(name));
}

int64_t IntField(const Json& json, const char* field) {
  int64_t value = 0;
  if (json.contains(field) && json[field].is_string()) {
    (void)absl::SimpleAtoi(json[field].get<std::string>(), &value);
  } else if (json.contains(field) && json[field].is_number_integer()) {
    value = json[field].get<int64_t>();
  }
  return value;
}

}  // namespace

absl::StatusOr<ObjectMetadata> ObjectMetadataFromJson(const std::string& body) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("name")) {
    return absl::InternalError(
        "Cloud Storage answered without object metadata");
  }
  ObjectMetadata metadata{.bucket = json.value("bucket", ""),
                          .name = json.value("name", ""),
                          .size = IntField(json, "size"),
                          .generation = IntField(json, "generation"),
                          .crc32c = std::nullopt,
                          .content_type = json.value("contentType", "")};
  std::string crc;
  if (json.contains("crc32c") && json["crc32c"].is_string() &&
      absl::Base64Unescape(json["crc32c"].get<std::string>(), &crc) &&
      crc.size() == 4) {
    metadata.crc32c =
        (static_cast<uint32_t>(static_cast<uint8_t>(crc[0])) << 24) |
        (static_cast<uint32_t>(static_cast<uint8_t>(crc[1])) << 16) |
        (static_cast<uint32_t>(static_cast<uint8_t>(crc[2])) << 8) |
        static_cast<uint32_t>(static_cast<uint8_t>(crc[3]));
  }
  return metadata;
}

namespace {

absl::Status Mismatch(const std::string& bucket, const std::string& name,
                      absl::string_view what, uint32_t expected,
                      uint32_t actual) {
  return absl::DataLossError(
      absl::StrFormat("gs://%s/%s: %s: CRC32C %08x expected, %08x computed",
                      bucket, name, what, expected, actual));
}

}  // namespace

rest::RestService StorageRestService() {
  return {.production_endpoint = "https://storage.googleapis.com",
          .emulator_env = "STORAGE_EMULATOR_HOST"};
}

absl::StatusOr<StorageClient> StorageClientFor(
    const rest::RestTargetOptions& options) {
  absl::StatusOr<rest::RestClientOptions> client =
      rest::ResolveRestTarget(StorageRestService(), options);
  if (!client.ok()) return client.status();
  return StorageClient(rest::RestClient(*std::move(client)));
}

std::string PercentEncode(absl::string_view text) {
  std::string out;
  for (const unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out += static_cast<char>(c);
    } else {
      absl::StrAppendFormat(&out, "%%%02X", c);
    }
  }
  return out;
}

std::string UploadPath(const std::string& bucket, absl::string_view type,
                       const UploadOptions& options) {
  std::string path = absl::StrCat(
      "/upload/storage/v1/b/", PercentEncode(bucket), "/o?uploadType=", type);
  if (options.if_generation_match.has_value()) {
    absl::StrAppend(&path, "&ifGenerationMatch=", *options.if_generation_match);
  }
  return path;
}

absl::StatusOr<ObjectMetadata> StorageClient::Upload(
    const std::string& bucket, const std::string& name, const std::string& data,
    const UploadOptions& options) {
  switch (options.type) {
    case UploadType::kSimple:
      return UploadSimple(bucket, name, data, options);
    case UploadType::kMultipart:
      return UploadMultipart(bucket, name, data, options);
    case UploadType::kResumable:
      return UploadResumable(bucket, name, data, options);
    case UploadType::kAuto:
      break;
  }
  return static_cast<int64_t>(data.size()) > options.resumable_threshold
             ? UploadResumable(bucket, name, data, options)
             : UploadMultipart(bucket, name, data, options);
}

absl::StatusOr<ObjectMetadata> StorageClient::CheckUploaded(
    const std::string& bucket, const std::string& name, const std::string& data,
    const std::string& answer) {
  absl::StatusOr<ObjectMetadata> uploaded = ObjectMetadataFromJson(answer);
  if (!uploaded.ok()) return uploaded.status();
  const uint32_t crc = Crc32c(data);
  if (uploaded->crc32c.has_value() && *uploaded->crc32c != crc) {
    return Mismatch(bucket, name, "the uploaded object", crc,
                    *uploaded->crc32c);
  }
  return uploaded;
}

absl::StatusOr<ObjectMetadata> StorageClient::UploadSimple(
    const std::string& bucket, const std::string& name, const std::string& data,
    const UploadOptions& options) {
  absl::StatusOr<http::HttpResponse> response = client_.Send(
      {.method = "POST",
       .path = absl::StrCat(UploadPath(bucket, "media", options),
                            "&name=", PercentEncode(name)),
       .headers = {absl::StrCat("Content-Type: ", options.content_type),
                   absl::StrCat("x-goog-hash: crc32c=",
                                Crc32cBase64(Crc32c(data)))},
       .body = data,
       .idempotent = true});
  if (!response.ok()) return response.status();
  absl::StatusOr<ObjectMetadata> uploaded =
      CheckUploaded(bucket, name, data, response->body);
  if (uploaded.status().code() == absl::StatusCode::kDataLoss) {
    // The damaged generation is stored: take it away (only it).
    absl::StatusOr<ObjectMetadata> stored =
        ObjectMetadataFromJson(response->body);
    if (stored.ok()) {
      (void)client_.Send(
          {.method = "DELETE",
           .path = absl::StrCat(ObjectPath(bucket, name),
                                "?ifGenerationMatch=", stored->generation)});
    }
  }
  return uploaded;
}

absl::StatusOr<ObjectMetadata> StorageClient::UploadMultipart(
    const std::string& bucket, const std::string& name, const std::string& data,
    const UploadOptions& options) {
  // A boundary the data does not contain.
  std::string boundary = "gcpstream-boundary";
  while (data.find(boundary) != std::string::npos) {
    absl::StrAppend(&boundary, "-", data.size() % 97);
  }
  const Json metadata = {{"name", name},
                         {"contentType", options.content_type},
                         {"crc32c", Crc32cBase64(Crc32c(data))}};
  const std::string body =
      absl::StrCat("--", boundary,
                   "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n",
                   metadata.dump(), "\r\n--", boundary,
                   "\r\nContent-Type: ", options.content_type, "\r\n\r\n", data,
                   "\r\n--", boundary, "--\r\n");
  absl::StatusOr<http::HttpResponse> response = client_.Send(
      {.method = "POST",
       .path = UploadPath(bucket, "multipart", options),
       .headers = {absl::StrCat("Content-Type: multipart/related; boundary=",
                                boundary)},
       .body = body,
       // A conditional write is safe to resend; a plain one replaces the
       // object with the same bytes, which is as good.
       .idempotent = true});
  if (!response.ok()) return response.status();
  return CheckUploaded(bucket, name, data, response->body);
}

absl::StatusOr<ObjectMetadata> StorageClient::Stat(const std::string& bucket,
                                                   const std::string& name) {
  absl::StatusOr<http::HttpResponse> response =
      client_.Send({.path = ObjectPath(bucket, name)});
  if (!response.ok()) return response.status();
  return ObjectMetadataFromJson(response->body);
}

absl::StatusOr<std::string> StorageClient::Read(const std::string& bucket,
                                                const std::string& name) {
  absl::StatusOr<ObjectMetadata> metadata = Stat(bucket, name);
  if (!metadata.ok()) return metadata.status();
  absl::StatusOr<http::HttpResponse> response = client_.Send(
      {.path = absl::StrCat(ObjectPath(bucket, name),
                            "?alt=media&generation=", metadata->generation)});
  if (!response.ok()) return response.status();
  if (metadata->crc32c.has_value()) {
    const uint32_t actual = Crc32c(response->body);
    if (actual != *metadata->crc32c) {
      return Mismatch(bucket, name, "the bytes read", *metadata->crc32c,
                      actual);
    }
  }
  return std::move(response->body);
}

absl::StatusOr<std::string> StorageClient::ReadRange(const std::string& bucket,
                                                     const std::string& name,
                                                     int64_t offset,
                                                     int64_t length) {
  if (offset < 0 || length <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ranged read needs offset >= 0 and length > 0, got ",
                     offset, " and ", length));
  }
  absl::StatusOr<http::HttpResponse> response = client_.Send(
      {.path = absl::StrCat(ObjectPath(bucket, name), "?alt=media"),
       .headers = {
           absl::StrCat("Range: bytes=", offset, "-", offset + length - 1)}});
  if (!response.ok()) return response.status();
  return std::move(response->body);
}

absl::StatusOr<std::vector<ObjectMetadata>> StorageClient::List(
    const std::string& bucket, const std::string& prefix) {
  std::vector<ObjectMetadata> objects;
  std::string page_token;
  do {
    std::string path = absl::StrCat("/storage/v1/b/", PercentEncode(bucket),
                                    "/o?prefix=", PercentEncode(prefix));
    if (!page_token.empty()) {
      absl::StrAppend(&path, "&pageToken=", PercentEncode(page_token));
    }
    absl::StatusOr<http::HttpResponse> response = client_.Send({.path = path});
    if (!response.ok()) return response.status();
    const Json json =
        Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) {
      return absl::InternalError("Cloud Storage answered a list with no JSON");
    }
    if (json.contains("items") && json["items"].is_array()) {
      for (const Json& item : json["items"]) {
        absl::StatusOr<ObjectMetadata> metadata =
            ObjectMetadataFromJson(item.dump());
        if (!metadata.ok()) return metadata.status();
        objects.push_back(*std::move(metadata));
      }
    }
    page_token = json.value("nextPageToken", "");
  } while (!page_token.empty());
  return objects;
}

absl::Status StorageClient::Delete(const std::string& bucket,
                                   const std::string& name) {
  return client_.Send({.method = "DELETE", .path = ObjectPath(bucket, name)})
      .status();
}

absl::StatusOr<ObjectMetadata> StorageClient::Compose(
    const std::string& bucket, const std::vector<std::string>& sources,
    const std::string& destination) {
  if (sources.empty() || sources.size() > 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a compose takes 1 to 32 source objects, got ", sources.size()));
  }
  Json request = {{"destination", {{"name", destination}}},
                  {"sourceObjects", Json::array()}};
  for (const std::string& source : sources) {
    request["sourceObjects"].push_back({{"name", source}});
  }
  absl::StatusOr<http::HttpResponse> response = client_.Send(
      {.method = "POST",
       .path = absl::StrCat(ObjectPath(bucket, destination), "/compose"),
       .headers = {"Content-Type: application/json"},
       .body = request.dump(),
       .idempotent = true});
  if (!response.ok()) return response.status();
  return ObjectMetadataFromJson(response->body);
}

}  // namespace gcpstream::storage

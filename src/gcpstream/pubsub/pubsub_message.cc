#include "gcpstream/pubsub/pubsub_message.h"

#include <google/protobuf/io/coded_stream.h>

#include "absl/strings/str_cat.h"

namespace gcpstream::pubsub {

namespace {

using ::google::protobuf::io::CodedOutputStream;

// Bytes of a length-delimited field holding `length` bytes (field numbers
// below 16 encode their tag in one byte).
size_t DelimitedSize(size_t length) {
  return 1 + CodedOutputStream::VarintSize64(length) + length;
}

}  // namespace

absl::StatusOr<int64_t> CheckedMessageSize(const PubsubMessage& message) {
  // One access: each one synchronises the map field.
  const auto& attributes = message.attributes();
  if (message.data().empty() && attributes.empty()) {
    return absl::InvalidArgumentError(
        "a Pub/Sub message needs data or at least one attribute; this one "
        "has neither");
  }
  if (attributes.size() > kMaxAttributesPerMessage) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Pub/Sub message may carry at most ", kMaxAttributesPerMessage,
        " attributes; this one has ", attributes.size()));
  }
  // The wire size, as ByteSizeLong() counts it, from the fields this loop
  // and the checks read anyway: ByteSizeLong() would walk the map again,
  // and gRPC computes it twice more when it serializes the request.
  size_t size = 0;
  for (const auto& [key, value] : attributes) {
    if (key.empty() || key.size() > kMaxAttributeKeyBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pub/Sub attribute keys must be 1 to ", kMaxAttributeKeyBytes,
          " bytes; got a key of ", key.size(), " bytes"));
    }
    if (value.size() > kMaxAttributeValueBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pub/Sub attribute values must be at most ", kMaxAttributeValueBytes,
          " bytes; attribute '", key.substr(0, 64), "' has ", value.size()));
    }
    // A map entry always carries both its key and its value field.
    size +=
        DelimitedSize(DelimitedSize(key.size()) + DelimitedSize(value.size()));
  }
  if (message.ordering_key().size() > kMaxOrderingKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Pub/Sub ordering keys must be at most ", kMaxOrderingKeyBytes,
        " bytes; got ", message.ordering_key().size()));
  }
  // Fields a serializer does not normally set: counted by protobuf itself.
  // (GetReflection() costs a once-flag check per call; the pointer is
  // constant.)
  static const google::protobuf::Reflection* const kReflection =
      PubsubMessage::GetReflection();
  if (message.has_publish_time() ||
      !kReflection->GetUnknownFields(message).empty()) {
    return static_cast<int64_t>(message.ByteSizeLong());
  }
  for (const std::string* field :
       {&message.data(), &message.message_id(), &message.ordering_key()}) {
    if (!field->empty()) size += DelimitedSize(field->size());
  }
  return static_cast<int64_t>(size);
}

}  // namespace gcpstream::pubsub

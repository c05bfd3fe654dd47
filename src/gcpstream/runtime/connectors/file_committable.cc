#include "gcpstream/runtime/connectors/file_committable.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace gcpstream::runtime {

std::string FileCommittable::Encode() const {
  const nlohmann::json json = {{"temp", temp_path}, {"final", final_path}};
  // Strict UTF-8 cannot throw here: the sink refused a non-UTF-8 directory
  // and names its files in ASCII. `replace` keeps even a bug from throwing;
  // Decode() then fails loudly on the mangled path rather than losing data.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<FileCommittable> FileCommittable::Decode(
    absl::string_view text) {
  const nlohmann::json json =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  const auto temp = json.is_object() ? json.find("temp") : json.end();
  const auto final_path = json.is_object() ? json.find("final") : json.end();
  if (!json.is_object() || temp == json.end() || final_path == json.end() ||
      !temp->is_string() || !final_path->is_string() ||
      temp->get_ref<const std::string&>().empty() ||
      final_path->get_ref<const std::string&>().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a file sink committable: '", text.substr(0, 200), "'"));
  }
  return FileCommittable{temp->get<std::string>(),
                         final_path->get<std::string>()};
}

}  // namespace gcpstream::runtime

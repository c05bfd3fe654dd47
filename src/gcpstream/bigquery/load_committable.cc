#include "gcpstream/bigquery/load_committable.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace gcpstream::bigquery {

std::string LoadCommittable::Encode() const {
  const nlohmann::json json = {
      {"table", table}, {"uris", uris}, {"rows", rows}};
  // Names are the sink's own; `replace` keeps even a bug from throwing, and
  // the load then fails loudly on the mangled name.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<LoadCommittable> LoadCommittable::Decode(
    absl::string_view text) {
  const nlohmann::json json =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  const auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a BigQuery load committable: '", text.substr(0, 200), "'"));
  };
  if (!json.is_object()) return invalid();
  const auto table = json.find("table");
  const auto uris = json.find("uris");
  const auto rows = json.find("rows");
  if (table == json.end() || uris == json.end() || rows == json.end() ||
      !table->is_string() || !uris->is_array() || uris->empty() ||
      !rows->is_number_integer() ||
      table->get_ref<const std::string&>().empty()) {
    return invalid();
  }
  LoadCommittable committable{.table = table->get<std::string>(),
                              .rows = rows->get<int64_t>()};
  for (const nlohmann::json& uri : *uris) {
    if (!uri.is_string() || uri.get_ref<const std::string&>().empty()) {
      return invalid();
    }
    committable.uris.push_back(uri.get<std::string>());
  }
  return committable;
}

}  // namespace gcpstream::bigquery

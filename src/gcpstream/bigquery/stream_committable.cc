#include "gcpstream/bigquery/stream_committable.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace gcpstream::bigquery {

std::string StreamCommittable::Encode() const {
  const nlohmann::json json = {
      {"table", table}, {"stream", stream}, {"rows", rows}};
  // Resource names are ASCII; `replace` keeps even a bug from throwing, and
  // the commit then fails loudly on the mangled name.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<StreamCommittable> StreamCommittable::Decode(
    absl::string_view text) {
  const nlohmann::json json =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  const auto field = [&json](const char* name) {
    return json.is_object() ? json.find(name) : json.end();
  };
  const auto table = field("table");
  const auto stream = field("stream");
  const auto rows = field("rows");
  if (table == json.end() || stream == json.end() || rows == json.end() ||
      !table->is_string() || !stream->is_string() ||
      !rows->is_number_integer() ||
      table->get_ref<const std::string&>().empty() ||
      stream->get_ref<const std::string&>().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a BigQuery stream committable: '", text.substr(0, 200), "'"));
  }
  return StreamCommittable{.table = table->get<std::string>(),
                           .stream = stream->get<std::string>(),
                           .rows = rows->get<int64_t>()};
}

}  // namespace gcpstream::bigquery

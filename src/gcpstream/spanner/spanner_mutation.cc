#include "gcpstream/spanner/spanner_mutation.h"

namespace gcpstream::spanner {
namespace {

nlohmann::json KeyJson(const std::vector<Value>& key) {
  nlohmann::json out = nlohmann::json::array();
  for (const Value& part : key) out.push_back(part.ToJson());
  return out;
}

}  // namespace

const char* OperationName(Operation operation) {
  switch (operation) {
    case Operation::kInsert:
      return "insert";
    case Operation::kUpdate:
      return "update";
    case Operation::kInsertOrUpdate:
      return "insert-or-update";
    case Operation::kReplace:
      return "replace";
    case Operation::kDelete:
      return "delete";
  }
  return "unknown";
}

bool operator==(const KeyRange& a, const KeyRange& b) {
  return a.start == b.start && a.start_closed == b.start_closed &&
         a.end == b.end && a.end_closed == b.end_closed;
}

nlohmann::json Mutation::ToJson() const {
  nlohmann::json out;
  out["table"] = table_;
  out["operation"] = OperationName(operation_);
  if (operation_ != Operation::kDelete) {
    nlohmann::json columns = nlohmann::json::object();
    for (size_t i = 0; i < columns_.size(); ++i) {
      columns[columns_[i]] = values_[i].ToJson();
    }
    out["columns"] = std::move(columns);
    return out;
  }
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& key : keys_) keys.push_back(KeyJson(key));
  out["keys"] = std::move(keys);
  nlohmann::json ranges = nlohmann::json::array();
  for (const KeyRange& range : ranges_) {
    ranges.push_back({{"start", KeyJson(range.start)},
                      {"start_closed", range.start_closed},
                      {"end", KeyJson(range.end)},
                      {"end_closed", range.end_closed}});
  }
  out["ranges"] = std::move(ranges);
  return out;
}

}  // namespace gcpstream::spanner

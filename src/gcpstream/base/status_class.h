#ifndef GCPSTREAM_BASE_STATUS_CLASS_H_
#define GCPSTREAM_BASE_STATUS_CLASS_H_

#include <array>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace gcpstream {

// What a connector does with a failed request or a failed entry in a batch.
enum class StatusClass {
  // Retried inside the connector, with backoff, until the retry policy gives
  // up; giving up is fatal.
  kTransient,
  // Only this record is at fault: it goes to the failure handler.
  kPerRecord,
  // Fails the job.
  kFatal,
};

// "transient", "per-record" or "fatal": the spelling the docs pages use.
absl::string_view StatusClassName(StatusClass status_class);
std::ostream& operator<<(std::ostream& os, StatusClass status_class);

struct StatusClassEntry {
  absl::StatusCode code;
  StatusClass status_class;
};

// How one connector classifies status codes, written down as data so that the
// table, its docs page and its tests say the same thing. A service answers at
// two levels, which a connector classifies differently: the RPC status of a
// whole request, and the per-entry status inside a batch response (e.g. a
// Pub/Sub publish vs one row's error in a BigQuery append).
//
// Tables are meant to be `constexpr` constants: a duplicate code, an OK code
// or a code outside absl::StatusCode is then a compile error (and aborts when
// a table is built at run time, since it is a bug in the connector's source).
class ClassificationTable {
 public:
  // The classification of one level: listed codes plus a class for the rest.
  class Level {
   public:
    constexpr Level(std::initializer_list<StatusClassEntry> entries,
                    StatusClass default_class)
        : default_class_(default_class) {
      for (const StatusClassEntry& entry : entries) {
        const int index = static_cast<int>(entry.code);
        if (index <= 0 || index >= kCodeCount) InvalidEntry(entry.code);
        if (classes_[index].has_value()) InvalidEntry(entry.code);
        classes_[index] = entry.status_class;
      }
    }

    // `code` must not be OK: an OK status has nothing to classify.
    StatusClass Classify(absl::StatusCode code) const;
    StatusClass default_class() const { return default_class_; }
    // Whether `code` is listed rather than falling to the default class.
    bool Lists(absl::StatusCode code) const;

    // E.g. "ALREADY_EXISTS=per-record, UNAVAILABLE=transient, default=fatal",
    // listed codes in code order: for logs and docs.
    std::string ToString() const;

   private:
    // absl::StatusCode runs from kOk = 0 to kUnauthenticated = 16.
    static constexpr int kCodeCount = 17;

    // Not constexpr on purpose: reaching it during constant evaluation makes
    // the table's definition fail to compile.
    [[noreturn]] static void InvalidEntry(absl::StatusCode code);

    std::array<std::optional<StatusClass>, kCodeCount> classes_{};
    StatusClass default_class_;
  };

  constexpr ClassificationTable(Level request_level, Level entry_level)
      : request_level_(request_level), entry_level_(entry_level) {}

  // The status of a whole request (the RPC or HTTP call). Must not be OK.
  StatusClass ClassifyRequest(const absl::Status& status) const {
    return request_level_.Classify(status.code());
  }
  // The status of one entry inside a batch response. Must not be OK.
  StatusClass ClassifyEntry(const absl::Status& status) const {
    return entry_level_.Classify(status.code());
  }

  const Level& request_level() const { return request_level_; }
  const Level& entry_level() const { return entry_level_; }

  // "request: <level>; entry: <level>".
  std::string ToString() const;

 private:
  Level request_level_;
  Level entry_level_;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_STATUS_CLASS_H_

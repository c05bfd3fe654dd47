#ifndef GCPSTREAM_BASE_DESTINATION_H_
#define GCPSTREAM_BASE_DESTINATION_H_

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/writer_context.h"

namespace gcpstream {

// A destination (topic, table, queue, database) is a value naming one
// resource. Two destinations are the same exactly when their resource names
// are, whatever else they carry.
template <typename D>
concept Destination = std::copy_constructible<D> && requires(const D& d) {
  { d.ResourceName() } -> std::convertible_to<std::string>;
};

// A destination whose resource name is built from a few string fields may
// list them as a tuple of string_views, `IdentityFields()`: they then
// compare and hash in its place, so a writer looking up its destination per
// record never builds the name. An empty field means no destination.
template <typename D>
concept HasIdentityFields = requires(const D& d) {
  d.IdentityFields();
};

// Gives a destination type equality and hashing by resource name (or by
// its identity fields, which determine it):
//   struct TopicDestination : DestinationIdentity<TopicDestination> { ... };
template <typename D>
struct DestinationIdentity {
  friend bool operator==(const D& a, const D& b) {
    if constexpr (HasIdentityFields<D>) {
      return a.IdentityFields() == b.IdentityFields();
    } else {
      return a.ResourceName() == b.ResourceName();
    }
  }
  template <typename H>
  friend H AbslHashValue(H state, const D& d) {
    if constexpr (HasIdentityFields<D>) {
      return H::combine(std::move(state), d.IdentityFields());
    } else {
      return H::combine(std::move(state), d.ResourceName());
    }
  }
};

// Whether `d` names no resource: an empty resource name, or an empty
// identity field.
template <Destination D>
bool IsUnnamed(const D& d) {
  if constexpr (HasIdentityFields<D>) {
    return std::apply(
        [](const auto&... field) { return (field.empty() || ...); },
        d.IdentityFields());
  } else {
    return std::string(d.ResourceName()).empty();
  }
}

// A destination type whose resolver may decline to route a record: such a
// destination names no resource, says so through `unroutable()`, and
// carries what the failure handler gets instead (BigQuery's
// UnroutableRecord).
template <typename D>
concept MayBeUnroutable = requires(const D& d) {
  { d.unroutable() } -> std::convertible_to<bool>;
};

// Chooses each record's destination. Runs once per record on the writer's
// task thread, before the serializer (so it runs for records the serializer
// then skips). It must always name a destination: a failure or an empty
// resource name is a bug in the pipeline, never a per-record refusal, and
// fails the job (BigQuery's UnroutableRecord, a MayBeUnroutable
// destination, is the one routable refusal).
template <typename T, Destination D>
class DestinationResolver {
 public:
  virtual ~DestinationResolver() = default;
  virtual absl::StatusOr<D> Resolve(const T& record,
                                    const WriterContext& context) = 0;
};

// A resolver from a callable `StatusOr<D>(const T&, const WriterContext&)`.
template <typename T, Destination D, typename F>
std::unique_ptr<DestinationResolver<T, D>> MakeResolver(F resolve) {
  class FunctionResolver final : public DestinationResolver<T, D> {
   public:
    explicit FunctionResolver(F f) : f_(std::move(f)) {}
    absl::StatusOr<D> Resolve(const T& record,
                              const WriterContext& context) override {
      return f_(record, context);
    }

   private:
    F f_;
  };
  return std::make_unique<FunctionResolver>(std::move(resolve));
}

// Runs the resolver and turns a failure or an unnamed destination into the
// fatal error a user can act on: it names the sink and the record's position.
template <typename T, Destination D>
absl::StatusOr<D> ResolveDestination(DestinationResolver<T, D>& resolver,
                                     const T& record,
                                     const WriterContext& context,
                                     absl::string_view sink_name) {
  absl::StatusOr<D> destination = resolver.Resolve(record, context);
  if (!destination.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        sink_name, ": the destination resolver failed for record #",
        context.record_position, " (subtask ", context.subtask_index,
        "): ", destination.status().ToString(),
        "; a resolver must name a destination for every record"));
  }
  if constexpr (MayBeUnroutable<D>) {
    if (destination->unroutable()) return destination;
  }
  if (IsUnnamed(*destination)) {
    return absl::FailedPreconditionError(absl::StrCat(
        sink_name,
        ": the destination resolver returned no destination for "
        "record #",
        context.record_position, " (subtask ", context.subtask_index,
        "); a resolver must name a destination for every record"));
  }
  return destination;
}

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_DESTINATION_H_

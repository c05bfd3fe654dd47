#ifndef GCPSTREAM_BASE_DESTINATION_STATES_H_
#define GCPSTREAM_BASE_DESTINATION_STATES_H_

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/destination.h"
#include "gcpstream/base/destination_metrics.h"

namespace gcpstream {

// Per-destination writer state (a publisher, a stream, a batcher, a staged
// file) as DestinationStates needs it: whether anything is in flight, and a
// release that frees its resources. Release() is not a flush: it is only
// called on clean states, or on shutdown after the final flush.
template <typename S>
concept DestinationState = requires(S& state, const S& const_state) {
  { const_state.IsClean() } -> std::convertible_to<bool>;
  { state.Release() } -> std::same_as<absl::Status>;
};

struct DestinationStatesOptions {
  // A state unused for longer is released by SweepIdle(). Infinite: never.
  absl::Duration idle_timeout = absl::InfiniteDuration();
  // At most this many states at once; 0 means unbounded.
  size_t capacity = 0;
};

struct DestinationStatesStats {
  int64_t created = 0;
  int64_t evicted_idle = 0;
  int64_t evicted_capacity = 0;
};

// The per-destination states of one writer: created lazily on a
// destination's first record, swept when idle, and bounded by a capacity
// that releases the least-recently-used *clean* state to make room. All
// calls happen on the writer's task thread; times are passed in from the
// writer's clock, so tests drive them.
template <Destination D, DestinationState S>
class DestinationStates {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<S>>(const D&)>;

  // What Acquire() found. `must_wait` means the capacity is reached and every
  // state has work in flight: the writer must let completions arrive (through
  // its mailbox) and call Acquire() again, never exceed the bound.
  struct Acquired {
    S* state = nullptr;
    bool must_wait = false;
  };

  // `metrics` may be null; when set, it mirrors stats() and size().
  DestinationStates(DestinationStatesOptions options, Factory factory,
                    std::shared_ptr<DestinationMetrics> metrics = nullptr)
      : options_(options),
        factory_(std::move(factory)),
        metrics_(std::move(metrics)) {}

  // Replaces the metrics (e.g. once the writer registered its own names).
  void SetMetrics(std::shared_ptr<DestinationMetrics> metrics) {
    metrics_ = std::move(metrics);
    if (metrics_ != nullptr) {
      metrics_->active->Set(static_cast<int64_t>(index_.size()));
    }
  }

  // The state for `destination`, created (after evicting, if at capacity) on
  // first use. Marks it most recently used at `now`. A factory or release
  // error is returned as is: it fails the writer.
  absl::StatusOr<Acquired> Acquire(const D& destination, absl::Time now) {
    // Most records go where the previous one went: the most recently used
    // state is first, found without hashing.
    if (!entries_.empty() && entries_.front().destination == destination) {
      entries_.front().last_used = now;
      return Acquired{entries_.front().state.get(), false};
    }
    if (auto it = index_.find(destination); it != index_.end()) {
      Touch(it->second, now);
      return Acquired{it->second->state.get(), false};
    }
    if (options_.capacity > 0 && index_.size() >= options_.capacity) {
      auto victim = LeastRecentlyUsedClean();
      if (victim == entries_.end()) return Acquired{nullptr, true};
      absl::Status released = Remove(victim);
      ++stats_.evicted_capacity;
      if (metrics_ != nullptr) metrics_->evicted_capacity->Increment();
      if (!released.ok()) return released;
    }
    absl::StatusOr<std::unique_ptr<S>> state = factory_(destination);
    if (!state.ok()) return state.status();
    entries_.push_front(Entry{destination, *std::move(state), now});
    index_.emplace(destination, entries_.begin());
    ++stats_.created;
    if (metrics_ != nullptr) {
      metrics_->created->Increment();
      metrics_->active->Set(static_cast<int64_t>(index_.size()));
    }
    return Acquired{entries_.front().state.get(), false};
  }

  // Records a use of `destination` at `now` (most recently used), for a
  // caller that holds on to the state between uses; nothing if it has none.
  void MarkUsed(const D& destination, absl::Time now) {
    if (!entries_.empty() && entries_.front().destination == destination) {
      entries_.front().last_used = now;
    } else if (auto it = index_.find(destination); it != index_.end()) {
      Touch(it->second, now);
    }
  }

  // The state for `destination` if one exists; does not count as a use.
  S* Find(const D& destination) const {
    auto it = index_.find(destination);
    return it == index_.end() ? nullptr : it->second->state.get();
  }

  // Releases clean states unused for longer than the idle timeout. Call it
  // only at the end of a successful, non-final flush: then nothing a user
  // wrote can be in a state that goes away.
  absl::Status SweepIdle(absl::Time now) {
    if (options_.idle_timeout == absl::InfiniteDuration()) {
      return absl::OkStatus();
    }
    absl::Status first_error;
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      if (now - it->last_used > options_.idle_timeout && it->state->IsClean()) {
        absl::Status released = Remove(it);
        ++stats_.evicted_idle;
        if (metrics_ != nullptr) metrics_->evicted_idle->Increment();
        first_error.Update(released);
      }
      it = next;
    }
    return first_error;
  }

  // Releases every state (writer close). Returns the first error.
  absl::Status ReleaseAll() {
    absl::Status first_error;
    while (!entries_.empty()) first_error.Update(Remove(entries_.begin()));
    return first_error;
  }

  // Calls f(destination, state) for every state, most recently used first.
  template <typename F>
  void ForEach(F&& f) {
    for (Entry& entry : entries_) f(entry.destination, *entry.state);
  }

  size_t size() const { return index_.size(); }
  const DestinationStatesStats& stats() const { return stats_; }

 private:
  struct Entry {
    D destination;
    std::unique_ptr<S> state;
    absl::Time last_used;
  };
  using Iterator = typename std::list<Entry>::iterator;

  void Touch(Iterator it, absl::Time now) {
    it->last_used = now;
    entries_.splice(entries_.begin(), entries_, it);
  }

  Iterator LeastRecentlyUsedClean() {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (it->state->IsClean()) return std::prev(it.base());
    }
    return entries_.end();
  }

  absl::Status Remove(Iterator it) {
    absl::Status released = it->state->Release();
    index_.erase(it->destination);
    entries_.erase(it);
    if (metrics_ != nullptr) {
      metrics_->active->Set(static_cast<int64_t>(index_.size()));
    }
    return released;
  }

  DestinationStatesOptions options_;
  Factory factory_;
  std::list<Entry> entries_;  // Most recently used first.
  absl::flat_hash_map<D, Iterator> index_;
  DestinationStatesStats stats_;
  std::shared_ptr<DestinationMetrics> metrics_;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_DESTINATION_STATES_H_

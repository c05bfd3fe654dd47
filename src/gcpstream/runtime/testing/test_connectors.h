#ifndef GCPSTREAM_RUNTIME_TESTING_TEST_CONNECTORS_H_
#define GCPSTREAM_RUNTIME_TESTING_TEST_CONNECTORS_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime::testing {

// Emits 0..count-1, split i holding the numbers congruent to i modulo the
// planned parallelism; the state of a split is its next number.
class CountingSource final : public Source<int64_t> {
 public:
  // Emits `per_poll` records per poll, then pauses `pause` (paced sources
  // give checkpoints time to happen mid-stream).
  explicit CountingSource(int64_t count, int64_t per_poll = 100,
                          absl::Duration pause = absl::ZeroDuration())
      : count_(count), per_poll_(per_poll), pause_(pause) {}

  std::string name() const override { return "counting"; }
  bool bounded() const override { return true; }

  absl::StatusOr<std::vector<Split>> PlanSplits(int parallelism) override {
    std::vector<Split> splits;
    splits.reserve(parallelism);
    for (int i = 0; i < parallelism; ++i) {
      splits.push_back(
          Split{absl::StrCat(i, "/", parallelism), absl::StrCat(i)});
    }
    return splits;
  }

  absl::StatusOr<std::unique_ptr<SourceReader<int64_t>>> CreateReader(
      const SourceReaderContext&, std::vector<Split> splits) override {
    return std::make_unique<Reader>(count_, per_poll_, pause_,
                                    std::move(splits), this);
  }

  // How many records every reader emitted, all attempts included.
  std::atomic<int64_t> emitted{0};
  std::atomic<int> readers_created{0};

 private:
  class Reader final : public SourceReader<int64_t> {
   public:
    Reader(int64_t count, int64_t per_poll, absl::Duration pause,
           const std::vector<Split>& splits, CountingSource* source)
        : count_(count), per_poll_(per_poll), pause_(pause), source_(source) {
      source_->readers_created++;
      for (const Split& split : splits) {
        const size_t slash = split.id.find('/');
        SplitState state{split.id, 0, 1};
        // Malformed state is a test bug: the ids and states are ours.
        (void)absl::SimpleAtoi(split.id.substr(slash + 1), &state.stride);
        (void)absl::SimpleAtoi(split.state, &state.next);
        splits_.push_back(state);
      }
    }
    absl::StatusOr<PollResult> PollNext(
        ReaderOutput<int64_t>& output) override {
      int64_t polled = 0;
      bool any_left = false;
      for (SplitState& split : splits_) {
        while (split.next < count_ && polled < per_poll_) {
          output.Collect(split.next);
          split.next += split.stride;
          ++polled;
        }
        any_left |= split.next < count_;
      }
      source_->emitted += polled;
      if (!any_left) return PollResult{InputStatus::kEndOfInput};
      if (pause_ > absl::ZeroDuration()) {
        return PollResult{InputStatus::kNothingAvailable, pause_};
      }
      return PollResult{InputStatus::kMoreAvailable};
    }
    absl::StatusOr<std::vector<Split>> SnapshotState(int64_t) override {
      std::vector<Split> splits;
      splits.reserve(splits_.size());
      for (const SplitState& split : splits_) {
        splits.push_back(Split{split.id, absl::StrCat(split.next)});
      }
      return splits;
    }

   private:
    struct SplitState {
      std::string id;
      int64_t next = 0;
      int64_t stride = 1;
    };
    int64_t count_;
    int64_t per_poll_;
    absl::Duration pause_;
    CountingSource* source_;
    std::vector<SplitState> splits_;
  };

  int64_t count_;
  int64_t per_poll_;
  absl::Duration pause_;
};

// What the collecting sinks saw, shared across attempts.
struct Collected {
  absl::Mutex mu;
  std::vector<int64_t> written ABSL_GUARDED_BY(mu);       // At-least-once view.
  std::vector<int64_t> committed ABSL_GUARDED_BY(mu);     // Exactly-once view.
  std::map<int64_t, int> subtask_of ABSL_GUARDED_BY(mu);  // value -> subtask
  std::set<std::string> commits_done ABSL_GUARDED_BY(mu);
  // Per PrepareCommit: (subtask, checkpoint id), in call order.
  std::vector<std::pair<int, int64_t>> prepared ABSL_GUARDED_BY(mu);
  // Per committer bound: "<pipeline>/<sink>" and whether it got metrics.
  std::vector<std::string> committer_bindings ABSL_GUARDED_BY(mu);
  int final_flushes ABSL_GUARDED_BY(mu) = 0;
  // How many records had been written at each OnInputIdle call.
  std::vector<int64_t> written_at_idle ABSL_GUARDED_BY(mu);
};

// A two-phase sink in memory: records staged per checkpoint, made visible by
// an idempotent committer. Optionally fails once after `fail_after` writes.
class CollectingSink final : public Sink<int64_t> {
 public:
  explicit CollectingSink(std::shared_ptr<Collected> collected)
      : collected_(std::move(collected)) {}

  std::string name() const override { return "collecting"; }

  absl::StatusOr<std::unique_ptr<SinkWriter<int64_t>>> CreateWriter(
      const SinkWriterContext& context) override {
    if (!refuse_writers.ok()) return refuse_writers;
    return std::make_unique<Writer>(collected_, context.subtask_index, this,
                                    context.mailbox);
  }
  std::unique_ptr<Committer> CreateCommitter() override {
    return std::make_unique<CollectingCommitter>(collected_, this);
  }

  absl::Status refuse_writers;  // What CreateWriter answers instead.

  std::atomic<int64_t> fail_after{-1};  // Fail once when this many written.
  std::atomic<bool> fail_first_commit{false};
  // The `stall_flush`-th Flush() over all writers (from 1) waits
  // `stall_for` for an answer that never comes, serving its mailbox as a
  // connector waiting for acknowledgements does; it gives up when the job
  // is cancelled. `stalled` is raised when that wait begins.
  std::atomic<int> stall_flush{0};
  absl::Duration stall_for = absl::InfiniteDuration();
  std::atomic<bool> stalled{false};
  std::atomic<int> flushes{0};

 private:
  class Writer final : public SinkWriter<int64_t> {
   public:
    Writer(std::shared_ptr<Collected> collected, int subtask,
           CollectingSink* sink, MailboxExecutor mailbox)
        : collected_(std::move(collected)),
          subtask_(subtask),
          sink_(sink),
          mailbox_(mailbox) {}
    absl::Status Write(const int64_t& record, const WriterContext&) override {
      absl::MutexLock lock(&collected_->mu);
      if (sink_->fail_after >= 0 &&
          static_cast<int64_t>(collected_->written.size()) >=
              sink_->fail_after) {
        sink_->fail_after = -1;
        return absl::UnavailableError("injected failure");
      }
      collected_->written.push_back(record);
      collected_->subtask_of[record] = subtask_;
      staged_.push_back(record);
      return absl::OkStatus();
    }
    absl::Status OnInputIdle() override {
      absl::MutexLock lock(&collected_->mu);
      collected_->written_at_idle.push_back(
          static_cast<int64_t>(collected_->written.size()));
      return absl::OkStatus();
    }
    absl::Status Flush(bool end_of_input) override {
      if (++sink_->flushes == sink_->stall_flush) {
        sink_->stalled = true;
        const absl::Time deadline = absl::Now() + sink_->stall_for;
        if (!mailbox_.YieldUntil([] { return false; }, deadline) &&
            absl::Now() < deadline) {
          return absl::CancelledError("flush: the job was cancelled");
        }
      }
      if (end_of_input) {
        absl::MutexLock lock(&collected_->mu);
        collected_->final_flushes++;
      }
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<std::string>> PrepareCommit(
        int64_t checkpoint_id) override {
      {
        absl::MutexLock lock(&collected_->mu);
        collected_->prepared.emplace_back(subtask_, checkpoint_id);
      }
      // The committable: a unique name plus the staged values.
      std::string committable = absl::StrCat(subtask_, "@", checkpoint_id, ":");
      for (int64_t v : staged_) absl::StrAppend(&committable, v, ",");
      staged_.clear();
      return std::vector<std::string>{committable};
    }

   private:
    std::shared_ptr<Collected> collected_;
    int subtask_;
    CollectingSink* sink_;
    MailboxExecutor mailbox_;
    std::vector<int64_t> staged_;
  };

  class CollectingCommitter final : public Committer {
   public:
    CollectingCommitter(std::shared_ptr<Collected> collected,
                        CollectingSink* sink)
        : collected_(std::move(collected)), sink_(sink) {}
    void Bind(const CommitterContext& context) override {
      absl::MutexLock lock(&collected_->mu);
      collected_->committer_bindings.push_back(
          absl::StrCat(context.pipeline, "/", context.sink_name,
                       context.metrics != nullptr ? " with metrics" : ""));
    }
    absl::Status Commit(int64_t,
                        const std::vector<std::string>& committables) override {
      absl::MutexLock lock(&collected_->mu);
      for (const std::string& committable : committables) {
        const size_t colon = committable.find(':');
        if (!collected_->commits_done.insert(committable.substr(0, colon))
                 .second) {
          continue;  // Idempotent: committed before.
        }
        for (absl::string_view v : absl::StrSplit(committable.substr(colon + 1),
                                                  ',', absl::SkipEmpty())) {
          int64_t value = 0;
          (void)absl::SimpleAtoi(v, &value);
          collected_->committed.push_back(value);
        }
      }
      if (sink_->fail_first_commit.exchange(false)) {
        // The commit happened, but the process "dies" before noting it.
        return absl::InternalError("injected crash after commit");
      }
      return absl::OkStatus();
    }

   private:
    std::shared_ptr<Collected> collected_;
    CollectingSink* sink_;
  };

  std::shared_ptr<Collected> collected_;
};

}  // namespace gcpstream::runtime::testing

#endif  // GCPSTREAM_RUNTIME_TESTING_TEST_CONNECTORS_H_

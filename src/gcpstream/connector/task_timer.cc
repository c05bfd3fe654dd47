#include "gcpstream/connector/task_timer.h"

#include <utility>

#include <grpcpp/alarm.h>

#include "absl/container/flat_hash_map.h"
#include "gcpstream/connector/callback_tracker.h"

namespace gcpstream::connector {
namespace {

class AlarmTimer final : public TaskTimer {
 public:
  explicit AlarmTimer(runtime::MailboxExecutor executor)
      : executor_(executor),
        tracker_(std::make_shared<CallbackTracker>()),
        self_(std::make_shared<AlarmTimer*>(this)) {}
  ~AlarmTimer() override { CancelAll(); }

  const Clock& clock() const override { return RealClock::Instance(); }

  Id Schedule(absl::Duration delay, Mail mail) override {
    const Id id = next_id_++;
    Entry& entry = entries_[id];
    entry.mail = std::move(mail);
    entry.alarm = std::make_unique<grpc::Alarm>();
    tracker_->Begin();
    // The alarm's callback runs on a gRPC thread: it only posts.
    entry.alarm->Set(
        absl::ToChronoTime(absl::Now() + std::max(delay, absl::ZeroDuration())),
        [self = std::weak_ptr<AlarmTimer*>(self_), executor = executor_,
         tracker = tracker_, id](bool fired) mutable {
          if (fired) {
            executor.Post([self, id] {
              if (auto timer = self.lock()) (*timer)->Run(id);
            });
          }
          tracker->End();
        });
    return id;
  }

  void Cancel(Id id) override {
    auto it = entries_.find(id);
    if (it == entries_.end()) return;
    // Cancel() may run the callback inline; the entry goes after it.
    it->second.alarm->Cancel();
    entries_.erase(id);
  }

  void CancelAll() override {
    for (auto& [id, entry] : entries_) entry.alarm->Cancel();
    tracker_->WaitForNone();
    entries_.clear();
  }

 private:
  struct Entry {
    Mail mail;
    std::unique_ptr<grpc::Alarm> alarm;
  };

  void Run(Id id) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return;  // Cancelled after it fired.
    Mail mail = std::move(it->second.mail);
    entries_.erase(it);
    mail();
  }

  runtime::MailboxExecutor executor_;
  std::shared_ptr<CallbackTracker> tracker_;
  std::shared_ptr<AlarmTimer*> self_;
  absl::flat_hash_map<Id, Entry> entries_;
  Id next_id_ = 1;
};

}  // namespace

std::unique_ptr<TaskTimer> MakeAlarmTimer(runtime::MailboxExecutor executor) {
  return std::make_unique<AlarmTimer>(executor);
}

std::unique_ptr<TaskTimer> MakeTimer(const TimerFactory& factory,
                                     runtime::MailboxExecutor executor) {
  return factory != nullptr ? factory(executor) : MakeAlarmTimer(executor);
}

ManualTimer::ManualTimer(FakeClock& clock, runtime::MailboxExecutor executor,
                         bool auto_advance)
    : clock_(clock),
      executor_(executor),
      auto_advance_(auto_advance),
      self_(std::make_shared<ManualTimer*>(this)) {}

ManualTimer::~ManualTimer() { CancelAll(); }

TaskTimer::Id ManualTimer::Schedule(absl::Duration delay, Mail mail) {
  absl::MutexLock lock(&mu_);
  delays_.push_back(delay);
  const Id id = next_id_++;
  const absl::Time due = clock_.Now() + std::max(delay, absl::ZeroDuration());
  entries_[id] = Entry{due, std::move(mail)};
  if (auto_advance_ && due > clock_.Now()) clock_.Set(due);
  PostDue();
  return id;
}

void ManualTimer::Cancel(Id id) {
  absl::MutexLock lock(&mu_);
  entries_.erase(id);
  posted_.erase(id);
}

void ManualTimer::CancelAll() {
  absl::MutexLock lock(&mu_);
  entries_.clear();
  posted_.clear();
}

void ManualTimer::Advance(absl::Duration delta) {
  absl::MutexLock lock(&mu_);
  clock_.Advance(delta);
  PostDue();
}

std::vector<absl::Duration> ManualTimer::delays() const {
  absl::MutexLock lock(&mu_);
  return delays_;
}

int ManualTimer::pending() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(entries_.size() + posted_.size());
}

void ManualTimer::PostDue() {
  const absl::Time now = clock_.Now();
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.due > now) {
      ++it;
      continue;
    }
    const Id id = it->first;
    posted_[id] = std::move(it->second.mail);
    it = entries_.erase(it);
    executor_.Post([self = std::weak_ptr<ManualTimer*>(self_), id] {
      auto timer = self.lock();
      if (timer == nullptr) return;
      Mail mail;
      {
        absl::MutexLock lock(&(*timer)->mu_);
        auto found = (*timer)->posted_.find(id);
        if (found == (*timer)->posted_.end()) return;  // Cancelled.
        mail = std::move(found->second);
        (*timer)->posted_.erase(found);
      }
      mail();
    });
  }
}

}  // namespace gcpstream::connector

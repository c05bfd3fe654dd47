#include "gcpstream/runtime/mailbox.h"

#include <utility>

namespace gcpstream::runtime {

void Mailbox::Post(Mail mail) {
  {
    absl::MutexLock lock(&mu_);
    completions_.push_back(std::move(mail));
  }
  signal_->Notify();
}

void Mailbox::PostControl(Mail mail) {
  {
    absl::MutexLock lock(&mu_);
    control_.push_back(std::move(mail));
  }
  signal_->Notify();
}

int Mailbox::RunCompletions() {
  std::deque<Mail> batch;
  {
    absl::MutexLock lock(&mu_);
    batch.swap(completions_);
  }
  for (Mail& mail : batch) mail();
  return static_cast<int>(batch.size());
}

int Mailbox::RunAll() {
  int ran = RunCompletions();
  std::deque<Mail> batch;
  {
    absl::MutexLock lock(&mu_);
    batch.swap(control_);
  }
  for (Mail& mail : batch) mail();
  return ran + static_cast<int>(batch.size());
}

bool Mailbox::HasCompletions() const {
  absl::MutexLock lock(&mu_);
  return !completions_.empty();
}

bool Mailbox::HasAny() const {
  absl::MutexLock lock(&mu_);
  return !completions_.empty() || !control_.empty();
}

}  // namespace gcpstream::runtime

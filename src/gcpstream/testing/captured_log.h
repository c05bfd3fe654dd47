#ifndef GCPSTREAM_TESTING_CAPTURED_LOG_H_
#define GCPSTREAM_TESTING_CAPTURED_LOG_H_

#include <memory>
#include <sstream>
#include <string>

#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace gcpstream::testing {

// Routes spdlog's default logger into a string for the object's lifetime.
class CapturedLog {
 public:
  explicit CapturedLog(spdlog::level::level_enum level)
      : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>(
        "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured_));
    logger->set_level(level);
    spdlog::set_default_logger(logger);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  ~CapturedLog() { spdlog::set_default_logger(previous_); }

  std::string str() const { return captured_.str(); }

 private:
  std::ostringstream captured_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_CAPTURED_LOG_H_

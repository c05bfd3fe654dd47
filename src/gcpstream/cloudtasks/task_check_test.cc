#include "gcpstream/cloudtasks/task_check.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;
using ::testing::HasSubstr;

Task Http(const std::string& url, v2::HttpMethod method = v2::POST) {
  Task task;
  task.mutable_http_request()->set_url(url);
  task.mutable_http_request()->set_http_method(method);
  return task;
}

std::string Refusal(const Task& task) {
  absl::Status status = CheckTask(task);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

TEST(TaskCheckTest, AcceptsWhatTheServiceAccepts) {
  Task task = Http("https://hooks.example.com/orders?id=1");
  task.mutable_http_request()->set_body("{}");
  (*task.mutable_http_request()->mutable_headers())["Content-Type"] =
      "application/json";
  task.mutable_http_request()->mutable_oidc_token()->set_service_account_email(
      "invoker@p.iam.gserviceaccount.com");
  EXPECT_TRUE(CheckTask(task).ok());
  Task app_engine;
  app_engine.mutable_app_engine_http_request()->set_relative_uri("/work");
  EXPECT_TRUE(CheckTask(app_engine).ok());
}

TEST(TaskCheckTest, RefusalsNameTheField) {
  EXPECT_THAT(Refusal(Task()), HasSubstr("no target"));
  EXPECT_THAT(Refusal(Http("ftp://x")), HasSubstr("'http_request.url'"));
  EXPECT_THAT(Refusal(Http("https:///path")), HasSubstr("has no host"));
  EXPECT_THAT(Refusal(Http("https://h/" + std::string(2100, 'a'))),
              HasSubstr("the limit is 2083"));
  Task get = Http("https://h/x", v2::GET);
  get.mutable_http_request()->set_body("b");
  EXPECT_THAT(Refusal(get), HasSubstr("method GET carries no body"));
  for (const char* header :
       {"Host", "content-length", "User-Agent", "X-CloudTasks-TaskName",
        "X-Google-Internal", "X-AppEngine-Country"}) {
    Task task = Http("https://h/x");
    (*task.mutable_http_request()->mutable_headers())[header] = "v";
    EXPECT_THAT(Refusal(task),
                HasSubstr(absl::StrCat("headers[", header, "]")));
  }
  Task oidc = Http("https://h/x");
  oidc.mutable_http_request()->mutable_oidc_token()->set_audience("a");
  EXPECT_THAT(Refusal(oidc), HasSubstr("oidc_token.service_account_email"));
  Task relative;
  relative.mutable_app_engine_http_request()->set_relative_uri("work");
  EXPECT_THAT(Refusal(relative), HasSubstr("must start with '/'"));
  Task big = Http("https://h/x");
  big.mutable_http_request()->set_body(std::string(kMaxTaskBytes, 'b'));
  EXPECT_THAT(Refusal(big), HasSubstr("Cloud Tasks' limit is 1048576"));
}

TEST(TaskCheckTest, TaskIdIsTheHexSha256OfTheKey) {
  EXPECT_EQ(TaskIdOf("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(TaskIdOf("order-42"), TaskIdOf("order-42"));
  EXPECT_NE(TaskIdOf("order-42"), TaskIdOf("order-43"));
}

}  // namespace
}  // namespace gcpstream::cloudtasks

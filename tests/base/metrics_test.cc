// Tests of base/metrics.h: the registry and its text exposition format.
#include "base/metrics.h"

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "tests/testing/metrics_text.h"

namespace dfx {
namespace {

TEST_CASE("metrics: counters and gauges render with HELP, TYPE and labels") {
  MetricsRegistry r;
  MetricFamily* steps = r.AddCounter("dfx_test_steps_total",
                                     "Steps by outcome.", {"role", "code"});
  steps->GetCounter({"master", "OK"})->Increment(3);
  steps->GetCounter({"master", "CANCELLED"})->Increment();
  r.AddGauge("dfx_test_memory_bytes", "Bytes.")->GetGauge({})->Set(1.5);
  CHECK(r.RenderText() ==
        "# HELP dfx_test_memory_bytes Bytes.\n"
        "# TYPE dfx_test_memory_bytes gauge\n"
        "dfx_test_memory_bytes 1.5\n"
        "# HELP dfx_test_steps_total Steps by outcome.\n"
        "# TYPE dfx_test_steps_total counter\n"
        "dfx_test_steps_total{role=\"master\",code=\"CANCELLED\"} 1\n"
        "dfx_test_steps_total{role=\"master\",code=\"OK\"} 3\n");
  // The same name again is the same family, with its series.
  CHECK(r.AddCounter("dfx_test_steps_total", "Steps by outcome.",
                     {"role", "code"}) == steps);
  CHECK(steps->GetCounter({"master", "OK"})->Value() == 3);
}

TEST_CASE("metrics: a histogram has cumulative buckets, +Inf, _sum and _count") {
  MetricsRegistry r;
  Histogram* h = r.AddHistogram("dfx_test_seconds", "Latency.", {"role"},
                                {0.1, 1, 10})
                     ->GetHistogram({"worker"});
  for (double v : {0.05, 0.1, 0.5, 2.0, 100.0}) h->Observe(v);
  CHECK(r.RenderText() ==
        "# HELP dfx_test_seconds Latency.\n"
        "# TYPE dfx_test_seconds histogram\n"
        "dfx_test_seconds_bucket{role=\"worker\",le=\"0.1\"} 2\n"
        "dfx_test_seconds_bucket{role=\"worker\",le=\"1\"} 3\n"
        "dfx_test_seconds_bucket{role=\"worker\",le=\"10\"} 4\n"
        "dfx_test_seconds_bucket{role=\"worker\",le=\"+Inf\"} 5\n"
        "dfx_test_seconds_sum{role=\"worker\"} 102.65\n"
        "dfx_test_seconds_count{role=\"worker\"} 5\n");
  absl::StatusOr<testing::MetricsText> parsed =
      testing::ParseMetricsText(r.RenderText());
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  CHECK(parsed->types.at("dfx_test_seconds") == "histogram");
  CHECK(parsed->Get("dfx_test_seconds_count{role=\"worker\"}") == 5);
}

TEST_CASE("metrics: label values and HELP text are escaped") {
  MetricsRegistry r;
  r.AddCounter("dfx_test_nodes_total", "A \\ help\nwith two lines.",
               {"node"})
      ->GetCounter({"a\"b\\c\nd<e>"})
      ->Increment();
  const std::string text = r.RenderText();
  CHECK(absl::StrContains(text,
                          "# HELP dfx_test_nodes_total A \\\\ help\\nwith "
                          "two lines.\n"));
  CHECK(absl::StrContains(
      text, "dfx_test_nodes_total{node=\"a\\\"b\\\\c\\nd<e>\"} 1\n"));
  absl::StatusOr<testing::MetricsText> parsed = testing::ParseMetricsText(text);
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  // Read back, the escapes give the original value.
  CHECK(parsed->Get("dfx_test_nodes_total{node=\"a\"b\\c\nd<e>\"}") == 1);
}

TEST_CASE("metrics: values use the format's spelling of numbers") {
  CHECK(FormatMetricValue(0.005) == "0.005");
  CHECK(FormatMetricValue(3) == "3");
  CHECK(FormatMetricValue(1e21) == "1e+21");
  CHECK(FormatMetricValue(-2.5) == "-2.5");
  CHECK(FormatMetricValue(HUGE_VAL) == "+Inf");
  CHECK(FormatMetricValue(-HUGE_VAL) == "-Inf");
  CHECK(FormatMetricValue(std::nan("")) == "NaN");
}

TEST_CASE("metrics: a callback gauge is read at rendering and goes with its handle") {
  MetricsRegistry r;
  MetricFamily* sessions = r.AddGauge("dfx_test_sessions", "Sessions.",
                                      {"task"});
  double live = 2;
  auto handle = sessions->AddCallback({"/job:w/replica:0/task:0"},
                                      [&live] { return live; });
  CHECK(absl::StrContains(r.RenderText(),
                          "dfx_test_sessions{task=\"/job:w/replica:0/task:0\"}"
                          " 2\n"));
  live = 7;
  CHECK(absl::StrContains(r.RenderText(), "} 7\n"));
  handle.reset();
  // No series: no family lines either.
  CHECK(r.RenderText().empty());
}

TEST_CASE("metrics: increments from many threads all count") {
  MetricsRegistry r;
  Counter* c = r.AddCounter("dfx_test_total", "Count.")->GetCounter({});
  Histogram* h = r.AddHistogram("dfx_test_h", "H.", {}, {1})->GetHistogram({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([c, h] {
      for (int i = 0; i < 10000; ++i) {
        c->Increment();
        h->Observe(i % 2 == 0 ? 0.5 : 2);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(c->Value() == 80000);
  absl::StatusOr<testing::MetricsText> parsed =
      testing::ParseMetricsText(r.RenderText());
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  CHECK(parsed->Get("dfx_test_h_bucket{le=\"1\"}") == 40000);
  CHECK(parsed->Get("dfx_test_h_count") == 80000);
  CHECK(parsed->Get("dfx_test_h_sum") == 40000 * 0.5 + 40000 * 2);
}

TEST_CASE("metrics: the test reader refuses what the format forbids") {
  // The reader is what the server's /metrics test trusts: it must fail.
  CHECK(!testing::ParseMetricsText("x 1\n").ok());  // no TYPE
  CHECK(!testing::ParseMetricsText("# TYPE x counter\nx{a=\"b} 1\n").ok());
  CHECK(!testing::ParseMetricsText("# TYPE x counter\nx{a=\"\\t\"} 1\n").ok());
  CHECK(!testing::ParseMetricsText(
             "# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
             "h_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n")
             .ok());
  CHECK(!testing::ParseMetricsText("# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
                                   "h_sum 1\nh_count 1\n")
             .ok());
  CHECK(testing::ParseMetricsText("# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
                                  "h_bucket{le=\"+Inf\"} 1\nh_sum 1\n"
                                  "h_count 1\n")
            .ok());
}

TEST_CASE("metrics: status codes have gRPC's names") {
  CHECK(StatusCodeLabel(absl::StatusCode::kOk) == "OK");
  CHECK(StatusCodeLabel(absl::StatusCode::kResourceExhausted) ==
        "RESOURCE_EXHAUSTED");
  CHECK(StatusCodeLabel(absl::StatusCode::kUnauthenticated) ==
        "UNAUTHENTICATED");
}

}  // namespace
}  // namespace dfx

// The stats family (graph/ops/stats_ops.cc, kernels/data/stats_kernels.cc):
// TensorFlow 2.21's signatures, and what the golden cases
// (tests/golden/gen_stats.py) cannot compare: latencies that are plausible
// (a pause of 2 ms below a LatencyStatsDataset shows as at least 2000
// microseconds), the V2 aggregator's events in the file its summary writer
// wrote (their steps and wall times), counters and scalars under
// SetStatsAggregatorDataset's tag and counter_prefix, concurrent recording
// from two pipelines, IteratorGetModelProto's NotFound with autotune on, and
// ComputeBatchSize of the v1 BatchDataset, which TensorFlow fails to
// serialize.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/op_registry.h"
#include "kernels/data/dataset.h"
#include "kernels/data/stats_aggregator_resource.h"
#include "kernels/summary/event_writer.h"
#include "proto/event.pb.h"
#include "proto/summary.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  INFO(node.op());
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

const DataTypeVector kI64 = {DT_INT64};

NodeDef DatasetNode(const std::string& op, int inputs) {
  return TestNodeBuilder(op, op, inputs).Attr("output_types", kI64).Build();
}

Tensor Range(int64_t n) {
  return Run1(DatasetNode("RangeDataset", 3), {I64(0), I64(n), I64(1)});
}

Tensor Aggregator(const std::string& shared_name, bool v2 = false) {
  return Run1(
      TestNodeBuilder(
          "agg", v2 ? "StatsAggregatorHandleV2" : "StatsAggregatorHandle", 0)
          .Attr("shared_name", shared_name.c_str())
          .Build(),
      {});
}

Tensor Stats(const char* op, const Tensor& input, const std::string& tag) {
  return Run1(DatasetNode(op, 2), {input, Str(tag)});
}

Tensor SetAggregator(const Tensor& input, const Tensor& agg,
                     const std::string& tag, const std::string& prefix) {
  return Run1(DatasetNode("SetStatsAggregatorDataset", 4),
              {input, agg, Str(tag), Str(prefix)});
}

// Reads every element of `ds` (int64 scalars); the first error other than
// the end.
absl::Status Drain(const Tensor& ds) {
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", kI64)
                    .Build(),
                {});
  if (!it.ok()) return it.status();
  absl::Status made =
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                {ds, (*it)[0]})
          .status();
  if (!made.ok()) return made;
  while (true) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", kI64)
                      .Build(),
                  {(*it)[0]});
    if (!e.ok()) {
      return absl::IsOutOfRange(e.status()) ? absl::OkStatus() : e.status();
    }
  }
}

Summary SummaryOf(const Tensor& agg) {
  const Tensor s = Run1(
      TestNodeBuilder("summary", "StatsAggregatorSummary", 1).Build(), {agg});
  Summary summary;
  REQUIRE(summary.ParseFromString(s.scalar<std::string>()));
  return summary;
}

const Summary::Value* Find(const Summary& s, const std::string& tag) {
  for (const Summary::Value& v : s.value()) {
    if (v.tag() == tag) return &v;
  }
  return nullptr;
}

std::shared_ptr<data::StatsAggregatorResource> ResourceOf(const Tensor& agg) {
  const ResourceHandle& h = agg.scalar<ResourceHandle>();
  auto r = testing::TestCpuDevice()
               ->resource_manager()
               ->Lookup<data::StatsAggregatorResource>(h.container(), h.name());
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("Every stats op has TensorFlow 2.21's signature and CPU types",
          "[stats]") {
  testing::CheckSignaturesWithTensorFlow("stats", 10);
}

TEST_CASE("The stats ops output scalars, the summary-writer op nothing",
          "[stats]") {
  for (const char* op : {"StatsAggregatorHandle", "StatsAggregatorHandleV2",
                         "StatsAggregatorSummary", "IteratorGetModelProto",
                         "ComputeBatchSize", "SetStatsAggregatorDataset"}) {
    INFO(op);
    const NodeDef node =
        TestNodeBuilder("n", op, 0).Attr("output_types", kI64).Build();
    const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
    REQUIRE(reg != nullptr);
    std::vector<PartialShape> in(reg->op_def.input_arg_size(),
                                 PartialShape::Unknown());
    absl::StatusOr<std::vector<PartialShape>> s = InferShapes(node, in);
    REQUIRE(s.ok());
    REQUIRE(s->size() == 1);
    CHECK((*s)[0].DebugString() == PartialShape::Known({}).DebugString());
  }
  absl::StatusOr<std::vector<PartialShape>> none = InferShapes(
      TestNodeBuilder("w", "StatsAggregatorSetSummaryWriter", 2).Build(),
      {PartialShape::Unknown(), PartialShape::Unknown()});
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("A latency histogram counts every element in microseconds",
          "[stats]") {
  const Tensor agg = Aggregator("latency_test");
  // Each element 2 ms late.
  const Tensor slow =
      Run1(DatasetNode("SleepDataset", 2), {Range(3), I64(2000)});
  REQUIRE(Drain(SetAggregator(Stats("LatencyStatsDataset", slow, "lat"), agg,
                              "t", ""))
              .ok());
  const Summary s = SummaryOf(agg);
  REQUIRE(s.value_size() == 1);
  const Summary::Value* v = Find(s, "t::lat");
  REQUIRE(v != nullptr);
  const HistogramProto& h = v->histo();
  CHECK(h.num() == 3);
  CHECK(h.min() >= 2000);
  CHECK(h.max() >= h.min());
  CHECK(h.max() < 10e6);  // under ten seconds
  CHECK(h.sum() >= 3 * h.min());
  double counted = 0;
  for (double c : h.bucket()) counted += c;
  CHECK(counted == 3);
  REQUIRE(h.bucket_limit_size() == h.bucket_size());
}

TEST_CASE("A V2 aggregator writes each value as an event of its writer",
          "[stats]") {
  testing::TempDir dir;
  const Tensor writer = Run1(TestNodeBuilder("w", "SummaryWriter", 0)
                                 .Attr("shared_name", "stats_w")
                                 .Build(),
                             {});
  REQUIRE(RunKernel(TestNodeBuilder("c", "CreateSummaryFileWriter", 5).Build(),
                    {writer, Str(dir.path()), Tensor::Scalar<int32_t>(100),
                     Tensor::Scalar<int32_t>(100000), Str(".stats")})
              .ok());
  const Tensor agg = Aggregator("v2_test", /*v2=*/true);
  REQUIRE(
      RunKernel(
          TestNodeBuilder("s", "StatsAggregatorSetSummaryWriter", 2).Build(),
          {agg, writer})
          .ok());
  const double before = summary::WallTime();
  REQUIRE(
      Drain(SetAggregator(
                Stats("LatencyStatsDataset",
                      Stats("BytesProducedStatsDataset", Range(3), "b"), "l"),
                agg, "v2", ""))
          .ok());
  // Nothing kept for a summary.
  CHECK(SummaryOf(agg).value_size() == 0);
  REQUIRE(
      RunKernel(TestNodeBuilder("f", "FlushSummaryWriter", 1).Build(), {writer})
          .ok());

  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    files.push_back(e.path().string());
  }
  REQUIRE(files.size() == 1);
  std::ifstream in(files[0], std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  absl::StatusOr<std::vector<std::string>> records =
      summary::ParseRecords(bytes.str(), files[0]);
  REQUIRE(records.ok());
  // The version event, then one event per recorded value: bytes first
  // (recorded inside the latency call), then the latency.
  REQUIRE(records->size() == 7);
  for (size_t i = 1; i < records->size(); ++i) {
    Event e;
    REQUIRE(e.ParseFromString((*records)[i]));
    INFO(e.DebugString());
    const int64_t element = static_cast<int64_t>(i - 1) / 2;
    REQUIRE(e.summary().value_size() == 1);
    const Summary::Value& v = e.summary().value(0);
    CHECK(v.tag() == (i % 2 == 1 ? "v2::b" : "v2::l"));
    // The step: how many elements the recording dataset produced before.
    CHECK(e.step() == element);
    CHECK(e.wall_time() >= before - 1);
    CHECK(v.histo().num() == element + 1);  // the histogram so far
    if (i % 2 == 1) CHECK(v.histo().sum() == 8 * (element + 1));
  }
  REQUIRE(
      RunKernel(TestNodeBuilder("x", "CloseSummaryWriter", 1).Build(), {writer})
          .ok());
}

// A dataset that records a scalar and a counter for each element, as
// TensorFlow's filter and parse datasets do.
class CountingDataset final : public data::DatasetBase {
 public:
  CountingDataset() : DatasetBase({DT_INT64}) {}
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> MakeIterator(
      data::IteratorContext*) const override {
    return std::unique_ptr<data::IteratorBase>(new Iterator);
  }
  std::string DebugString() const override { return "CountingDataset"; }

 private:
  class Iterator final : public data::IteratorBase {
   public:
    absl::Status GetNext(data::IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      *end = n_ == 3;
      if (*end) return absl::OkStatus();
      ++n_;
      if (ctx->stats_aggregator != nullptr) {
        ctx->stats_aggregator->AddScalar("seen", static_cast<float>(n_), n_);
        ctx->stats_aggregator->IncrementCounter("records", "trainer", 2);
      }
      out->push_back(I64(n_));
      return absl::OkStatus();
    }

   private:
    int64_t n_ = 0;
  };
};

Tensor Counting() {
  Tensor t(DT_VARIANT, TensorShape({}));
  t.data<Variant>()[0] =
      Variant::Make<data::DatasetVariant>(std::make_shared<CountingDataset>());
  return t;
}

TEST_CASE("Scalars take the tag and counters the counter_prefix", "[stats]") {
  const Tensor agg = Aggregator("counter_test");
  REQUIRE(Drain(SetAggregator(Counting(), agg, "t", "cp")).ok());
  REQUIRE(Drain(SetAggregator(Counting(), agg, "u", "")).ok());
  REQUIRE(Drain(SetAggregator(Counting(), agg, "", "")).ok());
  const Summary s = SummaryOf(agg);
  CHECK(s.value_size() == 3);
  for (const char* tag : {"t::seen", "u::seen", "seen"}) {
    INFO(tag);
    const Summary::Value* v = Find(s, tag);
    REQUIRE(v != nullptr);
    CHECK(v->simple_value() == 3);  // the last value set
  }
  auto r = ResourceOf(agg);
  CHECK(r->Counter("cp/t::records", "trainer") == 6);
  CHECK(r->Counter("/tensorflow/u::records", "trainer") == 6);
  CHECK(r->Counter("/tensorflow/records", "trainer") == 6);
}

TEST_CASE("Two pipelines record into one aggregator at once", "[stats]") {
  const Tensor agg = Aggregator("concurrent_test");
  const Tensor a = SetAggregator(
      Stats("BytesProducedStatsDataset", Range(200), "b"), agg, "t", "");
  const Tensor b = SetAggregator(
      Stats("BytesProducedStatsDataset", Range(300), "b"), agg, "t", "");
  absl::Status sa, sb;
  std::thread ta([&] { sa = Drain(a); });
  std::thread tb([&] { sb = Drain(b); });
  ta.join();
  tb.join();
  REQUIRE(sa.ok());
  REQUIRE(sb.ok());
  const Summary summary = SummaryOf(agg);
  const Summary::Value* v = Find(summary, "t::b");
  REQUIRE(v != nullptr);
  CHECK(v->histo().num() == 500);
  CHECK(v->histo().sum() == 8 * 500);
}

TEST_CASE("IteratorGetModelProto answers NotFound: dfx keeps no model",
          "[stats]") {
  const Tensor it = Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                             .Attr("output_types", kI64)
                             .Build(),
                         {});
  const NodeDef model =
      TestNodeBuilder("model", "IteratorGetModelProto", 1).Build();
  CHECK_THAT(RunKernel(model, {it}).status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "has not been initialized"));
  REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                    {Range(3), it})
              .ok());
  // TensorFlow returns its autotune model here (autotune is on by
  // default); dfx gives TensorFlow's answer for an iterator without one.
  CHECK_THAT(RunKernel(model, {it}).status(),
             StatusIs(absl::StatusCode::kNotFound, "analytical model"));
}

TEST_CASE("ComputeBatchSize reads the v1 BatchDataset's batch size",
          "[stats]") {
  const Tensor batch =
      Run1(DatasetNode("BatchDataset", 2), {Range(10), I64(5)});
  const NodeDef compute = TestNodeBuilder("cbs", "ComputeBatchSize", 1).Build();
  CHECK(Run1(compute, {batch}).scalar<int64_t>() == 5);
  // Through a statistics dataset: -1, as TensorFlow.
  CHECK(Run1(compute, {Stats("BytesProducedStatsDataset", batch, "b")})
            .scalar<int64_t>() == -1);
  // A dataset made by no node: unknown.
  CHECK(Run1(compute, {Counting()}).scalar<int64_t>() == -1);
  CHECK_THAT(RunKernel(compute, {I64(1)}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("The stats ops fail on bad handles", "[stats]") {
  const Tensor missing = Aggregator("never_made");
  // Deleted under the handle: NotFound, as TensorFlow's lookup.
  const ResourceHandle& h = missing.scalar<ResourceHandle>();
  REQUIRE(testing::TestCpuDevice()
              ->resource_manager()
              ->Delete(h.container(), h.name(),
                       data::StatsAggregatorResource::kTypeName)
              .ok());
  CHECK_THAT(
      RunKernel(TestNodeBuilder("s", "StatsAggregatorSummary", 1).Build(),
                {missing})
          .status(),
      StatusIs(absl::StatusCode::kNotFound));
  CHECK_THAT(RunKernel(DatasetNode("SetStatsAggregatorDataset", 4),
                       {Range(2), missing, Str("t"), Str("")})
                 .status(),
             StatusIs(absl::StatusCode::kNotFound));
  Tensor two(DT_RESOURCE, TensorShape({2}));
  CHECK_THAT(
      RunKernel(TestNodeBuilder("s", "StatsAggregatorSummary", 1).Build(),
                {two})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "must be a scalar"));
}

}  // namespace
}  // namespace dfx

// tf.data's old op names and the datasets added with them (family
// "dataset2"): signatures equal to TensorFlow's, SlidingWindowDataset's
// windows and errors, SleepDataset's check, BatchDataset (v1) keeping its
// short batch, IteratorFromStringHandle's checks, and the scalar shapes
// every op gives. Whole pipelines against TensorFlow are golden cases.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor Int64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

Tensor Range(int64_t n) {
  return Run1(TestNodeBuilder("range", "RangeDataset", 3)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              {Int64(0), Int64(n), Int64(1)});
}

// An iterator handle made by `op` ("Iterator" or "AnonymousIterator") on
// `dataset`.
Tensor MadeIterator(const std::string& op, const Tensor& dataset) {
  TestNodeBuilder b("it", op, 0);
  b.Attr("output_types", DataTypeVector{DT_INT64});
  if (op == "Iterator") {
    b.Attr("shared_name", "dataset2_test_it").Attr("container", "");
  }
  const Tensor handle = Run1(b.Build(), {});
  REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                    {dataset, handle})
              .ok());
  return handle;
}

// Every element of the iterator, each flattened, until its end.
std::vector<std::vector<int64_t>> Drain(const Tensor& handle) {
  std::vector<std::vector<int64_t>> out;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", DataTypeVector{DT_INT64})
                      .Build(),
                  {handle});
    if (!e.ok()) {
      CHECK_THAT(e.status(), StatusIs(absl::StatusCode::kOutOfRange));
      break;
    }
    auto span = (*e)[0].span<int64_t>();
    out.emplace_back(span.begin(), span.end());
  }
  return out;
}

absl::StatusOr<Tensor> SlidingWindow(const Tensor& input, int64_t size,
                                     int64_t shift, int64_t stride,
                                     bool drop_remainder) {
  DFX_ASSIGN_OR_RETURN(
      std::vector<Tensor> out,
      RunKernel(TestNodeBuilder("sw", "SlidingWindowDataset", 4)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Attr("drop_remainder", drop_remainder)
                    .Build(),
                {input, Int64(size), Int64(shift), Int64(stride)}));
  return out[0];
}

TEST_CASE("Every dataset2 op has TensorFlow 2.21's signature and CPU types",
          "[dataset2]") {
  testing::CheckSignaturesWithTensorFlow("dataset2", 34);
}

TEST_CASE("SlidingWindowDataset stacks strided windows and keeps or drops "
          "the short ones at the end",
          "[dataset2]") {
  absl::StatusOr<Tensor> keep = SlidingWindow(Range(7), 3, 2, 1, false);
  REQUIRE(keep.ok());
  CHECK(Drain(MadeIterator("AnonymousIterator", *keep)) ==
        std::vector<std::vector<int64_t>>{{0, 1, 2}, {2, 3, 4}, {4, 5, 6},
                                          {6}});
  absl::StatusOr<Tensor> drop = SlidingWindow(Range(7), 3, 2, 1, true);
  REQUIRE(drop.ok());
  CHECK(Drain(MadeIterator("AnonymousIterator", *drop)) ==
        std::vector<std::vector<int64_t>>{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}});
  // Stride 2, shift past the buffer: input elements are skipped.
  absl::StatusOr<Tensor> strided = SlidingWindow(Range(10), 2, 4, 2, true);
  REQUIRE(strided.ok());
  CHECK(Drain(MadeIterator("Iterator", *strided)) ==
        std::vector<std::vector<int64_t>>{{0, 2}, {4, 6}});
}

TEST_CASE("SlidingWindowDataset refuses a window size, shift or stride "
          "below one",
          "[dataset2]") {
  CHECK_THAT(SlidingWindow(Range(4), 0, 1, 1, true).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Window size must be greater than zero."));
  CHECK_THAT(SlidingWindow(Range(4), 2, -1, 1, true).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Window shift must be greater than zero"));
  CHECK_THAT(SlidingWindow(Range(4), 2, 1, 0, true).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "window_stride must be greater than zero"));
}

TEST_CASE("SleepDataset refuses a negative sleep", "[dataset2]") {
  CHECK_THAT(RunKernel(TestNodeBuilder("sleep", "SleepDataset", 2)
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build(),
                       {Range(3), Int64(-5)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "sleep_microseconds"));
}

TEST_CASE("BatchDataset (v1) keeps the short last batch", "[dataset2]") {
  const Tensor batched =
      Run1(TestNodeBuilder("batch", "BatchDataset", 2)
               .Attr("output_types", DataTypeVector{DT_INT64})
               .Build(),
           {Range(5), Int64(2)});
  CHECK(Drain(MadeIterator("AnonymousIterator", batched)) ==
        std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4}});
}

TEST_CASE("IteratorFromStringHandle refuses a string that is not a handle "
          "and checks the iterator's types",
          "[dataset2]") {
  const Tensor handle = MadeIterator("AnonymousIterator", Range(3));
  const Tensor str =
      Run1(TestNodeBuilder("to", "IteratorToStringHandle", 1).Build(),
           {handle});
  for (const char* op :
       {"IteratorFromStringHandle", "IteratorFromStringHandleV2"}) {
    CAPTURE(op);
    CHECK_THAT(RunKernel(TestNodeBuilder("from", op, 1).Build(),
                         {Tensor::Scalar<std::string>("\xff\x01junk")})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Could not parse string_handle"));
    CHECK_THAT(RunKernel(TestNodeBuilder("from", op, 1).Build(),
                         {Tensor::FromVector<std::string>({"a", "b"})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "string_handle must be a scalar"));
    CHECK_THAT(RunKernel(TestNodeBuilder("from", op, 1)
                             .Attr("output_types", DataTypeVector{DT_FLOAT})
                             .Build(),
                         {str})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Data type mismatch at component 0"));
    const Tensor again = Run1(TestNodeBuilder("from", op, 1)
                                  .Attr("output_types",
                                        DataTypeVector{DT_INT64})
                                  .Build(),
                              {str});
    CHECK(again.scalar<ResourceHandle>().name() ==
          handle.scalar<ResourceHandle>().name());
  }
}

TEST_CASE("The dataset2 ops give scalars whatever their inputs' shapes",
          "[dataset2]") {
  for (const char* op :
       {"BatchDataset", "ExperimentalUnbatchDataset", "SlidingWindowDataset",
        "SleepDataset", "ExperimentalDatasetCardinality", "Iterator",
        "IteratorFromStringHandle"}) {
    CAPTURE(op);
    const OpRegistrationData* data = OpRegistry::Global()->LookUp(op);
    REQUIRE(data != nullptr);
    const int n = data->op_def.input_arg_size();
    TestNodeBuilder b("n", op, n);
    b.Attr("output_types", DataTypeVector{DT_INT64});
    absl::StatusOr<std::vector<PartialShape>> shapes = testing::InferShapes(
        b.Build(), std::vector<PartialShape>(n, PartialShape()));
    CHECK(testing::ShapesString(shapes) == "[]");
  }
}

}  // namespace
}  // namespace dfx

// tf.data's random and regrouping datasets one op at a time (RandomDataset,
// WindowDataset, GroupByWindowDataset's errors, the SparseTensor datasets,
// rebatching): seeds, errors with their codes, and signatures equal to
// TensorFlow's. Whole pipelines against TensorFlow are golden cases (family
// "dataset_window").
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/data/dataset.h"
#include "runtime/cancellation.h"
#include "runtime/variant.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor Int64s(std::vector<int64_t> v) {
  return Tensor::FromVector<int64_t>(v);
}

Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

Tensor Slices(std::vector<int64_t> values) {
  return Run1(TestNodeBuilder("slices", "TensorSliceDataset", 1)
                  .Attr("Toutput_types", DataTypeVector{DT_INT64})
                  .Build(),
              {Int64s(std::move(values))});
}

// `n` elements of `dataset` (one int64 component each) through an
// anonymous iterator, or the first error.
absl::StatusOr<std::vector<int64_t>> Pull(const Tensor& dataset, int n,
                                          DataType dtype = DT_INT64) {
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", DataTypeVector{dtype})
                    .Build(),
                {});
  if (!it.ok()) return it.status();
  const Tensor handle = (*it)[0];
  absl::Status made =
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                {dataset, handle})
          .status();
  std::vector<int64_t> out;
  absl::Status status = made;
  for (int i = 0; i < n && status.ok(); ++i) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", DataTypeVector{dtype})
                      .Build(),
                  {handle});
    if (!e.ok()) {
      status = e.status();
      break;
    }
    for (int64_t v : (*e)[0].span<int64_t>()) out.push_back(v);
  }
  (void)RunKernel(TestNodeBuilder("del", "DeleteIterator", 2).Build(),
                  {handle, Tensor(DT_VARIANT, TensorShape({}))});
  if (!status.ok()) return status;
  return out;
}

Tensor Random(int64_t seed, int64_t seed2, bool v2, bool rerandomize) {
  if (!v2) {
    return Run1(TestNodeBuilder("random", "RandomDataset", 2)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {Tensor::Scalar<int64_t>(seed),
                 Tensor::Scalar<int64_t>(seed2)});
  }
  Tensor dummy =
      Run1(TestNodeBuilder("dummy", "DummySeedGenerator", 0).Build(), {});
  return Run1(TestNodeBuilder("random", "RandomDatasetV2", 3)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Attr("rerandomize_each_iteration", rerandomize)
                  .Build(),
              {Tensor::Scalar<int64_t>(seed), Tensor::Scalar<int64_t>(seed2),
               dummy});
}

TEST_CASE("dataset_window: the OpDefs equal TensorFlow's and the CPU "
          "kernels serve its types") {
  testing::CheckSignaturesWithTensorFlow("dataset_window", 11);
}

TEST_CASE("dataset_window: Dataset.random repeats its words for fixed seeds "
          "and rerandomizes per iterator when asked") {
  absl::StatusOr<std::vector<int64_t>> a = Pull(Random(4, 7, false, false), 8);
  REQUIRE(a.ok());
  for (int64_t v : *a) {
    CHECK(v >= 0);
    CHECK(v <= int64_t{0xffffffff});
  }
  SECTION("RandomDataset: the same seeds, the same words") {
    absl::StatusOr<std::vector<int64_t>> b =
        Pull(Random(4, 7, false, false), 8);
    REQUIRE(b.ok());
    CHECK(*a == *b);
  }
  SECTION("RandomDatasetV2 without rerandomizing equals V1") {
    absl::StatusOr<std::vector<int64_t>> b = Pull(Random(4, 7, true, false), 8);
    REQUIRE(b.ok());
    CHECK(*a == *b);
  }
  SECTION("rerandomize_each_iteration: each iterator of one dataset differs") {
    Tensor ds = Random(4, 7, true, true);
    absl::StatusOr<std::vector<int64_t>> first = Pull(ds, 8);
    absl::StatusOr<std::vector<int64_t>> second = Pull(ds, 8);
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    CHECK(*first != *second);
    CHECK(*first != *a);
  }
  SECTION("other seeds, other words") {
    absl::StatusOr<std::vector<int64_t>> b =
        Pull(Random(4, 8, false, false), 8);
    REQUIRE(b.ok());
    CHECK(*a != *b);
  }
}

Tensor Window(const Tensor& input, int64_t size, int64_t shift,
              int64_t stride, bool drop, absl::Status* status) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("w", "WindowDataset", 5)
                    .Attr("output_types", DataTypeVector{DT_VARIANT})
                    .Build(),
                {input, Tensor::Scalar<int64_t>(size),
                 Tensor::Scalar<int64_t>(shift),
                 Tensor::Scalar<int64_t>(stride), Tensor::Scalar<bool>(drop)});
  *status = out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

TEST_CASE("dataset_window: window sizes, shifts and strides <= 0 are "
          "InvalidArgument with TensorFlow's messages") {
  absl::Status s;
  Window(Slices({1, 2}), 0, 1, 1, false, &s);
  CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                         "Window size must be greater than zero, but got 0."));
  Window(Slices({1, 2}), 2, -1, 1, false, &s);
  CHECK_THAT(s,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Window shift must be greater than zero, but got -1."));
  Window(Slices({1, 2}), 2, 1, 0, false, &s);
  CHECK_THAT(s,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Window stride must be greater than zero, but got 0."));
}

TEST_CASE("dataset_window: a window's cardinality follows TensorFlow's "
          "formula") {
  absl::Status s;
  auto card = [](const Tensor& ds) {
    return Run1(TestNodeBuilder("c", "DatasetCardinality", 1).Build(), {ds})
        .scalar<int64_t>();
  };
  const Tensor ten = Slices({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(card(Window(ten, 3, 2, 1, false, &s)) == 5);
  CHECK(card(Window(ten, 3, 2, 2, true, &s)) == 3);
  CHECK(card(Window(ten, 20, 1, 1, true, &s)) == 0);
}

TEST_CASE("dataset_window: a window with a long shift over an endless input "
          "stops when its call is cancelled") {
  absl::Status s;
  Tensor endless = Random(1, 2, false, false);
  Tensor w = Window(endless, 1, int64_t{1} << 60, 1, false, &s);
  REQUIRE(s.ok());
  // The first window's call also skips the 2^60 elements before the next
  // window: it ends only because the call is cancelled.
  absl::StatusOr<data::DatasetPtr> d = data::DatasetFromTensor(w, "window");
  REQUIRE(d.ok());
  CancellationManager cancel;
  data::IteratorContext ctx;
  ctx.device = testing::TestCpuDevice();
  ctx.cancellation_manager = &cancel;
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> it =
      (*d)->MakeIterator(&ctx);
  REQUIRE(it.ok());
  cancel.StartCancel();
  std::vector<Tensor> element;
  bool end = false;
  CHECK_THAT((*it)->GetNext(&ctx, &element, &end),
             StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("dataset_window: rebatch splits and joins batches, and refuses "
          "bad arguments") {
  Tensor batched =
      Run1(TestNodeBuilder("b", "BatchDatasetV2", 3)
               .Attr("output_types", DataTypeVector{DT_INT64})
               .Build(),
           {Slices({0, 1, 2, 3, 4, 5, 6}), Tensor::Scalar<int64_t>(3),
            Tensor::Scalar<bool>(false)});
  auto rebatch = [&](Tensor sizes, bool drop) {
    return RunKernel(TestNodeBuilder("r", "RebatchDatasetV2", 3)
                         .Attr("output_types", DataTypeVector{DT_INT64})
                         .Build(),
                     {batched, sizes, Tensor::Scalar<bool>(drop)});
  };
  absl::StatusOr<std::vector<Tensor>> ds = rebatch(Int64s({2, 4}), false);
  REQUIRE(ds.ok());
  absl::StatusOr<std::vector<int64_t>> all = Pull((*ds)[0], 3);
  REQUIRE(all.ok());
  CHECK(*all == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  CHECK_THAT(Pull((*ds)[0], 4).status(),
             StatusIs(absl::StatusCode::kOutOfRange));
  CHECK_THAT(rebatch(Tensor(DT_INT64, TensorShape({1, 1})), false).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "`batch_sizes` must be a scalar or a vector."));
  CHECK_THAT(RunKernel(TestNodeBuilder("r", "RebatchDataset", 2)
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build(),
                       {batched, Tensor::Scalar<int64_t>(0)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "num_replicas must be greater than zero."));
  SECTION("a scalar input element") {
    absl::StatusOr<std::vector<Tensor>> scalar =
        RunKernel(TestNodeBuilder("r", "RebatchDatasetV2", 3)
                      .Attr("output_types", DataTypeVector{DT_INT64})
                      .Build(),
                  {Slices({1, 2}), Int64s({2}), Tensor::Scalar<bool>(false)});
    REQUIRE(scalar.ok());
    CHECK_THAT(Pull((*scalar)[0], 1).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "non-scalar value in each component"));
  }
}

TEST_CASE("dataset_window: SparseTensor datasets check their inputs as "
          "TensorFlow does") {
  const Tensor indices = Tensor::FromVector<int64_t>({1, 0, 0, 0});
  absl::StatusOr<Tensor> unordered = indices.Reshaped(TensorShape({2, 2}));
  REQUIRE(unordered.ok());
  const Tensor values = Tensor::FromVector<float>({1.0f, 2.0f});
  const Tensor shape = Int64s({2, 2});
  NodeDef slice = TestNodeBuilder("s", "SparseTensorSliceDataset", 3)
                      .Attr("Tvalues", DT_FLOAT)
                      .Build();
  CHECK_THAT(RunKernel(slice, {*unordered, values, shape}).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "must be ordered in the batch dimension"));
  CHECK_THAT(RunKernel(slice, {indices, values, shape}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input indices must be a matrix"));
  NodeDef many = TestNodeBuilder("m", "SerializeManySparse", 3)
                     .Attr("T", DT_FLOAT)
                     .Attr("out_type", DT_VARIANT)
                     .Build();
  CHECK_THAT(RunKernel(many, {*unordered, values, shape}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "out of order"));
  CHECK_THAT(RunKernel(TestNodeBuilder("d", "DenseToSparseBatchDataset", 3)
                           .Attr("output_types", DataTypeVector{DT_VARIANT})
                           .Build(),
                       {Slices({1}), Tensor::Scalar<int64_t>(0), Int64s({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Batch size must be greater than zero."));
}

}  // namespace
}  // namespace dfx

// The dataset5 family (graph/ops/dataset5_ops.cc, kernels/data/
// dataset5_kernels.cc): TensorFlow 2.21's signatures, the shape checks a
// graph meets at import, and what the golden cases (tests/golden/
// gen_dataset5.py) cannot show: the assertions fail when the iterator is
// made, not when the dataset is; an assertion iterated outside an iterator
// resource sees no next transformations; DatasetFingerprint's values are
// stable and tell pipelines apart.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/data/dataset.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

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
              {I64(0), I64(n), I64(1)});
}

Tensor Assert(const std::string& op, const Tensor& input,
              const std::vector<std::string>& transformations) {
  return Run1(TestNodeBuilder("assert", op, 2)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              {input, Tensor::FromVector<std::string>(transformations)});
}

// MakeIterator's status for a fresh iterator resource over `dataset`.
absl::Status MakeIterator(const Tensor& dataset) {
  const Tensor handle = Run1(TestNodeBuilder("it", "AnonymousIterator", 0)
                                 .Attr("output_types", DataTypeVector{DT_INT64})
                                 .Build(),
                             {});
  return RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                   {dataset, handle})
      .status();
}

uint64_t Fingerprint(const Tensor& dataset) {
  const Tensor fp =
      Run1(TestNodeBuilder("fp", "DatasetFingerprint", 1).Build(), {dataset});
  REQUIRE(fp.dtype() == DT_UINT64);
  REQUIRE(fp.dims() == 0);
  return fp.data<uint64_t>()[0];
}

TEST_CASE("Every dataset5 op has TensorFlow 2.21's signature and CPU types",
          "[dataset5]") {
  testing::CheckSignaturesWithTensorFlow("dataset5", 4);
}

TEST_CASE("The assertions take a vector of transformations", "[dataset5]") {
  const PartialShape scalar = PartialShape::Known({});
  for (const char* op : {"AssertNextDataset", "ExperimentalAssertNextDataset",
                         "AssertPrevDataset"}) {
    const NodeDef n = TestNodeBuilder("a", op, 2)
                          .Attr("output_types", DataTypeVector{DT_INT64})
                          .Build();
    absl::StatusOr<PartialShape> handle =
        testing::InferShape(n, {scalar, PartialShape::Known({2})});
    REQUIRE(handle.ok());
    CHECK(handle->DebugString() == scalar.DebugString());
    CHECK_THAT(testing::InferShape(n, {scalar, scalar}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST_CASE("An assertion fails when its iterator is made", "[dataset5]") {
  const Tensor range = Range(3);
  // Made: nothing is checked yet.
  const Tensor next = Assert("AssertNextDataset", range, {"Map"});
  const Tensor prev = Assert("AssertPrevDataset", range, {"name: 'Map'"});
  CHECK_THAT(MakeIterator(next),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "encountered Root transformation instead"));
  CHECK_THAT(MakeIterator(prev), StatusIs(absl::StatusCode::kInvalidArgument,
                                          "but found 'RangeDataset'"));
  CHECK(MakeIterator(Assert("AssertNextDataset", range, {"Root"})).ok());
  CHECK(
      MakeIterator(Assert("AssertPrevDataset", range, {"name: 'RangeDataset'"}))
          .ok());
  // Over an assertion: the next transformation is the outer one.
  CHECK(MakeIterator(Assert("AssertNextDataset",
                            Assert("ExperimentalAssertNextDataset", range,
                                   {"AssertNext", "Root"}),
                            {}))
            .ok());
}

TEST_CASE(
    "An assertion iterated outside an iterator resource sees no next "
    "transformations",
    "[dataset5]") {
  // As inside a dataset function: the iterator's dataset does not lead to
  // it, so TensorFlow's prefix names are unknown.
  absl::StatusOr<data::DatasetPtr> d = data::DatasetFromTensor(
      Assert("AssertNextDataset", Range(2), {"Root"}), "test");
  REQUIRE(d.ok());
  data::IteratorContext ctx;
  CHECK_THAT((*d)->MakeIterator(&ctx).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Asserted next 1 transformations but encountered "
                      "only 0."));
}

TEST_CASE("DatasetFingerprint tells pipelines apart and is stable",
          "[dataset5]") {
  const uint64_t r5 = Fingerprint(Range(5));
  CHECK(Fingerprint(Range(5)) == r5);
  CHECK(Fingerprint(Range(6)) != r5);
  CHECK(Fingerprint(Assert("AssertNextDataset", Range(5), {})) != r5);
  CHECK(Fingerprint(Assert("AssertNextDataset", Range(5), {"Map"})) !=
        Fingerprint(Assert("AssertNextDataset", Range(5), {"Batch"})));
  // Not a dataset: InvalidArgument.
  CHECK_THAT(RunKernel(TestNodeBuilder("fp", "DatasetFingerprint", 1).Build(),
                       {Tensor(DT_VARIANT, TensorShape({}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

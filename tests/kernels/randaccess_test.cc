// Tests of random access to datasets (DatasetBase::Get): GetElementAtIndex
// and GlobalShuffleDataset read by index rather than by iterating, and a
// dataset without Get answers as TensorFlow's. tests/golden/
// gen_randaccess.py checks the elements against TensorFlow.
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/data/dataset.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

Tensor Range(int64_t n) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("range", "RangeDataset", 3)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {I64(0), I64(n), I64(1)});
  REQUIRE(out.ok());
  return (*out)[0];
}

absl::StatusOr<std::vector<Tensor>> At(const Tensor& ds, int64_t index) {
  return RunKernel(TestNodeBuilder("at", "GetElementAtIndex", 2)
                       .Attr("output_types", DataTypeVector{DT_INT64})
                       .Build(),
                   {ds, I64(index)});
}

// The first `k` int64 elements of an iterator over `ds`.
absl::StatusOr<std::vector<int64_t>> FirstElements(const Tensor& ds, int k) {
  const DataTypeVector types = {DT_INT64};
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", types)
                    .Build(),
                {});
  if (!it.ok()) return it.status();
  absl::Status made =
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                {ds, (*it)[0]})
          .status();
  if (!made.ok()) return made;
  std::vector<int64_t> out;
  for (int i = 0; i < k; ++i) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", types)
                      .Build(),
                  {(*it)[0]});
    if (!e.ok()) return e.status();
    out.push_back((*e)[0].data<int64_t>()[0]);
  }
  return out;
}

// A dataset of one element, with no random access of its own.
class NoGetDataset final : public data::DatasetBase {
 public:
  NoGetDataset() : DatasetBase({DT_INT64}) {}
  int64_t Cardinality() const override { return 1; }
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> MakeIterator(
      data::IteratorContext* ctx) const override {
    return absl::UnimplementedError("not iterated here");
  }
  std::string DebugString() const override { return "NoGetDataset()"; }
};

TEST_CASE("Every randaccess op has TensorFlow 2.21's signature and CPU types",
          "[randaccess]") {
  testing::CheckSignaturesWithTensorFlow("randaccess", 2);
}

TEST_CASE("GetElementAtIndex reads range(10**12) at 10**11 by index",
          "[randaccess]") {
  // A walk to the element would read 10**11 elements; Get answers at
  // once. (GetElementAtIndex walks only below index 2**24, so a range
  // without Get would be refused, not walked; ctest's timeout bounds the
  // test should that change.)
  const Tensor r = Range(int64_t{1000000000000});
  absl::StatusOr<std::vector<Tensor>> got = At(r, int64_t{100000000000});
  REQUIRE(got.ok());
  REQUIRE(got->size() == 1);
  CHECK((*got)[0].data<int64_t>()[0] == int64_t{100000000000});
  CHECK_THAT(At(r, int64_t{1000000000000}).status(),
             StatusIs(absl::StatusCode::kOutOfRange,
                      "Index out of range [0, 1000000000000):"));
  CHECK_THAT(At(r, -1).status(), StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_CASE("GlobalShuffleDataset reads a huge input by index", "[randaccess]") {
  // range(2^40) is shuffled without reading it: the first elements are
  // distinct indices of it.
  Tensor handle(DT_RESOURCE, TensorShape({}));
  absl::StatusOr<std::vector<Tensor>> made =
      RunKernel(TestNodeBuilder("gs", "GlobalShuffleDataset", 4)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {Range(int64_t{1} << 40), I64(1), I64(2), handle});
  REQUIRE(made.ok());
  absl::StatusOr<std::vector<int64_t>> got = FirstElements((*made)[0], 4);
  REQUIRE(got.ok());
  for (size_t i = 0; i < got->size(); ++i) {
    CHECK((*got)[i] >= 0);
    CHECK((*got)[i] < (int64_t{1} << 40));
    for (size_t j = 0; j < i; ++j) CHECK((*got)[i] != (*got)[j]);
  }
}

TEST_CASE("A dataset without Get is refused by both ops, naming it",
          "[randaccess]") {
  Tensor t(DT_VARIANT, TensorShape({}));
  t.data<Variant>()[0] =
      Variant::Make<data::DatasetVariant>(std::make_shared<NoGetDataset>());
  CHECK_THAT(At(t, 0).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "Random access is not implemented for dataset "
                      "NoGetDataset()"));
  Tensor handle(DT_RESOURCE, TensorShape({}));
  CHECK_THAT(RunKernel(TestNodeBuilder("gs", "GlobalShuffleDataset", 4)
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build(),
                       {t, I64(1), I64(2), handle})
                 .status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "NoGetDataset() does not support random access."));
}

}  // namespace
}  // namespace dfx

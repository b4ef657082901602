// Random, mostly malformed inputs to the sparse, ragged and parsing kernels:
// each run must end in success or an error status (InvalidArgument, or
// Internal/Unimplemented where TensorFlow uses them), never a crash.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::TestNodeBuilder;

class Random {
 public:
  explicit Random(uint32_t seed) : gen_(seed) {}
  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  // An int64 tensor of `shape` with entries in [lo, hi].
  Tensor Ints(std::vector<int64_t> shape, int64_t lo, int64_t hi) {
    Tensor t(DT_INT64, TensorShape::Build(shape).value());
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<int64_t>()[i] = Int(lo, hi);
    return t;
  }
  Tensor Ints32(std::vector<int64_t> shape, int64_t lo, int64_t hi) {
    Tensor t(DT_INT32, TensorShape::Build(shape).value());
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.data<int32_t>()[i] = static_cast<int32_t>(Int(lo, hi));
    }
    return t;
  }
  Tensor Floats(std::vector<int64_t> shape) {
    Tensor t(DT_FLOAT, TensorShape::Build(shape).value());
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.data<float>()[i] = static_cast<float>(Int(-4, 4));
    }
    return t;
  }
  // A small shape of rank 0..2 (mostly the expected rank).
  std::vector<int64_t> Shape(int rank) {
    if (Int(0, 5) == 0) rank = static_cast<int>(Int(0, 2));
    std::vector<int64_t> s;
    for (int i = 0; i < rank; ++i) s.push_back(Int(0, 4));
    return s;
  }

 private:
  std::mt19937 gen_;
};

void ExpectHandled(const absl::Status& s) {
  INFO(s.ToString());
  CHECK((s.ok() || s.code() == absl::StatusCode::kInvalidArgument ||
         s.code() == absl::StatusCode::kInternal ||
         s.code() == absl::StatusCode::kUnimplemented));
}

TEST_CASE("Sparse kernels turn random malformed inputs into errors",
          "[sparse]") {
  Random r(17);
  const NodeDef to_dense = TestNodeBuilder("d", "SparseToDense", 4)
                               .Attr("T", DT_FLOAT)
                               .Attr("Tindices", DT_INT64)
                               .Build();
  const NodeDef matmul = TestNodeBuilder("m", "SparseTensorDenseMatMul", 4)
                             .Attr("T", DT_FLOAT)
                             .Build();
  const NodeDef reshape = TestNodeBuilder("r", "SparseReshape", 3).Build();
  const NodeDef fill =
      TestNodeBuilder("f", "SparseFillEmptyRows", 4).Attr("T", DT_FLOAT).Build();
  const NodeDef segment = TestNodeBuilder("s", "SparseSegmentMean", 3)
                              .Attr("T", DT_FLOAT)
                              .Attr("Tidx", DT_INT64)
                              .Attr("Tsegmentids", DT_INT64)
                              .Build();
  const NodeDef segment_grad = TestNodeBuilder("g", "SparseSegmentSqrtNGradV2", 4)
                                   .Attr("T", DT_FLOAT)
                                   .Attr("Tidx", DT_INT64)
                                   .Attr("Tsegmentids", DT_INT64)
                                   .Build();
  const NodeDef slice =
      TestNodeBuilder("l", "SparseSlice", 5).Attr("T", DT_FLOAT).Build();
  const NodeDef add = TestNodeBuilder("a", "SparseAdd", 7)
                          .Attr("T", DT_FLOAT)
                          .Attr("Treal", DT_FLOAT)
                          .Build();
  const NodeDef reduce =
      TestNodeBuilder("e", "SparseReduceSum", 4).Attr("T", DT_FLOAT).Build();
  const NodeDef dense_add = TestNodeBuilder("t", "SparseTensorDenseAdd", 4)
                                .Attr("T", DT_FLOAT)
                                .Attr("Tindices", DT_INT64)
                                .Build();
  NodeDef ragged = TestNodeBuilder("g", "RaggedTensorToTensor", 5)
                       .Attr("T", DT_FLOAT)
                       .Attr("Tindex", DT_INT64)
                       .Attr("Tshape", DT_INT64)
                       .Attr("num_row_partition_tensors", 2)
                       .Build();
  auto* types = (*ragged.mutable_attr())["row_partition_types"].mutable_list();
  types->add_s("FIRST_DIM_SIZE");
  types->add_s("VALUE_ROWIDS");
  const NodeDef ragged_range = TestNodeBuilder("q", "RaggedRange", 3)
                                   .Attr("T", DT_INT64)
                                   .Attr("Tsplits", DT_INT64)
                                   .Build();

  for (int iter = 0; iter < 300; ++iter) {
    INFO("iteration " << iter);
    const int64_t n = r.Int(0, 4);
    const int64_t rank = r.Int(1, 3);
    const Tensor idx = r.Ints({n, rank}, -2, 5);
    const Tensor vals = r.Floats({r.Int(0, 5) == 0 ? n + 1 : n});
    const Tensor dims = r.Ints({rank}, -1, 4);
    ExpectHandled(RunKernel(to_dense, {idx, dims, vals,
                                       Tensor::Scalar<float>(0)})
                      .status());
    ExpectHandled(RunKernel(matmul, {r.Ints({n, 2}, -1, 4), vals,
                                     r.Ints({2}, -1, 4),
                                     r.Floats(r.Shape(2))})
                      .status());
    ExpectHandled(RunKernel(reshape, {idx, dims, r.Ints({r.Int(0, 3)}, -2, 6)})
                      .status());
    ExpectHandled(RunKernel(fill, {idx, vals, dims, Tensor::Scalar<float>(1)})
                      .status());
    ExpectHandled(RunKernel(segment, {r.Floats(r.Shape(2)), r.Ints({n}, -1, 4),
                                      r.Ints({n}, -1, 4)})
                      .status());
    ExpectHandled(RunKernel(segment_grad,
                            {r.Floats(r.Shape(2)), r.Ints({n}, -1, 4),
                             r.Ints({n}, -1, 4),
                             Tensor::Scalar<int32_t>(
                                 static_cast<int32_t>(r.Int(-1, 5)))})
                      .status());
    ExpectHandled(RunKernel(slice, {idx, vals, dims, r.Ints({rank}, -2, 4),
                                    r.Ints({rank}, -1, 4)})
                      .status());
    ExpectHandled(RunKernel(add, {idx, vals, dims, r.Ints({n, rank}, -2, 5),
                                  vals, dims, Tensor::Scalar<float>(0.5f)})
                      .status());
    ExpectHandled(RunKernel(reduce, {idx, vals, dims,
                                     r.Ints32({r.Int(0, 2)}, -3, 3)})
                      .status());
    ExpectHandled(RunKernel(dense_add, {idx, vals, dims, r.Floats(r.Shape(2))})
                      .status());
    ExpectHandled(RunKernel(ragged, {r.Ints({r.Int(0, 2)}, -1, 4),
                                     r.Floats({r.Int(0, 5)}),
                                     Tensor::Scalar<float>(0),
                                     Tensor::Scalar<int64_t>(r.Int(-1, 4)),
                                     r.Ints({r.Int(0, 5)}, -1, 4)})
                      .status());
    ExpectHandled(RunKernel(ragged_range, {r.Ints({r.Int(0, 2)}, -5, 5),
                                           r.Ints({r.Int(0, 2)}, -5, 5),
                                           r.Ints({r.Int(0, 2)}, -2, 2)})
                      .status());
  }
}

}  // namespace
}  // namespace dfx

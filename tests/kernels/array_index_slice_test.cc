// StridedSlice, StridedSliceGrad and Slice kernels. StridedSlice is checked
// against an independent reading of Python's subscript rules (what x[...]
// means in NumPy), encoded into begin/end/strides and masks as TensorFlow's
// Python front end does.
#include <complex>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/array_index_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::Dims;
using testing::I32;
using testing::I64;
using testing::Iota;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Unravel;
using testing::Values;

// One entry of a Python subscript: a slice start:stop:step, an integer, a
// newaxis (None) or an ellipsis (...).
struct Index {
  enum Kind { kSlice, kInt, kNewAxis, kEllipsis };
  Kind kind = kSlice;
  std::optional<int64_t> start, stop, step;
  int64_t i = 0;
};
Index Sl(std::optional<int64_t> start = std::nullopt,
         std::optional<int64_t> stop = std::nullopt,
         std::optional<int64_t> step = std::nullopt) {
  Index x;
  x.start = start;
  x.stop = stop;
  x.step = step;
  return x;
}
Index At(int64_t i) {
  Index x;
  x.kind = Index::kInt;
  x.i = i;
  return x;
}
Index NewAxis() {
  Index x;
  x.kind = Index::kNewAxis;
  return x;
}
Index Ellipsis() {
  Index x;
  x.kind = Index::kEllipsis;
  return x;
}

// begin/end/strides and masks as tf.Tensor.__getitem__ writes them.
struct Encoded {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
};

Encoded Encode(const std::vector<Index>& spec) {
  Encoded e;
  for (size_t k = 0; k < spec.size(); ++k) {
    const Index& x = spec[k];
    const int64_t bit = int64_t{1} << k;
    switch (x.kind) {
      case Index::kSlice:
        e.begin.push_back(x.start.value_or(0));
        e.end.push_back(x.stop.value_or(0));
        e.strides.push_back(x.step.value_or(1));
        if (!x.start) e.begin_mask |= bit;
        if (!x.stop) e.end_mask |= bit;
        break;
      case Index::kInt:
        e.begin.push_back(x.i);
        e.end.push_back(x.i + 1);
        e.strides.push_back(1);
        e.shrink_axis_mask |= bit;
        break;
      case Index::kNewAxis:
        e.begin.push_back(0);
        e.end.push_back(0);
        e.strides.push_back(1);
        e.new_axis_mask |= bit;
        break;
      case Index::kEllipsis:
        e.begin.push_back(0);
        e.end.push_back(0);
        e.strides.push_back(1);
        e.ellipsis_mask |= bit;
        break;
    }
  }
  return e;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Python's slice.indices(n) and the length of the result.
void PyIndices(const Index& x, int64_t n, int64_t* start, int64_t* step,
               int64_t* count) {
  *step = x.step.value_or(1);
  const int64_t lower = *step > 0 ? 0 : -1;
  const int64_t upper = *step > 0 ? n : n - 1;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t w = *v < 0 ? *v + n : *v;
    return w < lower ? lower : (w > upper ? upper : w);
  };
  *start = clamp(x.start, *step > 0 ? lower : upper);
  const int64_t stop = clamp(x.stop, *step > 0 ? upper : lower);
  if (*step > 0) {
    *count = stop > *start ? CeilDiv(stop - *start, *step) : 0;
  } else {
    *count = *start > stop ? CeilDiv(*start - stop, -*step) : 0;
  }
}

// What x[spec] selects: the output dims and, per output element, the flat
// input index. False when the subscript is invalid for `in_dims`.
bool Reference(const std::vector<int64_t>& in_dims,
               const std::vector<Index>& spec, std::vector<int64_t>* out_dims,
               std::vector<int64_t>* source) {
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  int64_t indexed = 0;
  bool has_ellipsis = false;
  for (const Index& x : spec) {
    if (x.kind == Index::kSlice || x.kind == Index::kInt) ++indexed;
    if (x.kind == Index::kEllipsis) has_ellipsis = true;
  }
  if (indexed > rank) return false;
  std::vector<Index> full;
  for (const Index& x : spec) {
    if (x.kind == Index::kEllipsis) {
      for (int64_t k = 0; k < rank - indexed; ++k) full.push_back(Sl());
    } else {
      full.push_back(x);
    }
  }
  if (!has_ellipsis) {
    for (int64_t k = 0; k < rank - indexed; ++k) full.push_back(Sl());
  }
  // Per input dim: first index and step; per output dim: which input dim.
  std::vector<int64_t> first(rank), step(rank, 0);
  std::vector<int64_t> out_of;  // input dim of each output dim, -1 new axis
  out_dims->clear();
  int64_t d = 0;
  for (const Index& x : full) {
    if (x.kind == Index::kNewAxis) {
      out_dims->push_back(1);
      out_of.push_back(-1);
      continue;
    }
    if (x.kind == Index::kInt) {
      const int64_t i = x.i < 0 ? x.i + in_dims[d] : x.i;
      if (i < 0 || i >= in_dims[d]) return false;
      first[d] = i;
    } else {
      int64_t count = 0;
      PyIndices(x, in_dims[d], &first[d], &step[d], &count);
      out_dims->push_back(count);
      out_of.push_back(d);
    }
    ++d;
  }
  source->clear();
  const int64_t n = testing::NumElements(*out_dims);
  for (int64_t flat = 0; flat < n; ++flat) {
    const std::vector<int64_t> o = Unravel(flat, *out_dims);
    std::vector<int64_t> in = first;
    for (size_t k = 0; k < o.size(); ++k) {
      if (out_of[k] >= 0) in[out_of[k]] += o[k] * step[out_of[k]];
    }
    source->push_back(testing::Ravel(in, in_dims));
  }
  return true;
}

NodeDef StridedSliceNode(const Encoded& e, DataType t, DataType index,
                         const char* op = "StridedSlice", int inputs = 4) {
  return TestNodeBuilder("ss", op, inputs)
      .Attr("T", t)
      .Attr("Index", index)
      .Attr("begin_mask", e.begin_mask)
      .Attr("end_mask", e.end_mask)
      .Attr("ellipsis_mask", e.ellipsis_mask)
      .Attr("new_axis_mask", e.new_axis_mask)
      .Attr("shrink_axis_mask", e.shrink_axis_mask)
      .Build();
}

Tensor IndexTensor(const std::vector<int64_t>& v, DataType index) {
  if (index == DT_INT16) return testing::Ints<int16_t>(v);
  if (index == DT_INT32) return I32(v);
  return I64(v);
}

absl::StatusOr<std::vector<Tensor>> RunStridedSlice(
    const Tensor& x, const std::vector<Index>& spec,
    DataType index = DT_INT32) {
  const Encoded e = Encode(spec);
  return RunKernel(StridedSliceNode(e, x.dtype(), index),
                   {x, IndexTensor(e.begin, index), IndexTensor(e.end, index),
                    IndexTensor(e.strides, index)});
}

// Runs x[spec] on an iota float tensor and compares with Reference.
void CheckAgainstReference(const std::vector<int64_t>& dims,
                           const std::vector<Index>& spec,
                           DataType index = DT_INT32) {
  const Tensor x = Iota<float>(dims);
  std::vector<int64_t> want_dims, source;
  const bool valid = Reference(dims, spec, &want_dims, &source);
  auto out = RunStridedSlice(x, spec, index);
  if (!valid) {
    REQUIRE_THAT(out.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    return;
  }
  REQUIRE_OK(out);
  REQUIRE(Dims((*out)[0]) == want_dims);
  const std::vector<float> got = Values<float>((*out)[0]);
  for (size_t k = 0; k < source.size(); ++k) {
    INFO("element " << k);
    REQUIRE(got[k] == static_cast<float>(source[k]));
  }
}

TEST_CASE("StridedSlice does what Python subscripts do") {
  const std::vector<int64_t> dims = {4, 5, 6};
  struct Case {
    const char* text;
    std::vector<Index> spec;
  };
  const std::vector<Case> cases = {
      {"x[1]", {At(1)}},
      {"x[-1]", {At(-1)}},
      {"x[1:3]", {Sl(1, 3)}},
      {"x[::-1]", {Sl(std::nullopt, std::nullopt, -1)}},
      {"x[-3:-1:2]", {Sl(-3, -1, 2)}},
      {"x[..., 1:3]", {Ellipsis(), Sl(1, 3)}},
      {"x[:, None]", {Sl(), NewAxis()}},
      {"x[None]", {NewAxis()}},
      {"x[..., None]", {Ellipsis(), NewAxis()}},
      {"x[1, ..., 2]", {At(1), Ellipsis(), At(2)}},
      {"x[:, ::-2, 1]", {Sl(), Sl(std::nullopt, std::nullopt, -2), At(1)}},
      {"x[None, ..., None, 0]", {NewAxis(), Ellipsis(), NewAxis(), At(0)}},
      {"x[10:]", {Sl(10)}},
      {"x[-100:100]", {Sl(-100, 100)}},
      {"x[3:1]", {Sl(3, 1)}},
      {"x[3:1:-1, 4::-3]", {Sl(3, 1, -1), Sl(4, std::nullopt, -3)}},
      {"x[...]", {Ellipsis()}},
      {"x[:, :, :]", {Sl(), Sl(), Sl()}},
      {"x[1:2, 2, -1]", {Sl(1, 2), At(2), At(-1)}},
      {"x[..., ::-1, :]",
       {Ellipsis(), Sl(std::nullopt, std::nullopt, -1), Sl()}},
  };
  for (const Case& c : cases) {
    for (DataType index : {DT_INT16, DT_INT32, DT_INT64}) {
      INFO(c.text << " with Index " << DataTypeString(index));
      CheckAgainstReference(dims, c.spec, index);
    }
  }
}

TEST_CASE("StridedSlice matches the reference on random subscripts") {
  std::mt19937 rng(7);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % (hi - lo + 1));
  };
  auto maybe = [&](int64_t lo, int64_t hi) -> std::optional<int64_t> {
    if (rng() % 3 == 0) return std::nullopt;
    return pick(lo, hi);
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const int rank = static_cast<int>(pick(0, 4));
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = pick(0, 5);
    const int len = static_cast<int>(pick(0, rank + 2));
    std::vector<Index> spec;
    bool ellipsis = false;
    for (int k = 0; k < len; ++k) {
      const int kind = static_cast<int>(rng() % 8);
      if (kind == 0) {
        spec.push_back(NewAxis());
      } else if (kind == 1 && !ellipsis) {
        spec.push_back(Ellipsis());
        ellipsis = true;
      } else if (kind == 2) {
        spec.push_back(At(pick(-6, 6)));
      } else {
        std::optional<int64_t> step = maybe(-3, 3);
        if (step && *step == 0) step = 1;
        spec.push_back(Sl(maybe(-7, 7), maybe(-7, 7), step));
      }
    }
    INFO("trial " << trial);
    CheckAgainstReference(dims, spec, trial % 2 ? DT_INT64 : DT_INT32);
  }
}

TEST_CASE("StridedSlice moves every dtype's bytes") {
  const std::vector<Index> rev = {Sl(), Sl(std::nullopt, std::nullopt, -2)};
  {
    auto out = RunStridedSlice(testing::IotaStrings({2, 3}), rev);
    REQUIRE_OK(out);
    REQUIRE(Values<std::string>((*out)[0]) ==
            std::vector<std::string>{"s2", "s0", "s5", "s3"});
  }
  {
    auto out = RunStridedSlice(Iota<std::complex<double>>({2, 3}), rev);
    REQUIRE_OK(out);
    REQUIRE(Values<std::complex<double>>((*out)[0]) ==
            std::vector<std::complex<double>>{2, 0, 5, 3});
  }
  {
    auto out = RunStridedSlice(Iota<Eigen::half>({2, 3}), rev);
    REQUIRE_OK(out);
    const auto v = Values<Eigen::half>((*out)[0]);
    REQUIRE(static_cast<float>(v[0]) == 2.f);
    REQUIRE(static_cast<float>(v[3]) == 3.f);
  }
  {
    const Tensor b = Tensor::FromVector<bool>(
        {true, false, false, true, true, false}, TensorShape({2, 3}));
    auto out = RunStridedSlice(b, rev);
    REQUIRE_OK(out);
    REQUIRE(Values<bool>((*out)[0]) ==
            std::vector<bool>{false, true, false, true});
  }
}

TEST_CASE("StridedSlice of whole rows shares the input buffer") {
  const Tensor x = Iota<float>({6, 4});
  auto rows = RunStridedSlice(x, {Sl(2, 5)});
  REQUIRE_OK(rows);
  REQUIRE((*rows)[0].SharesBufferWith(x));
  REQUIRE(Values<float>((*rows)[0]).front() == 8.f);
  auto all = RunStridedSlice(x, {Ellipsis(), NewAxis()});
  REQUIRE_OK(all);
  REQUIRE((*all)[0].SharesBufferWith(x));
  REQUIRE(Dims((*all)[0]) == std::vector<int64_t>{6, 4, 1});
}

TEST_CASE("StridedSlice of a large tensor matches the reference") {
  // Above the parallel threshold: several threads write disjoint ranges.
  const std::vector<int64_t> dims = {301, 403};
  CheckAgainstReference(dims, {Sl(1, -1), Sl(std::nullopt, std::nullopt, -2)});
  CheckAgainstReference(dims, {Sl(std::nullopt, std::nullopt, -1)});
  CheckAgainstReference(dims, {Sl(), Sl(5, 400)});
}

TEST_CASE("StridedSlice rejects bad subscripts with TensorFlow's errors") {
  const Tensor x = Iota<float>({2, 3});
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  auto run = [&](const Encoded& e) {
    return RunKernel(StridedSliceNode(e, DT_FLOAT, DT_INT32),
                     {x, I32(e.begin), I32(e.end), I32(e.strides)})
        .status();
  };
  Encoded e;
  e.begin = {0};
  e.end = {1};
  e.strides = {0};
  REQUIRE_THAT(run(e), StatusIs(kInvalid, "strides[0] must be non-zero"));
  e.strides = {1};
  e.ellipsis_mask = 3;
  e.begin = e.end = e.strides = {0, 0};
  REQUIRE_THAT(run(e), StatusIs(kInvalid, "Multiple ellipses"));
  e = Encoded();
  e.begin = {0, 0, 0};
  e.end = {1, 1, 1};
  e.strides = {1, 1, 1};
  REQUIRE_THAT(run(e), StatusIs(kInvalid,
                                "Index out of range using input "
                                "dim 2"));
  e = Encoded();
  e.begin = {5};
  e.end = {6};
  e.strides = {1};
  e.shrink_axis_mask = 1;
  REQUIRE_THAT(run(e), StatusIs(kInvalid,
                                "slice index 5 of dimension 0 out "
                                "of bounds"));
  e.begin = {1};
  e.end = {0};
  e.strides = {-1};
  REQUIRE_THAT(run(e), StatusIs(kInvalid, "only stride 1 allowed"));
  auto mismatch = RunKernel(StridedSliceNode(Encoded(), DT_FLOAT, DT_INT32),
                            {x, I32({0}), I32({1, 1}), I32({1, 1})});
  REQUIRE_THAT(mismatch.status(),
               StatusIs(kInvalid,
                        "1D equal size tensors, but got shapes [1], "
                        "[2], and [2]"));
  const std::vector<int64_t> many(32, 0), ones(32, 1);
  auto too_long = RunKernel(StridedSliceNode(Encoded(), DT_FLOAT, DT_INT32),
                            {x, I32(many), I32(ones), I32(ones)});
  REQUIRE_THAT(too_long.status(), StatusIs(kInvalid));
}

TEST_CASE("StridedSliceGrad scatters dy into zeros where the slice read") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = rng() % 5;
    std::vector<Index> spec;
    for (int k = 0; k < rank; ++k) {
      const int64_t step = (rng() % 2 ? 1 : -1) * (1 + rng() % 2);
      spec.push_back(Sl(static_cast<int64_t>(rng() % 7) - 3,
                        static_cast<int64_t>(rng() % 7) - 3, step));
    }
    if (rng() % 2) spec.insert(spec.begin(), NewAxis());
    std::vector<int64_t> out_dims, source;
    REQUIRE(Reference(dims, spec, &out_dims, &source));
    const Encoded e = Encode(spec);
    const DataType index = trial % 2 ? DT_INT64 : DT_INT32;
    std::vector<double> dy_values(source.size());
    for (size_t k = 0; k < dy_values.size(); ++k) dy_values[k] = 1.0 + k;
    const Tensor dy =
        Tensor::FromVector<double>(dy_values, *TensorShape::Build(out_dims));
    auto out = RunKernel(
        StridedSliceNode(e, DT_DOUBLE, index, "StridedSliceGrad", 5),
        {IndexTensor(dims, index), IndexTensor(e.begin, index),
         IndexTensor(e.end, index), IndexTensor(e.strides, index), dy});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    REQUIRE(Dims((*out)[0]) == dims);
    std::vector<double> want(testing::NumElements(dims), 0.0);
    for (size_t k = 0; k < source.size(); ++k) want[source[k]] = dy_values[k];
    REQUIRE(Values<double>((*out)[0]) == want);
  }
}

TEST_CASE("StridedSliceGrad checks dy's shape and moves strings") {
  Encoded e;
  e.begin = {1};
  e.end = {2};
  e.strides = {1};
  e.shrink_axis_mask = 1;
  auto bad =
      RunKernel(StridedSliceNode(e, DT_FLOAT, DT_INT32, "StridedSliceGrad", 5),
                {I32({2, 3}), I32(e.begin), I32(e.end), I32(e.strides),
                 Iota<float>({2, 3})});
  REQUIRE_THAT(bad.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      "shape of dy was [2,3] instead of [3]"));
  auto str =
      RunKernel(StridedSliceNode(e, DT_STRING, DT_INT32, "StridedSliceGrad", 5),
                {I32({2, 2}), I32(e.begin), I32(e.end), I32(e.strides),
                 testing::IotaStrings({2})});
  REQUIRE_OK(str);
  REQUIRE(Values<std::string>((*str)[0]) ==
          std::vector<std::string>{"", "", "s0", "s1"});
}

NodeDef SliceNode(DataType t, DataType index = DT_INT32) {
  return TestNodeBuilder("slice", "Slice", 3)
      .Attr("T", t)
      .Attr("Index", index)
      .Build();
}

TEST_CASE("Slice matches an explicit loop and accepts size -1") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    const int rank = static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank), begin(rank), size(rank);
    std::vector<int64_t> want_dims(rank);
    for (int d = 0; d < rank; ++d) {
      dims[d] = rng() % 5;
      begin[d] = dims[d] == 0 ? 0 : rng() % (dims[d] + 1);
      const int64_t room = dims[d] - begin[d];
      size[d] = rng() % 4 == 0 ? -1 : static_cast<int64_t>(rng() % (room + 1));
      want_dims[d] = size[d] == -1 ? room : size[d];
    }
    const Tensor x = Iota<int64_t>(dims);
    const DataType index = trial % 2 ? DT_INT64 : DT_INT32;
    auto out =
        RunKernel(SliceNode(DT_INT64, index),
                  {x, IndexTensor(begin, index), IndexTensor(size, index)});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    REQUIRE(Dims((*out)[0]) == want_dims);
    const std::vector<int64_t> got = Values<int64_t>((*out)[0]);
    for (size_t k = 0; k < got.size(); ++k) {
      std::vector<int64_t> idx = Unravel(static_cast<int64_t>(k), want_dims);
      for (int d = 0; d < rank; ++d) idx[d] += begin[d];
      REQUIRE(got[k] == testing::Ravel(idx, dims));
    }
  }
}

TEST_CASE("Slice outputs views for whole rows and the input when whole") {
  const Tensor x = Iota<float>({5, 3});
  auto rows = RunKernel(SliceNode(DT_FLOAT), {x, I32({1, 0}), I32({2, -1})});
  REQUIRE_OK(rows);
  REQUIRE((*rows)[0].SharesBufferWith(x));
  REQUIRE(Values<float>((*rows)[0]) == std::vector<float>{3, 4, 5, 6, 7, 8});
  auto whole = RunKernel(SliceNode(DT_FLOAT), {x, I32({0, 0}), I32({-1, 3})});
  REQUIRE_OK(whole);
  REQUIRE((*whole)[0].SharesBufferWith(x));
}

TEST_CASE("Slice rejects out-of-range begin and size") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  auto run = [&](std::vector<int64_t> b, std::vector<int64_t> s) {
    return RunKernel(SliceNode(DT_FLOAT), {x, I32(b), I32(s)}).status();
  };
  REQUIRE_THAT(run({0, -1}, {1, 1}),
               StatusIs(kInvalid, "Expected begin[1] in [0, 3], but got -1"));
  REQUIRE_THAT(run({0, 1}, {1, 3}),
               StatusIs(kInvalid, "Expected size[1] in [0, 2], but got 3"));
  REQUIRE_THAT(run({0, 4}, {1, -1}), StatusIs(kInvalid, "begin[1]"));
  REQUIRE_THAT(run({0}, {1}), StatusIs(kInvalid, "1-D tensors of size 2"));
  auto empty = RunKernel(SliceNode(DT_FLOAT),
                         {Iota<float>({0, 3}), I32({1, 0}), I32({0, 1})});
  REQUIRE_THAT(empty.status(),
               StatusIs(kInvalid, "when input.dim_size(0) == 0"));
}

}  // namespace
}  // namespace dfx

// Pad, PadV2, MirrorPad and MirrorPadGrad kernels, against explicit loops.
#include <complex>
#include <cstdint>
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
using testing::Iota;
using testing::Paddings;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Unravel;
using testing::Values;

using Pads = std::vector<std::pair<int64_t, int64_t>>;

// The input index output index `o` reads in `mode`, or -1 for the constant.
int64_t SourceIndex(const std::string& mode, int64_t o, int64_t before,
                    int64_t n) {
  const int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == "CONSTANT") return -1;
  const int64_t offset = mode == "REFLECT" ? 1 : 0;
  return i < 0 ? -i - 1 + offset : 2 * n - 1 - offset - i;
}

// Pads `x` (float, iota) by explicit loops; -1 marks constant padding.
std::vector<float> NaivePad(const std::vector<int64_t>& dims, const Pads& pads,
                            const std::string& mode, float constant,
                            std::vector<int64_t>* out_dims) {
  out_dims->clear();
  for (size_t d = 0; d < dims.size(); ++d) {
    out_dims->push_back(dims[d] + pads[d].first + pads[d].second);
  }
  std::vector<float> out(testing::NumElements(*out_dims));
  for (size_t k = 0; k < out.size(); ++k) {
    std::vector<int64_t> idx = Unravel(static_cast<int64_t>(k), *out_dims);
    bool pad = false;
    for (size_t d = 0; d < dims.size(); ++d) {
      idx[d] = SourceIndex(mode, idx[d], pads[d].first, dims[d]);
      pad |= idx[d] < 0;
    }
    out[k] = pad ? constant : static_cast<float>(testing::Ravel(idx, dims));
  }
  return out;
}

NodeDef PadNode(const std::string& op, DataType t, DataType tpad = DT_INT32,
                const char* mode = nullptr) {
  TestNodeBuilder b("pad", op, op == "PadV2" ? 3 : 2);
  b.Attr("T", t).Attr("Tpaddings", tpad);
  if (mode != nullptr) b.Attr("mode", mode);
  return b.Build();
}

// Random shapes with padding on random dims (sometimes none).
void RandomCase(std::mt19937& rng, const std::string& mode,
                std::vector<int64_t>* dims, Pads* pads) {
  const int rank = static_cast<int>(rng() % 5);
  dims->assign(rank, 0);
  pads->assign(rank, {0, 0});
  for (int d = 0; d < rank; ++d) {
    (*dims)[d] = rng() % 5;
    if (mode != "CONSTANT" && (*dims)[d] == 0) (*dims)[d] = 1;
    const int64_t limit = mode == "CONSTANT"  ? 4
                          : mode == "REFLECT" ? (*dims)[d] - 1
                                              : (*dims)[d];
    if (limit > 0 && rng() % 3 != 0) {
      (*pads)[d] = {static_cast<int64_t>(rng() % (limit + 1)),
                    static_cast<int64_t>(rng() % (limit + 1))};
    }
  }
}

TEST_CASE("Pad and PadV2 match an explicit loop") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<int64_t> dims;
    Pads pads;
    RandomCase(rng, "CONSTANT", &dims, &pads);
    const bool v2 = trial % 2 == 1;
    const float constant = v2 ? -7.f : 0.f;
    std::vector<int64_t> want_dims;
    const std::vector<float> want =
        NaivePad(dims, pads, "CONSTANT", constant, &want_dims);
    const DataType tpad = trial % 3 == 0 ? DT_INT64 : DT_INT32;
    std::vector<Tensor> inputs = {
        Iota<float>(dims),
        tpad == DT_INT64 ? Paddings<int64_t>(pads) : Paddings<int32_t>(pads)};
    if (v2) inputs.push_back(Tensor::Scalar<float>(constant));
    auto out = RunKernel(PadNode(v2 ? "PadV2" : "Pad", DT_FLOAT, tpad), inputs);
    INFO("trial " << trial);
    REQUIRE_OK(out);
    REQUIRE(Dims((*out)[0]) == want_dims);
    REQUIRE(Values<float>((*out)[0]) == want);
  }
}

TEST_CASE("MirrorPad matches an explicit loop in both modes") {
  std::mt19937 rng(9);
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    for (int trial = 0; trial < 400; ++trial) {
      std::vector<int64_t> dims;
      Pads pads;
      RandomCase(rng, mode, &dims, &pads);
      std::vector<int64_t> want_dims;
      const std::vector<float> want = NaivePad(dims, pads, mode, 0, &want_dims);
      auto out = RunKernel(PadNode("MirrorPad", DT_FLOAT, DT_INT32, mode),
                           {Iota<float>(dims), Paddings(pads)});
      INFO(mode << " trial " << trial);
      REQUIRE_OK(out);
      REQUIRE(Dims((*out)[0]) == want_dims);
      REQUIRE(Values<float>((*out)[0]) == want);
    }
  }
}

TEST_CASE("Padding a large tensor matches an explicit loop") {
  // Above the parallel threshold, with rows split between threads.
  for (const char* mode : {"CONSTANT", "REFLECT", "SYMMETRIC"}) {
    const std::vector<int64_t> dims = {3, 70000};
    const Pads pads = {{1, 2}, {5, 9}};
    std::vector<int64_t> want_dims;
    const std::vector<float> want = NaivePad(dims, pads, mode, 0, &want_dims);
    const std::string m = mode;
    auto out = m == "CONSTANT"
                   ? RunKernel(PadNode("Pad", DT_FLOAT),
                               {Iota<float>(dims), Paddings(pads)})
                   : RunKernel(PadNode("MirrorPad", DT_FLOAT, DT_INT32, mode),
                               {Iota<float>(dims), Paddings(pads)});
    INFO(mode);
    REQUIRE_OK(out);
    REQUIRE(Values<float>((*out)[0]) == want);
  }
}

TEST_CASE("Pad moves strings, complex numbers and bools") {
  auto s = RunKernel(PadNode("PadV2", DT_STRING),
                     {testing::IotaStrings({2}), Paddings({{1, 1}}),
                      Tensor::Scalar<std::string>("x")});
  REQUIRE_OK(s);
  REQUIRE(Values<std::string>((*s)[0]) ==
          std::vector<std::string>{"x", "s0", "s1", "x"});
  auto c = RunKernel(PadNode("MirrorPad", DT_COMPLEX128, DT_INT32, "REFLECT"),
                     {Iota<std::complex<double>>({3}), Paddings({{2, 1}})});
  REQUIRE_OK(c);
  REQUIRE(Values<std::complex<double>>((*c)[0]) ==
          std::vector<std::complex<double>>{2, 1, 0, 1, 2, 1});
  auto b = RunKernel(PadNode("Pad", DT_BOOL),
                     {Tensor::FromVector<bool>({true}), Paddings({{1, 2}})});
  REQUIRE_OK(b);
  REQUIRE(Values<bool>((*b)[0]) ==
          std::vector<bool>{false, true, false, false});
}

TEST_CASE("Pad with no padding returns its input") {
  const Tensor x = Iota<float>({2, 3});
  auto out =
      RunKernel(PadNode("Pad", DT_FLOAT), {x, Paddings({{0, 0}, {0, 0}})});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].SharesBufferWith(x));
  auto scalar = RunKernel(
      PadNode("Pad", DT_FLOAT),
      {Tensor::Scalar<float>(4), Tensor(DT_INT32, TensorShape({0, 2}))});
  REQUIRE_OK(scalar);
  REQUIRE((*scalar)[0].scalar<float>() == 4.f);
}

TEST_CASE("Pad and MirrorPad reject bad paddings") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  auto pad = [&](const Tensor& p) {
    return RunKernel(PadNode("Pad", DT_FLOAT), {x, p}).status();
  };
  REQUIRE_THAT(pad(Paddings({{0, -1}, {0, 0}})),
               StatusIs(kInvalid, "Paddings must be non-negative: 0 -1"));
  REQUIRE_THAT(pad(Paddings({{0, 0}})),
               StatusIs(kInvalid,
                        "first dimension of paddings must be the "
                        "rank of inputs"));
  REQUIRE_THAT(pad(testing::I32({0, 0, 0, 0})),
               StatusIs(kInvalid, "paddings must be a matrix with 2 columns"));
  auto v2 = RunKernel(
      PadNode("PadV2", DT_FLOAT),
      {x, Paddings({{0, 0}, {0, 1}}), Tensor::FromVector<float>({1.f})});
  REQUIRE_THAT(v2.status(),
               StatusIs(kInvalid, "constant_values must be a scalar"));
  auto mirror = [&](const char* mode, const Pads& p) {
    return RunKernel(PadNode("MirrorPad", DT_FLOAT, DT_INT32, mode),
                     {x, Paddings(p)})
        .status();
  };
  REQUIRE_THAT(mirror("REFLECT", {{0, 0}, {0, 3}}),
               StatusIs(kInvalid,
                        "paddings must be less than the dimension "
                        "size: 0, 3 not less than 3"));
  REQUIRE_OK(mirror("SYMMETRIC", {{0, 0}, {3, 3}}));
  REQUIRE_THAT(mirror("SYMMETRIC", {{0, 0}, {4, 0}}),
               StatusIs(kInvalid, "no greater than the dimension size"));
  REQUIRE_THAT(mirror("SYMMETRIC", {{-1, 0}, {0, 0}}),
               StatusIs(kInvalid, "paddings must be non-negative"));
  // An empty dimension has nothing to reflect, even for zero padding.
  auto empty = RunKernel(PadNode("MirrorPad", DT_FLOAT, DT_INT32, "REFLECT"),
                         {Iota<float>({0, 3}), Paddings({{0, 0}, {1, 1}})});
  REQUIRE_THAT(empty.status(), StatusIs(kInvalid, "0, 0 not less than 0"));
}

// MirrorPadGrad by explicit loops: every padded position adds to the input
// position it was copied from.
template <typename T>
std::vector<T> NaiveMirrorPadGrad(const std::vector<int64_t>& dims,
                                  const Pads& pads, const std::string& mode,
                                  const std::vector<T>& grad,
                                  std::vector<int64_t>* out_dims) {
  out_dims->clear();
  for (size_t d = 0; d < dims.size(); ++d) {
    out_dims->push_back(dims[d] - pads[d].first - pads[d].second);
  }
  std::vector<T> out(testing::NumElements(*out_dims), T(0));
  for (size_t k = 0; k < grad.size(); ++k) {
    std::vector<int64_t> idx = Unravel(static_cast<int64_t>(k), dims);
    for (size_t d = 0; d < dims.size(); ++d) {
      idx[d] = SourceIndex(mode, idx[d], pads[d].first, (*out_dims)[d]);
    }
    out[testing::Ravel(idx, *out_dims)] += grad[k];
  }
  return out;
}

TEST_CASE("MirrorPadGrad sums what MirrorPad copied") {
  std::mt19937 rng(13);
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    for (int trial = 0; trial < 300; ++trial) {
      // Padding of the output shape; the gradient has the padded shape.
      std::vector<int64_t> small;
      Pads pads;
      RandomCase(rng, mode, &small, &pads);
      std::vector<int64_t> dims;
      for (size_t d = 0; d < small.size(); ++d) {
        dims.push_back(small[d] + pads[d].first + pads[d].second);
      }
      const Tensor grad = Iota<int64_t>(dims);
      std::vector<int64_t> want_dims;
      const std::vector<int64_t> want = NaiveMirrorPadGrad<int64_t>(
          dims, pads, mode, Values<int64_t>(grad), &want_dims);
      auto out = RunKernel(PadNode("MirrorPadGrad", DT_INT64, DT_INT64, mode),
                           {grad, Paddings<int64_t>(pads)});
      INFO(mode << " trial " << trial);
      REQUIRE_OK(out);
      REQUIRE(Dims((*out)[0]) == want_dims);
      REQUIRE(Values<int64_t>((*out)[0]) == want);
    }
  }
}

TEST_CASE("MirrorPadGrad works on half and large inputs, rejects bad pads") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  {
    const Tensor g = Tensor::FromVector<Eigen::half>(
        {Eigen::half(1), Eigen::half(1), Eigen::half(1), Eigen::half(1)});
    auto out =
        RunKernel(PadNode("MirrorPadGrad", DT_HALF, DT_INT32, "SYMMETRIC"),
                  {g, Paddings({{1, 0}})});
    REQUIRE_OK(out);
    const auto v = Values<Eigen::half>((*out)[0]);
    REQUIRE(static_cast<float>(v[0]) == 2.f);
    REQUIRE(static_cast<float>(v[2]) == 1.f);
  }
  {
    const std::vector<int64_t> dims = {2, 100000};
    const Pads pads = {{0, 0}, {3, 4}};
    const Tensor g = Iota<double>(dims);
    std::vector<int64_t> want_dims;
    const std::vector<double> want = NaiveMirrorPadGrad<double>(
        dims, pads, "REFLECT", Values<double>(g), &want_dims);
    auto out =
        RunKernel(PadNode("MirrorPadGrad", DT_DOUBLE, DT_INT32, "REFLECT"),
                  {g, Paddings(pads)});
    REQUIRE_OK(out);
    REQUIRE(Values<double>((*out)[0]) == want);
  }
  auto run = [&](const char* mode, int64_t n, const Pads& p) {
    return RunKernel(PadNode("MirrorPadGrad", DT_FLOAT, DT_INT32, mode),
                     {Iota<float>({n}), Paddings(p)})
        .status();
  };
  REQUIRE_THAT(run("REFLECT", 4, {{2, 2}}),
               StatusIs(kInvalid,
                        "Total paddings must be less than the input "
                        "dimension size: 4 was not less than 4"));
  REQUIRE_THAT(run("REFLECT", 6, {{2, 2}}),
               StatusIs(kInvalid, "less than the output dimension size"));
  REQUIRE_OK(run("SYMMETRIC", 6, {{2, 2}}));
  REQUIRE_THAT(run("SYMMETRIC", 3, {{-1, 0}}),
               StatusIs(kInvalid, "Paddings must be non-negative: -1, 0"));
}

}  // namespace
}  // namespace dfx

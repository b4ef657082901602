// Host tests of the GPU kernels: a kernel's arithmetic run on the host
// against the CPU kernels, needing no GPU (they run in every CUDA build;
// the [gpu] tests in gpu_kernels_test.cc check the launches themselves):
//  - the pooling kernels' per-element functions (gpu/kernels/
//    pool_gpu_element.cuh, what each CUDA thread of pool_gpu.cu computes):
//    NHWC and NCHW, float32, float64, float16 and bfloat16, every padding
//    and a stride past the window;
//  - Tile, Slice, StridedSlice and StridedSliceGrad (index_gpu.cc): the
//    CPU kernels' plan, SimplifiedStridedCopy, the kernel's walk
//    (MakeIndexCopyDims) and per-element offsets (IndexCopyOffsets) on
//    random shapes and subscripts;
//  - FusedBatchNormV3 and its gradient (batch_norm_gpu.cu's per-element and
//    per-channel functions, batch_norm_gpu_element.cuh, in the kernels'
//    order) in float32, float16 and bfloat16, NHWC and NCHW;
//  - the direct depthwise kernels (depthwise_gpu_element.cuh): forward,
//    input and filter gradients in four dtypes, NHWC and NCHW;
//  - the depthwise convolutions on cuDNN (conv_gpu.cc): DepthwiseConv2dNative
//  with a
//    [H, W, C, M] filter is the grouped Conv2D with groups = C over the
//    same filter bytes read as HWIO [H, W, 1, C * M] (output channel
//    c * M + m), which is what the GPU hands cuDNN.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "gpu/kernels/batch_norm_gpu_element.cuh"
#include "gpu/kernels/depthwise_gpu_element.cuh"
#include "gpu/kernels/index_gpu.h"
#include "gpu/kernels/pool_gpu_element.cuh"
#include "kernels/array/index_util.h"
#include "kernels/conv/conv_util.h"
#include "kernels/conv/pool_util.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"
#include "tests/gpu_session/cpu_session_util.h"

namespace dfx {
namespace {

using array_internal::IndexPlan;
using testing::OnCpu;
using testing::OnCpuOutputs;

AttrValue IntsAttr(std::vector<int64_t> values) {
  AttrValue v;
  v.mutable_list();
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}

double At(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_HALF:
      return static_cast<float>(t.data<Eigen::half>()[i]);
    default:
      return static_cast<float>(t.data<Eigen::bfloat16>()[i]);
  }
}

Tensor Random(DataType t, const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  Tensor out(t, shape);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const float v = u(gen);
    switch (t) {
      case DT_FLOAT:
        out.data<float>()[i] = v;
        break;
      case DT_DOUBLE:
        out.data<double>()[i] = v;
        break;
      case DT_HALF:
        out.data<Eigen::half>()[i] = Eigen::half(v);
        break;
      default:
        out.data<Eigen::bfloat16>()[i] = Eigen::bfloat16(v);
        break;
    }
  }
  return out;
}

// NHWC <-> NCHW on the host.
Tensor Transposed(const Tensor& t, bool to_nchw) {
  const int64_t n = t.dim_size(0);
  const int64_t h = to_nchw ? t.dim_size(1) : t.dim_size(2);
  const int64_t w = to_nchw ? t.dim_size(2) : t.dim_size(3);
  const int64_t c = to_nchw ? t.dim_size(3) : t.dim_size(1);
  Tensor out(t.dtype(),
             to_nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c}));
  const int64_t e = DataTypeSize(t.dtype());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k) {
          const int64_t a = ((i * h + y) * w + x) * c + k;
          const int64_t b = ((i * c + k) * h + y) * w + x;
          std::memcpy(
              static_cast<char*>(out.raw_data()) + (to_nchw ? b : a) * e,
              static_cast<const char*>(t.raw_data()) + (to_nchw ? a : b) * e,
              e);
        }
  return out;
}

// Every element of `out` from the kernel's element function: the forward
// pass (grad null) or the input gradient.
template <typename T>
void RunElements(const gpu::PoolShape& s, bool max, const Tensor& in,
                 const Tensor* grad, Tensor* out) {
  const T* x = static_cast<const T*>(in.raw_data());
  T* y = static_cast<T*>(out->raw_data());
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    y[i] = grad == nullptr ? gpu::pool_element::PoolOutput<T>(s, max, x, i)
                           : gpu::pool_element::PoolGradInput<T>(
                                 s, max, max ? x : nullptr,
                                 static_cast<const T*>(grad->raw_data()), i);
  }
}

void RunElementsOf(DataType t, const gpu::PoolShape& s, bool max,
                   const Tensor& in, const Tensor* grad, Tensor* out) {
  switch (t) {
    case DT_FLOAT:
      return RunElements<float>(s, max, in, grad, out);
    case DT_DOUBLE:
      return RunElements<double>(s, max, in, grad, out);
    case DT_HALF:
      return RunElements<__half>(s, max, in, grad, out);
    default:
      return RunElements<__nv_bfloat16>(s, max, in, grad, out);
  }
}

double MaxError(const Tensor& x, const Tensor& y) {
  REQUIRE(x.shape() == y.shape());
  double worst = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double a = At(x, i), b = At(y, i);
    worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
  }
  return worst;
}

TEST_CASE(
    "gpu pooling arithmetic on the host: MaxPool, AvgPool and their "
    "gradients, NHWC and NCHW, every float dtype, as the CPU kernels") {
  const struct {
    int64_t window, stride;
    const char* padding;
  } kCases[] = {{3, 2, "SAME"},
                {2, 2, "VALID"},
                {2, 3, "SAME"},
                {3, 1, "SAME"},
                {1, 1, "VALID"}};
  const TensorShape shape({2, 7, 8, 3});
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    // The CPU scales an average by 1/count, the kernel divides by count.
    const double tolerance = t == DT_HALF       ? 2e-3
                             : t == DT_BFLOAT16 ? 1.6e-2
                                                : 1e-6;
    const Tensor x = Random(t, shape, 1);
    for (const auto& c : kCases) {
      const std::map<std::string, AttrValue> attrs = {
          {"T",
           [t] {
             AttrValue v;
             v.set_type(t);
             return v;
           }()},
          {"ksize", IntsAttr({1, c.window, c.window, 1})},
          {"strides", IntsAttr({1, c.stride, c.stride, 1})},
          {"padding", [&c] {
             AttrValue v;
             v.set_s(c.padding);
             return v;
           }()}};
      conv_internal::PoolAttrs pool;
      pool.ksize = {1, c.window, c.window, 1};
      pool.strides = {1, c.stride, c.stride, 1};
      REQUIRE_OK(conv_internal::ParsePadding(c.padding, &pool.padding));
      conv_internal::PoolGeom g;
      REQUIRE_OK(conv_internal::MakePoolGeom(shape, pool, false, &g));
      for (const bool max : {true, false}) {
        for (const bool nchw : {false, true}) {
          INFO(DataTypeString(t) << (max ? " max" : " avg") << " window "
                                 << c.window << " stride " << c.stride << " "
                                 << c.padding << (nchw ? " NCHW" : " NHWC"));
          auto y = OnCpu(max ? "MaxPool" : "AvgPool", {x}, attrs);
          REQUIRE_OK(y);
          const gpu::PoolShape s{g.batch,       g.in_rows,     g.in_cols,
                                 g.depth,       g.out_rows,    g.out_cols,
                                 g.window_rows, g.window_cols, g.stride_rows,
                                 g.stride_cols, g.pad_top,     g.pad_left,
                                 nchw};
          const Tensor in = nchw ? Transposed(x, true) : x;
          Tensor out(t, nchw ? Transposed(*y, true).shape() : y->shape());
          RunElementsOf(t, s, max, in, nullptr, &out);
          CHECK(MaxError(nchw ? Transposed(out, false) : out, *y) <=
                (max ? 0 : tolerance));
          const Tensor dy = Random(t, y->shape(), 2);
          auto dx = max ? OnCpu("MaxPoolGrad", {x, *y, dy}, attrs)
                        : OnCpu("AvgPoolGrad",
                                {Tensor::FromVector<int32_t>({2, 7, 8, 3}), dy},
                                attrs);
          REQUIRE_OK(dx);
          const Tensor grad = nchw ? Transposed(dy, true) : dy;
          Tensor din(t, in.shape());
          RunElementsOf(t, s, max, in, &grad, &din);
          CHECK(MaxError(nchw ? Transposed(din, false) : din, *dx) <=
                tolerance);
        }
      }
    }
  }
}

// The GPU kernel's output for `plan`, computed on the host: a view or the
// strided copy element by element as the CUDA threads make it.
Tensor AsTheGpuWould(const Tensor& source, const IndexPlan& plan) {
  Tensor out(source.dtype(), plan.shape);
  const int64_t e = DataTypeSize(source.dtype());
  const char* src = static_cast<const char*>(source.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  if (plan.kind == IndexPlan::Kind::kForward) {
    std::memcpy(dst, src, source.TotalBytes());
    return out;
  }
  if (plan.kind == IndexPlan::Kind::kRows) {
    const int64_t row =
        source.dim_size(0) == 0 ? 0 : source.NumElements() / source.dim_size(0);
    std::memcpy(dst, src + plan.row_begin * row * e, out.TotalBytes());
    return out;
  }
  std::memset(dst, plan.zero_first ? 0 : 0x5a, out.TotalBytes());
  if (out.NumElements() == 0 || source.NumElements() == 0) return out;
  const array_internal::StridedCopySpec copy =
      array_internal::SimplifiedStridedCopy(plan.copy);
  gpu::IndexCopyDims p;
  int64_t n = 0;
  REQUIRE(gpu::MakeIndexCopyDims(static_cast<int>(copy.dims.size()),
                                 copy.dims.data(), copy.src_strides.data(),
                                 copy.dst_strides.data(), copy.src_offset,
                                 copy.dst_offset, &p, &n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t s, d;
    gpu::IndexCopyOffsets(p, i, &s, &d);
    REQUIRE(s >= 0);
    REQUIRE(s < source.NumElements());
    REQUIRE(d >= 0);
    REQUIRE(d < out.NumElements());
    std::memcpy(dst + d * e, src + s * e, e);
  }
  return out;
}

AttrValue Type(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
AttrValue Int(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}

TEST_CASE(
    "gpu index arithmetic on the host: Tile, Slice, StridedSlice and "
    "StridedSliceGrad give the CPU kernels' bytes") {
  std::mt19937 gen(11);
  auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(gen() % static_cast<unsigned>(hi - lo + 1));
  };
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    const int rank = pick(1, 4);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d)
      dims.push_back(pick(round % 7 == 0 ? 0 : 1, 4));
    Tensor x(DT_INT64, *TensorShape::Build(dims));
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<int64_t>()[i] = i + 1;
    const int op = round % 4;
    INFO("round " << round << " op " << op);
    std::vector<Tensor> inputs;
    std::map<std::string, AttrValue> attrs = {{"T", Type(DT_INT64)}};
    IndexPlan plan;
    absl::Status planned;
    std::string name;
    const Tensor* source = &x;
    Tensor dy;
    if (op == 0) {
      std::vector<int32_t> m;
      for (int d = 0; d < rank; ++d) m.push_back(pick(0, 3));
      name = "Tile";
      attrs["Tmultiples"] = Type(DT_INT32);
      inputs = {x, Tensor::FromVector<int32_t>(m)};
      planned = array_internal::PlanTile(x, inputs[1], &plan);
    } else if (op == 1) {
      std::vector<int32_t> begin, size;
      for (int d = 0; d < rank; ++d) {
        begin.push_back(pick(0, static_cast<int>(dims[d])));
        size.push_back(pick(-1, static_cast<int>(dims[d]) - begin.back()));
      }
      name = "Slice";
      attrs["Index"] = Type(DT_INT32);
      inputs = {x, Tensor::FromVector<int32_t>(begin),
                Tensor::FromVector<int32_t>(size)};
      planned = array_internal::PlanSlice(x, inputs[1], inputs[2], &plan);
    } else {
      std::vector<int32_t> begin, end, strides;
      const int n = pick(1, rank);
      for (int d = 0; d < n; ++d) {
        begin.push_back(pick(-5, 5));
        end.push_back(pick(-5, 5));
        int s = pick(-2, 2);
        strides.push_back(s == 0 ? 1 : s);
      }
      StridedSliceMasks masks;
      masks.begin_mask = pick(0, 15);
      masks.end_mask = pick(0, 15);
      masks.shrink_axis_mask = round % 3 == 0 ? pick(0, 3) : 0;
      masks.new_axis_mask = round % 5 == 0 ? pick(0, 3) : 0;
      attrs["Index"] = Type(DT_INT32);
      attrs["begin_mask"] = Int(masks.begin_mask);
      attrs["end_mask"] = Int(masks.end_mask);
      attrs["ellipsis_mask"] = Int(0);
      attrs["new_axis_mask"] = Int(masks.new_axis_mask);
      attrs["shrink_axis_mask"] = Int(masks.shrink_axis_mask);
      const Tensor b = Tensor::FromVector<int32_t>(begin);
      const Tensor e = Tensor::FromVector<int32_t>(end);
      const Tensor s = Tensor::FromVector<int32_t>(strides);
      if (op == 2) {
        name = "StridedSlice";
        inputs = {x, b, e, s};
        planned = array_internal::PlanStridedSlice(x, b, e, s, masks, &plan);
      } else {
        // The gradient of the same slice, dy shaped as its output.
        IndexPlan forward;
        if (!array_internal::PlanStridedSlice(x, b, e, s, masks, &forward)
                 .ok()) {
          continue;
        }
        dy = Tensor(DT_INT64, forward.shape);
        for (int64_t i = 0; i < dy.NumElements(); ++i) {
          dy.data<int64_t>()[i] = 100 + i;
        }
        name = "StridedSliceGrad";
        std::vector<int32_t> shape(dims.begin(), dims.end());
        inputs = {Tensor::FromVector<int32_t>(shape), b, e, s, dy};
        planned = array_internal::PlanStridedSliceGrad(inputs[0], b, e, s, dy,
                                                       masks, &plan);
        source = &dy;
      }
    }
    const absl::StatusOr<Tensor> cpu = OnCpu(name, inputs, attrs);
    INFO(name << " " << x.shape().DebugString() << ": "
              << (cpu.ok() ? std::string("ok") : cpu.status().ToString()));
    // One planning for both devices: the same verdict.
    REQUIRE(cpu.ok() == planned.ok());
    if (!cpu.ok()) {
      CHECK(std::string(cpu.status().message())
                .find(std::string(planned.message())) != std::string::npos);
      continue;
    }
    const Tensor gpu = AsTheGpuWould(*source, plan);
    REQUIRE(gpu.shape() == cpu->shape());
    CHECK(std::memcmp(gpu.raw_data(), cpu->raw_data(), gpu.TotalBytes()) == 0);
    ++compared;
  }
  CHECK(compared > 200);
}

TEST_CASE(
    "gpu depthwise layout: a depthwise convolution is the grouped "
    "Conv2D over the same filter bytes as [H, W, 1, C * M]") {
  const struct {
    TensorShape input, filter;  // filter [KH, KW, C, M]
    int64_t stride;
    const char* padding;
  } kCases[] = {
      {TensorShape({2, 9, 9, 3}), TensorShape({3, 3, 3, 1}), 1, "SAME"},
      {TensorShape({1, 10, 11, 4}), TensorShape({3, 3, 4, 2}), 2, "SAME"},
      {TensorShape({2, 8, 8, 6}), TensorShape({5, 5, 6, 3}), 2, "VALID"},
      {TensorShape({1, 7, 7, 2}), TensorShape({2, 2, 2, 3}), 3, "SAME"},
  };
  for (const auto& c : kCases) {
    INFO(c.input.DebugString() << " filter " << c.filter.DebugString());
    std::map<std::string, AttrValue> attrs;
    attrs["T"].set_type(DT_FLOAT);
    attrs["strides"] = IntsAttr({1, c.stride, c.stride, 1});
    attrs["padding"].set_s(c.padding);
    const Tensor x = Random(DT_FLOAT, c.input, 1);
    const Tensor w = Random(DT_FLOAT, c.filter, 2);
    auto depthwise = OnCpu("DepthwiseConv2dNative", {x, w}, attrs);
    REQUIRE_OK(depthwise);
    const int64_t channels = c.filter.dim_size(2) * c.filter.dim_size(3);
    auto as_hwio = w.Reshaped(
        TensorShape({c.filter.dim_size(0), c.filter.dim_size(1), 1, channels}));
    REQUIRE_OK(as_hwio);
    auto grouped = OnCpu("Conv2D", {x, *as_hwio}, attrs);
    REQUIRE_OK(grouped);
    REQUIRE(grouped->shape() == depthwise->shape());
    double worst = 0;
    for (int64_t i = 0; i < grouped->NumElements(); ++i) {
      const double a = grouped->data<float>()[i];
      const double b = depthwise->data<float>()[i];
      worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
    }
    CHECK(worst < 1e-5);
  }
}

// LaunchBatchNorm's and LaunchBatchNormGrad's passes on the host (each
// channel's sums in order rather than the kernels' tree).
template <typename T>
void BatchNormOnHost(const gpu::BnShape& s, const T* x, const float* scale,
                     const float* offset, const float* est_mean,
                     const float* est_var, float epsilon, float factor,
                     bool training, T* y, float* stats[4]) {
  namespace bn = gpu::bn_element;
  const double n = static_cast<double>(s.outer * s.inner);
  std::vector<double> sums(2 * s.channels);
  auto channel_sums = [&](bn::SumKind kind, const float* mean) {
    for (int64_t c = 0; c < s.channels; ++c) {
      double a = 0, b = 0;
      for (int64_t k = 0; k < s.outer * s.inner; ++k) {
        bn::AddTerm<T>(kind, x, nullptr, mean, c, bn::ChannelElement(s, c, k),
                       &a, &b);
      }
      sums[c] = a;
    }
  };
  if (training) {
    channel_sums(bn::SumKind::kX, nullptr);
    for (int64_t c = 0; c < s.channels; ++c) {
      bn::Mean(c, n, sums.data(), stats[2]);
    }
    channel_sums(bn::SumKind::kSquaredDeviation, stats[2]);
  }
  for (int64_t c = 0; c < s.channels; ++c) {
    bn::Stats(c, n, sums.data(), est_mean, est_var, factor, training, stats[0],
              stats[1], stats[2], stats[3]);
  }
  for (int64_t i = 0; i < s.outer * s.channels * s.inner; ++i) {
    y[i] = bn::Normalize(s, x, stats[2], stats[3], scale, offset, epsilon, i);
  }
}

template <typename T>
void BatchNormGradOnHost(const gpu::BnShape& s, const T* dy, const T* x,
                         const float* scale, const float* mean,
                         const float* var, float epsilon, bool training, T* dx,
                         float* scale_grad, float* offset_grad) {
  namespace bn = gpu::bn_element;
  std::vector<double> sums(2 * s.channels);
  for (int64_t c = 0; c < s.channels; ++c) {
    double a = 0, b = 0;
    for (int64_t k = 0; k < s.outer * s.inner; ++k) {
      bn::AddTerm(bn::SumKind::kGrad, x, dy, mean, c,
                  bn::ChannelElement(s, c, k), &a, &b);
    }
    sums[c] = a;
    sums[s.channels + c] = b;
  }
  for (int64_t c = 0; c < s.channels; ++c) {
    bn::GradStats(c, s.channels, sums.data(), var, epsilon, scale_grad,
                  offset_grad);
  }
  for (int64_t i = 0; i < s.outer * s.channels * s.inner; ++i) {
    dx[i] =
        bn::Grad(s, dy, x, scale, mean, var, epsilon, training, sums.data(), i);
  }
}

template <typename T>
void BatchNormCase(DataType t, bool nchw, bool training, float factor) {
  const TensorShape shape =
      nchw ? TensorShape({3, 4, 5, 6}) : TensorShape({3, 5, 6, 4});
  gpu::BnShape s;
  s.outer = nchw ? 3 : 3 * 5 * 6;
  s.channels = 4;
  s.inner = nchw ? 5 * 6 : 1;
  const Tensor x = Random(t, shape, 3);
  const Tensor scale = Random(DT_FLOAT, TensorShape({4}), 4);
  const Tensor offset = Random(DT_FLOAT, TensorShape({4}), 5);
  const Tensor mean = Random(DT_FLOAT, TensorShape({4}), 6);
  Tensor var = Random(DT_FLOAT, TensorShape({4}), 7);
  for (float& v : var.span<float>()) v = std::abs(v) + 0.5f;
  std::map<std::string, AttrValue> attrs;
  attrs["T"].set_type(t);
  attrs["U"].set_type(DT_FLOAT);
  attrs["epsilon"].set_f(1e-3f);
  attrs["exponential_avg_factor"].set_f(factor);
  attrs["data_format"].set_s(nchw ? "NCHW" : "NHWC");
  attrs["is_training"].set_b(training);
  auto cpu =
      OnCpuOutputs("FusedBatchNormV3", {x, scale, offset, mean, var}, attrs, 5);
  REQUIRE_OK(cpu);
  Tensor y(t, shape);
  std::vector<Tensor> stats;
  for (int k = 0; k < 4; ++k) stats.emplace_back(DT_FLOAT, TensorShape({4}));
  float* stat_ptrs[4] = {stats[0].data<float>(), stats[1].data<float>(),
                         stats[2].data<float>(), stats[3].data<float>()};
  BatchNormOnHost<T>(s, static_cast<const T*>(x.raw_data()),
                     scale.data<float>(), offset.data<float>(),
                     mean.data<float>(), var.data<float>(), 1e-3f, factor,
                     training, static_cast<T*>(y.raw_data()), stat_ptrs);
  const double tolerance = t == DT_HALF ? 4e-3 : t == DT_BFLOAT16 ? 3e-2 : 1e-5;
  CHECK(MaxError(y, (*cpu)[0]) <= tolerance);
  for (int k = 0; k < 4; ++k) {
    INFO("statistic " << k);
    CHECK(MaxError(stats[k], (*cpu)[k + 1]) <= 1e-5);
  }
  if (nchw && !training) return;  // the CPU's inference gradient: NHWC only
  attrs.erase("exponential_avg_factor");
  const Tensor dy = Random(t, shape, 8);
  auto cpu_grad = OnCpuOutputs(
      "FusedBatchNormGradV3",
      {dy, x, scale, (*cpu)[3], (*cpu)[4], Tensor(DT_FLOAT, TensorShape({1}))},
      attrs, 3);
  REQUIRE_OK(cpu_grad);
  Tensor dx(t, shape), dscale(DT_FLOAT, TensorShape({4})),
      doffset(DT_FLOAT, TensorShape({4}));
  BatchNormGradOnHost<T>(s, static_cast<const T*>(dy.raw_data()),
                         static_cast<const T*>(x.raw_data()),
                         scale.data<float>(), (*cpu)[3].data<float>(),
                         (*cpu)[4].data<float>(), 1e-3f, training,
                         static_cast<T*>(dx.raw_data()), dscale.data<float>(),
                         doffset.data<float>());
  CHECK(MaxError(dx, (*cpu_grad)[0]) <= tolerance);
  CHECK(MaxError(dscale, (*cpu_grad)[1]) <= 1e-4);
  CHECK(MaxError(doffset, (*cpu_grad)[2]) <= 1e-4);
}

TEST_CASE(
    "gpu batch-norm arithmetic on the host: FusedBatchNormV3 and its "
    "gradient, float32, float16 and bfloat16, NHWC and NCHW, as the "
    "CPU kernels") {
  for (const bool nchw : {false, true}) {
    for (const bool training : {true, false}) {
      for (const float factor : {1.0f, 0.25f}) {
        if (!training && factor != 1.0f) continue;
        INFO((nchw ? "NCHW" : "NHWC") << (training ? " training" : " inference")
                                      << " factor " << factor);
        {
          INFO("float");
          BatchNormCase<float>(DT_FLOAT, nchw, training, factor);
        }
        {
          INFO("half");
          BatchNormCase<__half>(DT_HALF, nchw, training, factor);
        }
        {
          INFO("bfloat16");
          BatchNormCase<__nv_bfloat16>(DT_BFLOAT16, nchw, training, factor);
        }
      }
    }
  }
}

// The direct depthwise kernels' three passes, every element through their
// element functions (the filter gradient's terms summed in order rather
// than the kernel's tree).
template <typename T>
void DepthwiseOnHost(const gpu::DepthwiseShape& s, const Tensor& x,
                     const Tensor& filter, const Tensor& dy, Tensor* y,
                     Tensor* dx, Tensor* dfilter) {
  namespace dw = gpu::depthwise_element;
  auto p = [](const Tensor& t) { return static_cast<const T*>(t.raw_data()); };
  auto q = [](Tensor* t) { return static_cast<T*>(t->raw_data()); };
  for (int64_t i = 0; i < y->NumElements(); ++i) {
    q(y)[i] = dw::Forward(s, p(x), p(filter), i);
  }
  for (int64_t i = 0; i < dx->NumElements(); ++i) {
    q(dx)[i] = dw::BackpropInput(s, p(filter), p(dy), i);
  }
  const int64_t count = s.batch * s.out_rows * s.out_cols;
  for (int64_t f = 0; f < dfilter->NumElements(); ++f) {
    typename gpu::Math<T>::A sum = 0;
    for (int64_t j = 0; j < count; ++j) {
      sum += dw::FilterGradTerm(s, p(x), p(dy), f, j);
    }
    q(dfilter)[f] = gpu::Math<T>::Out(sum);
  }
}

TEST_CASE(
    "gpu direct depthwise arithmetic on the host: the forward pass "
    "and both gradients, every float dtype, NHWC and NCHW, as the CPU "
    "kernels") {
  const struct {
    TensorShape input, filter;  // filter [KH, KW, C, M]
    int64_t stride;
    const char* padding;
  } kCases[] = {
      {TensorShape({2, 7, 7, 3}), TensorShape({3, 3, 3, 1}), 1, "SAME"},
      {TensorShape({1, 8, 9, 2}), TensorShape({3, 3, 2, 2}), 2, "SAME"},
      {TensorShape({2, 8, 8, 2}), TensorShape({2, 2, 2, 3}), 2, "VALID"},
      {TensorShape({1, 7, 7, 2}), TensorShape({2, 2, 2, 1}), 3, "SAME"},
  };
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    const double tolerance = t == DT_HALF       ? 4e-3
                             : t == DT_BFLOAT16 ? 3e-2
                                                : 1e-5;
    for (const auto& c : kCases) {
      std::map<std::string, AttrValue> attrs;
      attrs["T"].set_type(t);
      attrs["strides"] = IntsAttr({1, c.stride, c.stride, 1});
      attrs["padding"].set_s(c.padding);
      const Tensor x = Random(t, c.input, 21);
      const Tensor w = Random(t, c.filter, 22);
      auto y = OnCpu("DepthwiseConv2dNative", {x, w}, attrs);
      REQUIRE_OK(y);
      const Tensor dy = Random(t, y->shape(), 23);
      std::vector<int32_t> in_sizes, f_sizes;
      for (int d = 0; d < 4; ++d) {
        in_sizes.push_back(static_cast<int32_t>(c.input.dim_size(d)));
        f_sizes.push_back(static_cast<int32_t>(c.filter.dim_size(d)));
      }
      auto dx = OnCpu("DepthwiseConv2dNativeBackpropInput",
                      {Tensor::FromVector<int32_t>(in_sizes), w, dy}, attrs);
      auto dw = OnCpu("DepthwiseConv2dNativeBackpropFilter",
                      {x, Tensor::FromVector<int32_t>(f_sizes), dy}, attrs);
      REQUIRE_OK(dx);
      REQUIRE_OK(dw);
      // The output's size and padding as TensorFlow computes them.
      conv_internal::ConvGeom g;
      g.batch = c.input.dim_size(0);
      int64_t pad_after = 0;
      conv_internal::Padding padding;
      REQUIRE_OK(conv_internal::ParsePadding(c.padding, &padding));
      REQUIRE_OK(conv_internal::WindowedOutputSize(
          c.input.dim_size(1), c.filter.dim_size(0), 1, c.stride, padding, 0, 0,
          &g.out_rows, &g.pad_top, &pad_after));
      REQUIRE_OK(conv_internal::WindowedOutputSize(
          c.input.dim_size(2), c.filter.dim_size(1), 1, c.stride, padding, 0, 0,
          &g.out_cols, &g.pad_left, &pad_after));
      for (const bool nchw : {false, true}) {
        INFO(DataTypeString(t)
             << " " << c.input.DebugString() << " filter "
             << c.filter.DebugString() << " stride " << c.stride << " "
             << c.padding << (nchw ? " NCHW" : " NHWC"));
        const gpu::DepthwiseShape s{c.input.dim_size(0),
                                    c.input.dim_size(1),
                                    c.input.dim_size(2),
                                    c.input.dim_size(3),
                                    c.filter.dim_size(3),
                                    c.filter.dim_size(0),
                                    c.filter.dim_size(1),
                                    g.out_rows,
                                    g.out_cols,
                                    c.stride,
                                    c.stride,
                                    g.pad_top,
                                    g.pad_left,
                                    nchw};
        const Tensor xs = nchw ? Transposed(x, true) : x;
        const Tensor dys = nchw ? Transposed(dy, true) : dy;
        Tensor gy(t, dys.shape()), gdx(t, xs.shape()), gdw(t, w.shape());
        switch (t) {
          case DT_FLOAT:
            DepthwiseOnHost<float>(s, xs, w, dys, &gy, &gdx, &gdw);
            break;
          case DT_DOUBLE:
            DepthwiseOnHost<double>(s, xs, w, dys, &gy, &gdx, &gdw);
            break;
          case DT_HALF:
            DepthwiseOnHost<__half>(s, xs, w, dys, &gy, &gdx, &gdw);
            break;
          default:
            DepthwiseOnHost<__nv_bfloat16>(s, xs, w, dys, &gy, &gdx, &gdw);
            break;
        }
        CHECK(MaxError(nchw ? Transposed(gy, false) : gy, *y) <= tolerance);
        CHECK(MaxError(nchw ? Transposed(gdx, false) : gdx, *dx) <= tolerance);
        // The filter's gradient sums over the batch and every position.
        CHECK(MaxError(gdw, *dw) <= 4 * tolerance);
      }
    }
  }
}

}  // namespace
}  // namespace dfx

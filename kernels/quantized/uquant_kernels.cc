// The uquant family's kernels: TensorFlow's uniform quantized ops
// (UniformQuantize, UniformDequantize, UniformRequantize,
// UniformQuantizedAdd, UniformQuantizedClipByValue, UniformQuantizedDot,
// UniformQuantizedDotHybrid, UniformQuantizedConvolution(Hybrid)) and the
// per-channel requantization of qint32 NHWC tensors (RequantizePerChannel,
// RequantizationRangePerChannel) and QuantizedConcatV2, whose TensorFlow
// kernels are oneDNN's, for the dtypes TensorFlow 2.21's CPU kernels serve,
// with its checks and its arithmetic step by step: quantization as floor(x * (1
// / scale) + 0.5) + zero_point in float, requantization by a fixed-point
// multiplier and shift with one rounding, and the places where TensorFlow's
// code reads a qint32 level through float (Eigen's QInt32 converts only to
// float) or accumulates a product in float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/quantized/quantized_math.h"
#include "runtime/op_kernel.h"
#include "runtime/quantized_types.h"

namespace dfx {
namespace {

// x86's float -> int32 conversion (cvttss2si): toward zero, INT32_MIN for
// NaN and for values out of range.
int32_t TruncToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) {
    return std::numeric_limits<int32_t>::min();
  }
  return static_cast<int32_t>(v);
}

// Two's complement int32 arithmetic (TensorFlow's overflowing int32 sums
// wrap on x86).
int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) +
                              static_cast<uint32_t>(b));
}
int32_t WrapSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) -
                              static_cast<uint32_t>(b));
}
int32_t WrapMul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) *
                              static_cast<uint32_t>(b));
}

// A level as TensorFlow's static_cast<int32_t> reads it: exact for the
// eight-bit types, through float for qint32.
template <typename Q>
int32_t Level(Q q) {
  if constexpr (std::is_same_v<Q, qint32>) {
    return TruncToInt32(static_cast<float>(q.value));
  } else {
    return q.value;
  }
}

std::string ShapeString(const TensorShape& s) { return s.DebugString(); }

// TensorFlow's QuantizationAxisAndShapeValid.
absl::Status AxisAndShapeValid(const TensorShape& data,
                               const TensorShape& scales,
                               const TensorShape& zero_points, int axis) {
  if (!scales.IsSameSize(zero_points)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scales and zero_points shape must be same, but given scales shape ",
        ShapeString(scales), " and zero_points shape ",
        ShapeString(zero_points)));
  }
  if (axis < -1 || axis >= data.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantization_axis must be -1 or in range [0, input.rank), but given ",
        axis));
  }
  if (axis == -1) {
    if (scales.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "If quantization_axis is -1, scales and zero_points must be scalar "
          "tensors, but given scales shape ",
          ShapeString(scales), " and zero_points shape ",
          ShapeString(zero_points)));
    }
  } else if (!(scales.dims() == 1 &&
               scales.dim_size(0) == data.dim_size(axis))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "If quantization_axis is not -1, scales and zero_points must be a "
        "tensor of rank 1 and the size must be equal to the "
        "input.dim_size(quantization_axis), but given quantization_axis ",
        axis, ", scales shape ", ShapeString(scales), " and zero_points shape ",
        ShapeString(zero_points)));
  }
  return absl::OkStatus();
}

bool AllPositive(const Tensor& t) {
  const float* s = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (!(s[i] > 0)) return false;
  }
  return true;
}

// The elements of a tensor as [outer, channels, inner] around `axis`
// (channels 1 for -1): element i belongs to channel (i / inner) % channels.
struct AxisLayout {
  int64_t channels = 1;
  int64_t inner = 1;
  AxisLayout(const TensorShape& shape, int axis) {
    if (axis < 0) {
      inner = std::max<int64_t>(shape.num_elements(), 1);
      return;
    }
    channels = shape.dim_size(axis);
    for (int d = axis + 1; d < shape.dims(); ++d) inner *= shape.dim_size(d);
  }
  int64_t Channel(int64_t i) const {
    return inner == 0 || channels == 0 ? 0 : (i / inner) % channels;
  }
};

// TensorFlow's QuantizeMultiplier: `m` as a 31-bit fixed-point multiplier
// and a shift.
absl::Status QuantizeMultiplier(double m, int32_t* multiplier, int* shift) {
  if (!std::isfinite(m) || m <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "double_multiplier must be a poisitive finite number. Given ", m));
  }
  const double q = std::frexp(m, shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * (int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    fixed = 0;
  }
  if (*shift > 30) {
    *shift = 30;
    fixed = (int64_t{1} << 31) - 1;
  }
  *multiplier = static_cast<int32_t>(fixed);
  return absl::OkStatus();
}

struct Multiplier {
  int32_t multiplier = 0;
  int shift = 0;
  // x * multiplier * 2^(shift - 31), rounded half up once, saturated.
  int32_t Apply(int32_t x) const {
    const int total_shift = 31 - shift;
    const int64_t round = int64_t{1} << (total_shift - 1);
    int64_t r = (static_cast<int64_t>(x) * multiplier + round) >> total_shift;
    r = std::clamp<int64_t>(r, std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max());
    return static_cast<int32_t>(r);
  }
};

// (level - input_zp) rescaled, + output_zp, clamped to [lo, hi] (min then
// max, as TensorFlow's std::max(std::min(..)) does).
int32_t Requantize(int32_t level, const Multiplier& m, int32_t in_zp,
                   int32_t out_zp, int32_t lo, int32_t hi) {
  const int32_t v = WrapAdd(m.Apply(WrapSub(level, in_zp)), out_zp);
  return std::max(std::min(v, hi), lo);
}

// TensorFlow's EvalRequantize of levels `in` (read by Level) of `shape` into
// int32 results: per tensor when both axes are -1, else along the axis
// given (the input's, else the output's), each side per axis when its
// scales are a vector. REQUIRES: the scales were checked against `shape`
// (or, for UniformQuantizedAdd's operands, against the sum's shape: the
// checks below catch what TensorFlow would read out of bounds).
template <typename In>
absl::Status RequantizeLevels(const In* in, const TensorShape& shape,
                              const Tensor& in_scales, const Tensor& in_zps,
                              const Tensor& out_scales, const Tensor& out_zps,
                              int in_axis, int out_axis, int32_t lo, int32_t hi,
                              std::vector<int32_t>* out) {
  const int64_t n = shape.num_elements();
  out->resize(n);
  const float* is = in_scales.data<float>();
  const int32_t* iz = in_zps.data<int32_t>();
  const float* os = out_scales.data<float>();
  const int32_t* oz = out_zps.data<int32_t>();
  if (in_axis == -1 && out_axis == -1) {
    if (in_scales.dims() != 0 || out_scales.dims() != 0) {
      // TensorFlow reads a vector as a scalar here and aborts.
      return absl::InvalidArgumentError(
          "per-tensor requantization of an operand whose output is "
          "quantized per axis is not supported (TensorFlow aborts)");
    }
    Multiplier m;
    DFX_RETURN_IF_ERROR(QuantizeMultiplier(static_cast<double>(is[0]) / os[0],
                                           &m.multiplier, &m.shift));
    for (int64_t i = 0; i < n; ++i) {
      (*out)[i] = Requantize(Level(in[i]), m, iz[0], oz[0], lo, hi);
    }
    return absl::OkStatus();
  }
  const int axis = in_axis >= 0 ? in_axis : out_axis;
  const bool in_per_axis = in_scales.dims() == 1;
  const bool out_per_axis = out_scales.dims() == 1;
  if (axis >= shape.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantization axis ", axis, " is out of range for an operand of shape ",
        shape.DebugString(), " (TensorFlow reads out of bounds)"));
  }
  const AxisLayout layout(shape, axis);
  if ((in_per_axis && layout.channels > in_scales.NumElements()) ||
      (out_per_axis && layout.channels > out_scales.NumElements())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an operand of shape ", shape.DebugString(), " has more slices along ",
        "axis ", axis, " than there are scales (TensorFlow reads out of ",
        "bounds)"));
  }
  std::vector<Multiplier> ms(layout.channels);
  for (int64_t c = 0; c < layout.channels; ++c) {
    const double m =
        static_cast<double>(is[in_per_axis ? c : 0]) / os[out_per_axis ? c : 0];
    DFX_RETURN_IF_ERROR(QuantizeMultiplier(m, &ms[c].multiplier, &ms[c].shift));
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = layout.Channel(i);
    (*out)[i] = Requantize(Level(in[i]), ms[c], iz[in_per_axis ? c : 0],
                           oz[out_per_axis ? c : 0], lo, hi);
  }
  return absl::OkStatus();
}

// An int attr as TensorFlow's GetAttr into an int32 reads it.
absl::Status GetInt(OpKernelConstruction* ctx, const char* name, int32_t* v) {
  return ctx->GetAttr(name, v);
}

// UniformQuantize: float -> Out.
template <typename Out>
class UniformQuantizeOp : public OpKernel {
 public:
  explicit UniformQuantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "quantization_min_val", &min_));
    ctx->SetStatus(GetInt(ctx, "quantization_max_val", &max_));
    ctx->SetStatus(GetInt(ctx, "quantization_axis", &axis_));
    if (ctx->status().ok() && axis_ < -1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("quantization_axis must be >= -1, given: ", axis_)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& scales = ctx->input(1);
    const Tensor& zps = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, AxisAndShapeValid(input.shape(), scales.shape(),
                                              zps.shape(), axis_));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const AxisLayout layout(input.shape(), axis_);
    std::vector<float> inv(layout.channels);
    for (int64_t c = 0; c < layout.channels; ++c) {
      inv[c] = 1.0f / scales.data<float>()[c];
    }
    const int32_t* zp = zps.data<int32_t>();
    const float* in = input.data<float>();
    Out* out = output->data<Out>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      const int64_t c = layout.Channel(i);
      const float scaled = in[i] * inv[c];
      const int32_t q = WrapAdd(TruncToInt32(std::floor(scaled + 0.5f)), zp[c]);
      out[i] = Out(std::max(std::min(q, max_), min_));
    }
  }

 private:
  int32_t min_ = 0;
  int32_t max_ = 0;
  int32_t axis_ = -1;
};

// UniformDequantize: In -> float.
template <typename In>
class UniformDequantizeOp : public OpKernel {
 public:
  explicit UniformDequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "quantization_axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& scales = ctx->input(1);
    const Tensor& zps = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, AxisAndShapeValid(input.shape(), scales.shape(),
                                              zps.shape(), axis_));
    DFX_OP_REQUIRES(ctx, AllPositive(scales),
                    absl::InvalidArgumentError(
                        "rhs scales elements must be all positive."));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const AxisLayout layout(input.shape(), axis_);
    const float* s = scales.data<float>();
    const int32_t* zp = zps.data<int32_t>();
    const In* in = input.data<In>();
    float* out = output->data<float>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      const int64_t c = layout.Channel(i);
      out[i] = static_cast<float>(WrapSub(Level(in[i]), zp[c])) * s[c];
    }
  }

 private:
  int32_t axis_ = -1;
};

// UniformRequantize: In -> qint8.
template <typename In>
class UniformRequantizeOp : public OpKernel {
 public:
  explicit UniformRequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "output_quantization_min_val", &min_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_max_val", &max_));
    ctx->SetStatus(GetInt(ctx, "input_quantization_axis", &in_axis_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_axis", &out_axis_));
    if (!ctx->status().ok()) return;
    if (in_axis_ < -1) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "input_quantization_axis must be >= -1, given: ", in_axis_)));
    } else if (out_axis_ < -1) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "output_quantization_axis must be >= -1, given: ", out_axis_)));
    } else if (in_axis_ >= 0 && out_axis_ >= 0 && in_axis_ != out_axis_) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "If input and output is both per-axis quantized, the quantization "
          "axis must be same."));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    for (int i : {1, 3}) {
      DFX_OP_REQUIRES_OK(ctx,
                         AxisAndShapeValid(input.shape(), ctx->input(i).shape(),
                                           ctx->input(i + 1).shape(),
                                           i == 1 ? in_axis_ : out_axis_));
    }
    DFX_OP_REQUIRES(ctx,
                    AllPositive(ctx->input(1)) && AllPositive(ctx->input(3)),
                    absl::InvalidArgumentError(
                        "input/output scales elements must be all positive."));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    std::vector<int32_t> levels;
    DFX_OP_REQUIRES_OK(
        ctx, RequantizeLevels(input.data<In>(), input.shape(), ctx->input(1),
                              ctx->input(2), ctx->input(3), ctx->input(4),
                              in_axis_, out_axis_, min_, max_, &levels));
    qint8* out = output->data<qint8>();
    for (size_t i = 0; i < levels.size(); ++i) out[i] = qint8(levels[i]);
  }

 private:
  int32_t min_ = 0;
  int32_t max_ = 0;
  int32_t in_axis_ = -1;
  int32_t out_axis_ = -1;
};

// The broadcast shape of UniformQuantizedAdd's operands (a scalar takes the
// other's shape).
absl::StatusOr<TensorShape> AddShape(const TensorShape& l,
                                     const TensorShape& r) {
  if (l.dims() == 0) return r;
  if (r.dims() == 0) return l;
  const int rank = std::max(l.dims(), r.dims());
  std::vector<int64_t> dims(rank);
  for (int k = 0; k < rank; ++k) {
    const int li = l.dims() - rank + k;
    const int ri = r.dims() - rank + k;
    const int64_t ld = li >= 0 ? l.dim_size(li) : 1;
    const int64_t rd = ri >= 0 ? r.dim_size(ri) : 1;
    if (ld != 1 && rd != 1 && ld != rd) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot Add tensors of shapes: ", l.DebugString(), r.DebugString()));
    }
    dims[k] = ld == 1 ? rd : ld;
  }
  return TensorShape::Build(dims);
}

class UniformQuantizedAddOp : public OpKernel {
 public:
  explicit UniformQuantizedAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "output_quantization_min_val", &min_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_max_val", &max_));
    ctx->SetStatus(GetInt(ctx, "lhs_quantization_axis", &lhs_axis_));
    ctx->SetStatus(GetInt(ctx, "rhs_quantization_axis", &rhs_axis_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_axis", &out_axis_));
    if (ctx->status().ok() &&
        (lhs_axis_ < -1 || rhs_axis_ < -1 || out_axis_ < -1)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "lhs, rhs and output quantization_axis must be -1 or within [0, "
          "dims)"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx,
                       AxisAndShapeValid(lhs.shape(), ctx->input(2).shape(),
                                         ctx->input(3).shape(), lhs_axis_));
    DFX_OP_REQUIRES_OK(ctx,
                       AxisAndShapeValid(rhs.shape(), ctx->input(4).shape(),
                                         ctx->input(5).shape(), rhs_axis_));
    absl::StatusOr<TensorShape> shape = AddShape(lhs.shape(), rhs.shape());
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    const int out_rank = shape->dims();
    DFX_OP_REQUIRES_OK(ctx,
                       AxisAndShapeValid(*shape, ctx->input(6).shape(),
                                         ctx->input(7).shape(), out_axis_));
    DFX_OP_REQUIRES(
        ctx,
        !(lhs_axis_ >= 0 && out_axis_ >= 0) ||
            lhs.dims() - lhs_axis_ == out_rank - out_axis_,
        absl::InvalidArgumentError("If lhs and output is both per-axis "
                                   "quantized, the quantization axis must "
                                   "match."));
    DFX_OP_REQUIRES(
        ctx,
        !(rhs_axis_ >= 0 && out_axis_ >= 0) ||
            rhs.dims() - rhs_axis_ == out_rank - out_axis_,
        absl::InvalidArgumentError("If rhs and output is both per-axis "
                                   "quantized, the quantization axis must "
                                   "match."));
    DFX_OP_REQUIRES(
        ctx,
        AllPositive(ctx->input(2)) && AllPositive(ctx->input(4)) &&
            AllPositive(ctx->input(6)),
        absl::InvalidArgumentError(
            "lhs/rhs/output scales elements must be all positive."));
    // Both operands are requantized to the output's scales with zero
    // points of 0 (TensorFlow's order of axes, including its use of the
    // output's axis on the rhs's own dims), then summed with the output's
    // zero point.
    const Tensor& out_scales = ctx->input(6);
    Tensor zeros(DT_INT32, out_scales.shape());
    std::fill_n(zeros.data<int32_t>(), zeros.NumElements(), 0);
    constexpr int32_t kLo = std::numeric_limits<int32_t>::min();
    constexpr int32_t kHi = std::numeric_limits<int32_t>::max();
    std::vector<int32_t> l, r;
    DFX_OP_REQUIRES_OK(
        ctx, RequantizeLevels(lhs.data<qint32>(), lhs.shape(), ctx->input(2),
                              ctx->input(3), out_scales, zeros, lhs_axis_,
                              out_axis_ == -1 ? -1 : lhs_axis_, kLo, kHi, &l));
    DFX_OP_REQUIRES_OK(
        ctx, RequantizeLevels(rhs.data<qint32>(), rhs.shape(), ctx->input(4),
                              ctx->input(5), out_scales, zeros, rhs_axis_,
                              out_axis_, kLo, kHi, &r));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    const int32_t* zp = ctx->input(7).data<int32_t>();
    qint32* out = output->data<qint32>();
    const int64_t n = output->NumElements();
    std::vector<int64_t> index(out_rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      // Row-major index of element i in each operand (size-1 dims repeat).
      int64_t rem = i, li = 0, ri = 0, lstride = 1, rstride = 1, zi = 0;
      for (int d = out_rank - 1; d >= 0; --d) {
        const int64_t k = rem % shape->dim_size(d);
        rem /= shape->dim_size(d);
        if (d == out_axis_) zi = k;
        const int ld = d - (out_rank - lhs.dims());
        if (ld >= 0) {
          li += (lhs.dim_size(ld) == 1 ? 0 : k) * lstride;
          lstride *= lhs.dim_size(ld);
        }
        const int rd = d - (out_rank - rhs.dims());
        if (rd >= 0) {
          ri += (rhs.dim_size(rd) == 1 ? 0 : k) * rstride;
          rstride *= rhs.dim_size(rd);
        }
      }
      // The requantized levels are qint32 again: read through float.
      const int32_t sum =
          WrapAdd(WrapAdd(Level(qint32(l[li])), Level(qint32(r[ri]))), zp[zi]);
      out[i] = qint32(sum < min_ ? min_ : (max_ < sum ? max_ : sum));
    }
  }

 private:
  int32_t min_ = 0;
  int32_t max_ = 0;
  int32_t lhs_axis_ = -1;
  int32_t rhs_axis_ = -1;
  int32_t out_axis_ = -1;
};

class UniformQuantizedClipByValueOp : public OpKernel {
 public:
  explicit UniformQuantizedClipByValueOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "quantization_axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& operand = ctx->input(0);
    const Tensor& min = ctx->input(1);
    const Tensor& max = ctx->input(2);
    const Tensor& scales = ctx->input(3);
    DFX_OP_REQUIRES_OK(ctx, AxisAndShapeValid(operand.shape(), scales.shape(),
                                              ctx->input(4).shape(), axis_));
    for (const Tensor* t : {&min, &max}) {
      DFX_OP_REQUIRES(
          ctx, t->shape().IsSameSize(scales.shape()),
          absl::InvalidArgumentError(absl::StrCat(
              "Input ", t == &min ? "min" : "max",
              " shape must be same as scales/zero_points. Given ",
              t == &min ? "min" : "max", " of shape ", t->shape().DebugString(),
              " and scales/zero_points of shape ",
              scales.shape().DebugString())));
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, operand.shape(), &output));
    const AxisLayout layout(operand.shape(), axis_);
    const qint32* in = operand.data<qint32>();
    const qint32* lo = min.data<qint32>();
    const qint32* hi = max.data<qint32>();
    qint32* out = output->data<qint32>();
    for (int64_t i = 0; i < operand.NumElements(); ++i) {
      const int64_t c = layout.Channel(i);
      out[i] =
          qint32(std::min(std::max(in[i].value, lo[c].value), hi[c].value));
    }
  }

 private:
  int32_t axis_ = -1;
};

absl::Status DotShapesValid(const TensorShape& l, const TensorShape& r) {
  if (l.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lhs rank must be 2, but given lhs shape ", l.DebugString()));
  }
  if (r.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rhs rank must be 2, but given rhs shape ", r.DebugString()));
  }
  if (l.dim_size(1) != r.dim_size(0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("lhs.dim_size(1) and rhs.dim_size(0) must be equal, but "
                     "given lhs shape ",
                     l.DebugString(), " and rhs shape ", r.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status CheckAxisAttr(OpKernelConstruction* ctx, const char* name,
                           bool allow_one) {
  int32_t axis = 0;
  DFX_RETURN_IF_ERROR(GetInt(ctx, name, &axis));
  if (axis == -1 || (allow_one && axis == 1)) return absl::OkStatus();
  if (!allow_one) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " Attr must be -1 (per-tensor)."));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, " Attr must be 1 (per-channel) or -1 (per-tensor)."));
}

class UniformQuantizedDotOp : public OpKernel {
 public:
  explicit UniformQuantizedDotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "output_quantization_min_val", &min_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_max_val", &max_));
    ctx->SetStatus(CheckAxisAttr(ctx, "lhs_quantization_axis", false));
    ctx->SetStatus(CheckAxisAttr(ctx, "rhs_quantization_axis", true));
    ctx->SetStatus(CheckAxisAttr(ctx, "output_quantization_axis", true));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& lhs_scales = ctx->input(2);
    const Tensor& rhs_scales = ctx->input(4);
    const Tensor& out_scales = ctx->input(6);
    static constexpr const char* kSides[] = {"lhs", "rhs", "output"};
    for (int k = 0; k < 3; ++k) {
      DFX_OP_REQUIRES(
          ctx, AllPositive(ctx->input(2 + 2 * k)),
          absl::InvalidArgumentError(absl::StrCat(
              kSides[k], " scales elements must be all positive.")));
    }
    DFX_OP_REQUIRES_OK(ctx, DotShapesValid(lhs.shape(), rhs.shape()));
    DFX_OP_REQUIRES(
        ctx,
        lhs_scales.shape().IsSameSize(ctx->input(3).shape()) &&
            lhs_scales.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "lhs scales/zero_points must be all scalar tensors. Given: ",
            lhs_scales.shape().DebugString(),
            ctx->input(3).shape().DebugString())));
    DFX_OP_REQUIRES_OK(ctx, AxisAndShapeValid(rhs.shape(), rhs_scales.shape(),
                                              ctx->input(5).shape(),
                                              rhs_scales.dims() == 0 ? -1 : 1));
    const TensorShape out_shape({lhs.dim_size(0), rhs.dim_size(1)});
    DFX_OP_REQUIRES_OK(ctx, AxisAndShapeValid(out_shape, out_scales.shape(),
                                              ctx->input(7).shape(),
                                              out_scales.dims() == 0 ? -1 : 1));
    DFX_OP_REQUIRES(
        ctx, rhs_scales.dims() > 0 || out_scales.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "If rhs is per-tensor quantized, output must be also per-tensor "
            "quantized. Given rhs scales and zero_points of shape ",
            rhs_scales.shape().DebugString(),
            " but given output scales and zero_points of shape ",
            out_scales.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));

    const int64_t rows = lhs.dim_size(0);
    const int64_t depth = lhs.dim_size(1);
    const int64_t cols = rhs.dim_size(1);
    const float lhs_scale = lhs_scales.data<float>()[0];
    const int32_t lhs_zp = ctx->input(3).data<int32_t>()[0];
    const float* rs = rhs_scales.data<float>();
    const int32_t* rz = ctx->input(5).data<int32_t>();
    const float* os = out_scales.data<float>();
    const int32_t* oz = ctx->input(7).data<int32_t>();
    const bool rhs_per_channel = rhs_scales.dims() != 0;
    const bool out_per_channel = out_scales.dims() != 0;
    std::vector<Multiplier> ms(rhs_per_channel ? cols : 1);
    for (size_t c = 0; c < ms.size(); ++c) {
      const double m = static_cast<double>(lhs_scale) *
                       rs[rhs_per_channel ? c : 0] /
                       os[out_per_channel ? c : 0];
      DFX_OP_REQUIRES_OK(
          ctx, QuantizeMultiplier(m, &ms[c].multiplier, &ms[c].shift));
    }
    const qint8* a = lhs.data<qint8>();
    const qint8* b = rhs.data<qint8>();
    qint32* out = output->data<qint32>();
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t c = rhs_per_channel ? j : 0;
        int32_t acc = 0;
        for (int64_t d = 0; d < depth; ++d) {
          const int32_t p = WrapMul(WrapSub(a[i * depth + d].value, lhs_zp),
                                    WrapSub(b[d * cols + j].value, rz[c]));
          // Per tensor, TensorFlow's products are qint32 and `acc += p`
          // adds them in float; per channel, in int32.
          acc = rhs_per_channel ? WrapAdd(acc, p)
                                : TruncToInt32(static_cast<float>(acc) +
                                               static_cast<float>(p));
        }
        out[i * cols + j] = qint32(
            Requantize(acc, ms[c], 0, oz[out_per_channel ? j : 0], min_, max_));
      }
    }
  }

 private:
  int32_t min_ = 0;
  int32_t max_ = 0;
};

// TensorFlow's AsymmetricQuantize of one row of floats to qint8 levels in
// [-128, 127]: the row's range widened to hold 0, the zero point that errs
// least, and the scale; a row of zeros (or an infinite inverse scale) gives
// levels 0, scale 1 and zero point 0.
void AsymmetricQuantizeRow(const float* x, int64_t n, int32_t* levels,
                           float* scale, int32_t* zero_point) {
  constexpr int32_t kMin = -128, kMax = 127;
  float lo = std::numeric_limits<float>::max();
  float hi = std::numeric_limits<float>::lowest();
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const double rmin = static_cast<double>(std::min(0.0f, lo));
  const double rmax = static_cast<double>(std::max(0.0f, hi));
  const double qmin = kMin, qmax = kMax;
  float inv_scale = 0;
  *scale = static_cast<float>((rmax - rmin) / (qmax - qmin));
  if (rmax - rmin != 0) {
    inv_scale = static_cast<float>((qmax - qmin) / (rmax - rmin));
  }
  if (*scale == 0 || !std::isfinite(inv_scale)) {
    std::fill_n(levels, n, 0);
    *scale = 1.0f;
    *zero_point = 0;
    return;
  }
  const double from_min = qmin - rmin / *scale;
  const double from_max = qmax - rmax / *scale;
  const double err_min = std::abs(qmin) + std::abs(rmin / *scale);
  const double err_max = std::abs(qmax) + std::abs(rmax / *scale);
  const double zp = err_min < err_max ? from_min : from_max;
  int8_t nudged = 0;
  if (zp <= qmin) {
    nudged = kMin;
  } else if (zp >= qmax) {
    nudged = kMax;
  } else {
    nudged = static_cast<int8_t>(std::round(zp));
  }
  *zero_point = nudged;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t q =
        WrapAdd(TruncToInt32(std::floor(x[i] * inv_scale + 0.5f)), *zero_point);
    levels[i] = static_cast<int8_t>(std::max(std::min(q, kMax), kMin));
  }
}

class UniformQuantizedDotHybridOp : public OpKernel {
 public:
  explicit UniformQuantizedDotHybridOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(CheckAxisAttr(ctx, "rhs_quantization_axis", true));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& rhs_scales = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, DotShapesValid(lhs.shape(), rhs.shape()));
    DFX_OP_REQUIRES_OK(ctx, AxisAndShapeValid(rhs.shape(), rhs_scales.shape(),
                                              ctx->input(3).shape(),
                                              rhs_scales.dims() == 0 ? -1 : 1));
    DFX_OP_REQUIRES(ctx, AllPositive(rhs_scales),
                    absl::InvalidArgumentError(
                        "rhs scales elements must be all positive."));
    const int64_t rows = lhs.dim_size(0);
    const int64_t depth = lhs.dim_size(1);
    const int64_t cols = rhs.dim_size(1);
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({rows, cols}), &output));
    const bool per_channel = rhs_scales.dims() != 0;
    const float* rs = rhs_scales.data<float>();
    const int32_t* rz = ctx->input(3).data<int32_t>();
    const qint8* b = rhs.data<qint8>();
    float* out = output->data<float>();
    std::vector<int32_t> levels(depth);
    for (int64_t i = 0; i < rows; ++i) {
      float scale = 0;
      int32_t zp = 0;
      AsymmetricQuantizeRow(lhs.data<float>() + i * depth, depth, levels.data(),
                            &scale, &zp);
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t c = per_channel ? j : 0;
        int32_t acc = 0;
        for (int64_t d = 0; d < depth; ++d) {
          acc = WrapAdd(acc, WrapMul(WrapSub(levels[d], zp),
                                     WrapSub(b[d * cols + j].value, rz[c])));
        }
        out[i * cols + j] = static_cast<float>(acc) * scale * rs[c];
      }
    }
  }
};

// UniformQuantizedConvolution(Hybrid)'s dimension numbers, the serialized
// UniformQuantizedConvolutionDimensionNumbersAttr of the `dimension_numbers`
// attr (proto3: int64 fields 1, 2, 4, 5, 7, 8; repeated int64 3, 6, 9).
struct ConvDims {
  int64_t in_batch = 0, in_feature = 0;
  std::vector<int64_t> in_spatial;
  int64_t k_in_feature = 0, k_out_feature = 0;
  std::vector<int64_t> k_spatial;
  int64_t out_batch = 0, out_feature = 0;
  std::vector<int64_t> out_spatial;
};

bool ReadVarint(const std::string& s, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= s.size()) return false;
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

bool ParseConvDims(const std::string& s, ConvDims* d) {
  size_t pos = 0;
  while (pos < s.size()) {
    uint64_t key = 0;
    if (!ReadVarint(s, &pos, &key)) return false;
    const uint64_t field = key >> 3;
    const int wire = static_cast<int>(key & 7);
    int64_t* scalar = nullptr;
    std::vector<int64_t>* list = nullptr;
    switch (field) {
      case 1:
        scalar = &d->in_batch;
        break;
      case 2:
        scalar = &d->in_feature;
        break;
      case 3:
        list = &d->in_spatial;
        break;
      case 4:
        scalar = &d->k_in_feature;
        break;
      case 5:
        scalar = &d->k_out_feature;
        break;
      case 6:
        list = &d->k_spatial;
        break;
      case 7:
        scalar = &d->out_batch;
        break;
      case 8:
        scalar = &d->out_feature;
        break;
      case 9:
        list = &d->out_spatial;
        break;
      default:
        break;
    }
    if (wire == 0) {
      uint64_t v = 0;
      if (!ReadVarint(s, &pos, &v)) return false;
      if (scalar != nullptr) *scalar = static_cast<int64_t>(v);
      if (list != nullptr) list->push_back(static_cast<int64_t>(v));
    } else if (wire == 2) {
      uint64_t len = 0;
      if (!ReadVarint(s, &pos, &len) || len > s.size() - pos) return false;
      if (scalar != nullptr) return false;
      const size_t end = pos + len;
      if (list != nullptr) {
        while (pos < end) {
          uint64_t v = 0;
          if (!ReadVarint(s, &pos, &v) || pos > end) return false;
          list->push_back(static_cast<int64_t>(v));
        }
      }
      pos = end;
    } else if (wire == 1 || wire == 5) {
      if (scalar != nullptr || list != nullptr) return false;
      const size_t n = wire == 1 ? 8 : 4;
      if (n > s.size() - pos) return false;
      pos += n;
    } else {
      return false;
    }
  }
  return true;
}

// The convolution attrs, as TensorFlow's UniformQuantizedConvolutionParams
// loads them, validated and completed for one pair of operand shapes.
struct ConvParams {
  std::vector<int32_t> strides, lhs_dilation, rhs_dilation, padding_list;
  int32_t feature_groups = 1, batch_groups = 1;
  std::string padding;
  bool have_dims = false;
  ConvDims dims;

  absl::Status Load(OpKernelConstruction* ctx) {
    DFX_RETURN_IF_ERROR(ctx->GetAttr("window_strides", &strides));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("lhs_dilation", &lhs_dilation));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("rhs_dilation", &rhs_dilation));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("batch_group_count", &batch_groups));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("feature_group_count", &feature_groups));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("explicit_padding", &padding_list));
    if (padding != "EXPLICIT" && padding != "SAME" && padding != "VALID") {
      return absl::InvalidArgumentError(absl::StrCat(
          "padding Attr must be one of [EXPLICIT | SAME | VALID], but given: ",
          padding));
    }
    if (padding != "EXPLICIT" && !padding_list.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "If padding Attr is not 'EXPLICIT', explicit_padding Attr must be "
          "empty. Given padding ",
          padding, " and explicit_padding of size ", padding_list.size()));
    }
    std::string s;
    DFX_RETURN_IF_ERROR(ctx->GetAttr("dimension_numbers", &s));
    if (!s.empty()) {
      if (!ParseConvDims(s, &dims)) {
        return absl::InvalidArgumentError(
            "Error parsing convolution dimension numbers.");
      }
      have_dims = !dims.in_spatial.empty();
    }
    return absl::OkStatus();
  }

  static int64_t Dilated(int64_t size, int64_t dilation) {
    return size == 0 ? 0 : size + (dilation - 1) * (size - 1);
  }

  // TensorFlow's ValidateOrFillParamsAndValidateShape, then the output
  // shape. Beyond TensorFlow (which reads out of bounds or divides by zero
  // there): dimension numbers must be permutations, and the rhs's input
  // feature dimension must not be empty.
  absl::StatusOr<TensorShape> Prepare(const TensorShape& lhs,
                                      const TensorShape& rhs) {
    if (lhs.dims() != rhs.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lhs and rhs must have same dims. Given lhs and rhs of shapes: ",
          lhs.DebugString(), rhs.DebugString()));
    }
    const int rank = lhs.dims();
    if (rank <= 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lhs and rhs shape dims must be at least 3. Given: ", rank));
    }
    const size_t n = rank - 2;
    struct ListAttr {
      std::vector<int32_t>* v;
      const char* name;
    };
    for (const ListAttr& a : {ListAttr{&strides, "window_strides"},
                              ListAttr{&lhs_dilation, "lhs_dilation"},
                              ListAttr{&rhs_dilation, "rhs_dilation"}}) {
      if (a.v->empty()) {
        a.v->assign(n, 1);
      } else if (a.v->size() != n) {
        return absl::InvalidArgumentError(
            absl::StrCat("Size of ", a.name, " Attr must be dims - 2."));
      } else {
        for (int32_t x : *a.v) {
          if (x < 1) {
            return absl::InvalidArgumentError(absl::StrCat(
                "All elements of ", a.name, " must be >= 1. Given ",
                absl::StrJoin(*a.v, ", ")));
          }
        }
      }
    }
    if (!have_dims) {
      dims = ConvDims{};
      dims.in_batch = 0;
      dims.in_feature = 1;
      dims.k_out_feature = 0;
      dims.k_in_feature = 1;
      dims.out_batch = 0;
      dims.out_feature = 1;
      for (size_t i = 0; i < n; ++i) {
        dims.in_spatial.push_back(2 + i);
        dims.k_spatial.push_back(2 + i);
        dims.out_spatial.push_back(2 + i);
      }
    } else {
      auto valid = [rank](int64_t d) -> absl::Status {
        if (d < 0 || d >= rank) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Each dimension number must be in region [0, rank). Given rank ",
              rank, " and dimension number value ", d));
        }
        return absl::OkStatus();
      };
      auto valid_spatial = [&](const std::vector<int64_t>& sp) -> absl::Status {
        if (sp.size() != n) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Spatial dimensions size must be rank - 2. Given rank ", rank,
              " and spatial dimensions size ", sp.size()));
        }
        for (int64_t d : sp) DFX_RETURN_IF_ERROR(valid(d));
        return absl::OkStatus();
      };
      DFX_RETURN_IF_ERROR(valid(dims.in_batch));
      DFX_RETURN_IF_ERROR(valid(dims.in_feature));
      DFX_RETURN_IF_ERROR(valid_spatial(dims.in_spatial));
      DFX_RETURN_IF_ERROR(valid(dims.k_in_feature));
      DFX_RETURN_IF_ERROR(valid(dims.k_out_feature));
      DFX_RETURN_IF_ERROR(valid_spatial(dims.k_spatial));
      DFX_RETURN_IF_ERROR(valid(dims.out_batch));
      DFX_RETURN_IF_ERROR(valid_spatial(dims.out_spatial));
      // TensorFlow checks output_batch_dimension twice and never
      // output_feature_dimension.
      for (const auto& [a, b, sp] :
           {std::tuple{dims.in_batch, dims.in_feature, &dims.in_spatial},
            std::tuple{dims.k_out_feature, dims.k_in_feature, &dims.k_spatial},
            std::tuple{dims.out_batch, dims.out_feature, &dims.out_spatial}}) {
        std::vector<bool> seen(rank, false);
        bool ok = true;
        for (int64_t d : {a, b}) {
          if (d < 0 || d >= rank || seen[d]) ok = false;
          if (ok) seen[d] = true;
        }
        for (int64_t d : *sp) {
          if (!ok || seen[d]) ok = false;
          if (ok) seen[d] = true;
        }
        if (!ok) {
          return absl::InvalidArgumentError(
              "dimension_numbers must name each dimension of lhs, rhs and "
              "output once (TensorFlow reads out of bounds otherwise)");
        }
      }
    }
    if (feature_groups <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feature_group_count must be a positive integer, given: ",
          feature_groups));
    }
    const int64_t lhs_features = lhs.dim_size(dims.in_feature);
    if (lhs_features % feature_groups) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feature_group_count must divide lhs feature dimension size, but ",
          feature_groups, " does not divide ", lhs_features));
    }
    const int64_t rhs_in = rhs.dim_size(dims.k_in_feature);
    if (rhs_in == 0) {
      return absl::InvalidArgumentError(
          "rhs input feature dimension must not be empty (TensorFlow divides "
          "by it)");
    }
    if (lhs_features % rhs_in) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rhs input feature dimension must divide lhs feature dimension "
          "size, but ",
          rhs_in, " does not divide ", lhs_features));
    }
    if (lhs_features / feature_groups != rhs_in) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lhs feature dimension size divided by feature_group_count must "
          "equal the rhs input feature dimension size, but ",
          lhs_features, " / ", feature_groups, " != ", rhs_in));
    }
    const int64_t rhs_out = rhs.dim_size(dims.k_out_feature);
    if (rhs_out % feature_groups) {
      return absl::InvalidArgumentError(
          absl::StrCat("rhs output dimension size must be a multiple of "
                       "feature_group_count, but ",
                       rhs_out, " is not a multiple of ", feature_groups));
    }
    if (batch_groups <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch_group_count Attr must be a positive integer. Given: ",
          batch_groups));
    }
    const int64_t lhs_batch = lhs.dim_size(dims.in_batch);
    if (lhs_batch % batch_groups) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch_group_count must divide lhs batch dimension size, but ",
          batch_groups, " does not divide ", lhs_batch));
    }
    if (rhs_out % batch_groups) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rhs output dimension size must be a multiple of batch_group_count, "
          "but ",
          rhs_out, " is not a multiple of ", batch_groups));
    }
    if (padding == "EXPLICIT") {
      if (padding_list.size() != 2 * n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Size of explicit_padding Attr must be 2 * (rank - 2). Given "
            "rank ",
            rank, " and explicit_padding of size ", padding_list.size()));
      }
      for (int32_t p : padding_list) {
        if (p < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("All explicit_padding elems must be >= 0, Given ",
                           absl::StrJoin(padding_list, ", ")));
        }
      }
    } else if (padding == "VALID") {
      padding_list.assign(2 * n, 0);
    } else {
      padding_list.assign(2 * n, 0);
      for (size_t i = 0; i < n; ++i) {
        const int64_t stride = strides[i];
        const int64_t l =
            Dilated(lhs.dim_size(dims.in_spatial[i]), lhs_dilation[i]);
        const int64_t r =
            Dilated(rhs.dim_size(dims.k_spatial[i]), rhs_dilation[i]);
        const int64_t out = (l + stride - 1) / stride;
        const int64_t total = std::max<int64_t>((out - 1) * stride + r - l, 0);
        padding_list[2 * i] = static_cast<int32_t>(total / 2);
        padding_list[2 * i + 1] = static_cast<int32_t>(total - total / 2);
      }
    }
    std::vector<int64_t> out(rank);
    out[dims.out_batch] = lhs_batch / batch_groups;
    out[dims.out_feature] = rhs_out;
    for (size_t i = 0; i < n; ++i) {
      const int64_t l =
          Dilated(lhs.dim_size(dims.in_spatial[i]), lhs_dilation[i]);
      const int64_t r =
          Dilated(rhs.dim_size(dims.k_spatial[i]), rhs_dilation[i]);
      const int64_t num =
          l + padding_list[2 * i] + padding_list[2 * i + 1] - r + 1;
      out[dims.out_spatial[i]] = (num + strides[i] - 1) / strides[i];
    }
    return TensorShape::Build(out);
  }
};

std::vector<int64_t> Strides(const TensorShape& s) {
  std::vector<int64_t> st(s.dims(), 1);
  for (int d = s.dims() - 2; d >= 0; --d) st[d] = st[d + 1] * s.dim_size(d + 1);
  return st;
}

// The convolution of levels `lhs` (lhs_zp(b) at padded and dilated
// positions) with `rhs`, as TensorFlow's reference loops compute it:
// calls out(offset, acc, lhs batch, output feature) for each output
// element with the int32 sum of (lhs - lhs_zp(b)) * (rhs - rhs_zp(f)).
template <typename LhsAt, typename LhsZp, typename RhsZp, typename Out>
void Convolve(const ConvParams& p, const TensorShape& lhs_shape,
              const TensorShape& rhs_shape, const TensorShape& out_shape,
              const LhsAt& lhs_at, const qint8* rhs, const LhsZp& lhs_zp,
              const RhsZp& rhs_zp, const Out& out) {
  const ConvDims& d = p.dims;
  const size_t n = d.in_spatial.size();
  const std::vector<int64_t> ls = Strides(lhs_shape);
  const std::vector<int64_t> rs = Strides(rhs_shape);
  const std::vector<int64_t> os = Strides(out_shape);
  const int64_t out_batches = out_shape.dim_size(d.out_batch);
  const int64_t out_features = out_shape.dim_size(d.out_feature);
  const int64_t rhs_in = rhs_shape.dim_size(d.k_in_feature);
  const int64_t per_feature_group = out_features / p.feature_groups;
  const int64_t per_batch_group = out_features / p.batch_groups;
  int64_t out_spatial = 1, rhs_spatial = 1;
  for (size_t i = 0; i < n; ++i) {
    out_spatial *= out_shape.dim_size(d.out_spatial[i]);
    rhs_spatial *= rhs_shape.dim_size(d.k_spatial[i]);
  }
  std::vector<int64_t> oi(n), ki(n);
  for (int64_t ob = 0; ob < out_batches; ++ob) {
    for (int64_t of = 0; of < out_features; ++of) {
      const int64_t lb = (of / per_batch_group) * out_batches + ob;
      const int32_t lzp = lhs_zp(lb);
      const int32_t rzp = rhs_zp(of);
      for (int64_t o = 0; o < out_spatial; ++o) {
        int64_t rem = o,
                out_off = ob * os[d.out_batch] + of * os[d.out_feature];
        for (size_t i = n; i-- > 0;) {
          const int64_t size = out_shape.dim_size(d.out_spatial[i]);
          oi[i] = rem % size;
          rem /= size;
          out_off += oi[i] * os[d.out_spatial[i]];
        }
        int32_t acc = 0;
        for (int64_t r = 0; r < rhs_in; ++r) {
          const int64_t lf = (of / per_feature_group) * rhs_in + r;
          for (int64_t k = 0; k < rhs_spatial; ++k) {
            int64_t krem = k;
            int64_t rhs_off = of * rs[d.k_out_feature] + r * rs[d.k_in_feature];
            int64_t lhs_off = lb * ls[d.in_batch] + lf * ls[d.in_feature];
            bool real = true;
            for (size_t i = n; i-- > 0;) {
              const int64_t size = rhs_shape.dim_size(d.k_spatial[i]);
              ki[i] = krem % size;
              krem /= size;
              rhs_off += ki[i] * rs[d.k_spatial[i]];
              // Position in the padded, dilated lhs, then in the lhs.
              const int64_t pos = oi[i] * p.strides[i] +
                                  ki[i] * p.rhs_dilation[i] -
                                  p.padding_list[2 * i];
              if (pos < 0 || pos % p.lhs_dilation[i] != 0 ||
                  pos / p.lhs_dilation[i] >=
                      lhs_shape.dim_size(d.in_spatial[i])) {
                real = false;
              } else {
                lhs_off += (pos / p.lhs_dilation[i]) * ls[d.in_spatial[i]];
              }
            }
            const int32_t l = real ? lhs_at(lhs_off) : lzp;
            acc = WrapAdd(acc, WrapMul(WrapSub(l, lzp),
                                       WrapSub(rhs[rhs_off].value, rzp)));
          }
        }
        out(out_off, acc, lb, of);
      }
    }
  }
}

absl::Status CheckAxisIs(int32_t axis, int64_t dim, const char* what) {
  if (axis == -1 || axis == dim) return absl::OkStatus();
  return absl::InvalidArgumentError(what);
}

class UniformQuantizedConvolutionOp : public OpKernel {
 public:
  explicit UniformQuantizedConvolutionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(params_.Load(ctx));
    ctx->SetStatus(GetInt(ctx, "output_quantization_min_val", &min_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_max_val", &max_));
    ctx->SetStatus(CheckAxisAttr(ctx, "lhs_quantization_axis", false));
    ctx->SetStatus(GetInt(ctx, "rhs_quantization_axis", &rhs_axis_));
    ctx->SetStatus(GetInt(ctx, "output_quantization_axis", &out_axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& lhs_scales = ctx->input(2);
    const Tensor& rhs_scales = ctx->input(4);
    const Tensor& out_scales = ctx->input(6);
    static constexpr const char* kSides[] = {"lhs", "rhs", "output"};
    for (int k = 0; k < 3; ++k) {
      DFX_OP_REQUIRES(
          ctx, AllPositive(ctx->input(2 + 2 * k)),
          absl::InvalidArgumentError(absl::StrCat(
              kSides[k], " scales elements must be all positive.")));
    }
    ConvParams p = params_;
    absl::StatusOr<TensorShape> out_shape = p.Prepare(lhs.shape(), rhs.shape());
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    DFX_OP_REQUIRES(
        ctx,
        lhs_scales.shape().IsSameSize(ctx->input(3).shape()) &&
            lhs_scales.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "lhs scales/zero_points must be all scalar tensors. Given: ",
            lhs_scales.shape().DebugString(),
            ctx->input(3).shape().DebugString())));
    DFX_OP_REQUIRES_OK(
        ctx, CheckAxisIs(rhs_axis_, p.dims.k_out_feature,
                         "rhs_quantization_axis Attr must be -1 (per-tensor) "
                         "or dimension_numbers.kernel_output_feature_dimension "
                         "(per-channel)."));
    DFX_OP_REQUIRES_OK(ctx,
                       AxisAndShapeValid(rhs.shape(), rhs_scales.shape(),
                                         ctx->input(5).shape(), rhs_axis_));
    DFX_OP_REQUIRES_OK(ctx,
                       CheckAxisIs(out_axis_, p.dims.out_feature,
                                   "output_quantization_axis Attr must be -1 "
                                   "(per-tensor) or "
                                   "dimension_numbers.output_feature_dimension "
                                   "(per-channel)."));
    DFX_OP_REQUIRES_OK(ctx,
                       AxisAndShapeValid(*out_shape, out_scales.shape(),
                                         ctx->input(7).shape(), out_axis_));
    DFX_OP_REQUIRES(
        ctx, rhs_scales.dims() > 0 || out_scales.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "If rhs is per-tensor quantized, output must be also per-tensor "
            "quantized. Given output scales/zero_points of rank ",
            out_scales.dims())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    const int64_t features = out_shape->dim_size(p.dims.out_feature);
    const bool rhs_per_channel = rhs_scales.dims() != 0;
    const bool out_per_channel = out_scales.dims() != 0;
    const float lhs_scale = lhs_scales.data<float>()[0];
    const float* rs = rhs_scales.data<float>();
    const float* os = out_scales.data<float>();
    std::vector<Multiplier> ms(rhs_per_channel ? features : 1);
    for (size_t c = 0; c < ms.size(); ++c) {
      const double m = static_cast<double>(lhs_scale) *
                       rs[rhs_per_channel ? c : 0] /
                       os[out_per_channel ? c : 0];
      DFX_OP_REQUIRES_OK(
          ctx, QuantizeMultiplier(m, &ms[c].multiplier, &ms[c].shift));
    }
    const int32_t lzp = ctx->input(3).data<int32_t>()[0];
    const int32_t* rz = ctx->input(5).data<int32_t>();
    const int32_t* oz = ctx->input(7).data<int32_t>();
    const qint8* l = lhs.data<qint8>();
    qint32* out = output->data<qint32>();
    Convolve(
        p, lhs.shape(), rhs.shape(), *out_shape,
        [l](int64_t off) { return static_cast<int32_t>(l[off].value); },
        rhs.data<qint8>(), [lzp](int64_t) { return lzp; },
        [rz, rhs_per_channel](int64_t f) {
          return rz[rhs_per_channel ? f : 0];
        },
        [&](int64_t off, int32_t acc, int64_t, int64_t f) {
          const int64_t c = rhs_per_channel ? f : 0;
          out[off] = qint32(Requantize(
              acc, ms[c], 0, oz[out_per_channel ? f : 0], min_, max_));
        });
  }

 private:
  ConvParams params_;
  int32_t min_ = 0;
  int32_t max_ = 0;
  int32_t rhs_axis_ = -1;
  int32_t out_axis_ = -1;
};

class UniformQuantizedConvolutionHybridOp : public OpKernel {
 public:
  explicit UniformQuantizedConvolutionHybridOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(GetInt(ctx, "rhs_quantization_axis", &rhs_axis_));
    ctx->SetStatus(params_.Load(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& rhs_scales = ctx->input(2);
    DFX_OP_REQUIRES(ctx, AllPositive(rhs_scales),
                    absl::InvalidArgumentError(
                        "rhs scales elements must be all positive."));
    ConvParams p = params_;
    absl::StatusOr<TensorShape> out_shape = p.Prepare(lhs.shape(), rhs.shape());
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    DFX_OP_REQUIRES_OK(
        ctx, CheckAxisIs(rhs_axis_, p.dims.k_out_feature,
                         "rhs_quantization_axis Attr must be -1 (per-tensor) "
                         "or dimension_numbers.kernel_output_feature_dimension "
                         "(per-channel)."));
    DFX_OP_REQUIRES_OK(ctx,
                       AxisAndShapeValid(rhs.shape(), rhs_scales.shape(),
                                         ctx->input(3).shape(), rhs_axis_));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    // Each lhs batch quantized on its own (TensorFlow's AsymmetricQuantize
    // of the batch's elements).
    const int64_t batches = lhs.dim_size(p.dims.in_batch);
    const std::vector<int64_t> ls = Strides(lhs.shape());
    const int64_t batch_stride = ls[p.dims.in_batch];
    const int64_t per_batch = batches == 0 ? 0 : lhs.NumElements() / batches;
    std::vector<float> chunk(per_batch);
    std::vector<int32_t> chunk_levels(per_batch);
    std::vector<int32_t> levels(lhs.NumElements());
    std::vector<float> scales(batches);
    std::vector<int32_t> zps(batches);
    const float* x = lhs.data<float>();
    for (int64_t b = 0; b < batches; ++b) {
      // The batch's elements: every offset whose batch coordinate is b.
      std::vector<int64_t> offsets;
      offsets.reserve(per_batch);
      for (int64_t i = 0; i < lhs.NumElements(); ++i) {
        if ((i / batch_stride) % batches == b) offsets.push_back(i);
      }
      for (size_t j = 0; j < offsets.size(); ++j) chunk[j] = x[offsets[j]];
      AsymmetricQuantizeRow(chunk.data(), static_cast<int64_t>(offsets.size()),
                            chunk_levels.data(), &scales[b], &zps[b]);
      for (size_t j = 0; j < offsets.size(); ++j) {
        levels[offsets[j]] = chunk_levels[j];
      }
    }
    const bool per_channel = rhs_scales.dims() != 0;
    const float* rs = rhs_scales.data<float>();
    const int32_t* rz = ctx->input(3).data<int32_t>();
    float* out = output->data<float>();
    Convolve(
        p, lhs.shape(), rhs.shape(), *out_shape,
        [&levels](int64_t off) { return levels[off]; }, rhs.data<qint8>(),
        [&zps](int64_t b) { return zps[b]; },
        [rz, per_channel](int64_t f) { return rz[per_channel ? f : 0]; },
        [&](int64_t off, int32_t acc, int64_t b, int64_t f) {
          out[off] =
              static_cast<float>(acc) * scales[b] * rs[per_channel ? f : 0];
        });
  }

 private:
  ConvParams params_;
  int32_t rhs_axis_ = -1;
};

// RequantizePerChannel: qint32 levels of an NHWC tensor whose channel c
// spans [-m_c, m_c] (m_c the larger magnitude of its min and max) to Out
// levels of the requested range, as oneDNN's reorder with per-channel
// scales computes them: float(level) * scale_c, saturated, rounded half to
// even.
template <typename Out>
class RequantizePerChannelOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& mins = ctx->input(1);
    const Tensor& maxs = ctx->input(2);
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError(
                        "Current RequantizePerChannel operatorsupports 4D "
                        "tensors only."));
    const int64_t depth = mins.NumElements();
    DFX_OP_REQUIRES(ctx, maxs.NumElements() == depth,
                    absl::InvalidArgumentError(
                        absl::StrCat("input_max has incorrect size, expected ",
                                     depth, " was ", maxs.NumElements())));
    DFX_OP_REQUIRES(
        ctx, ctx->input(3).NumElements() == 1,
        absl::InvalidArgumentError("requested_output_min must be a scalar"));
    // TensorFlow checks requested_output_min twice and reads
    // requested_output_max unchecked.
    DFX_OP_REQUIRES(
        ctx, ctx->input(4).NumElements() == 1,
        absl::InvalidArgumentError("requested_output_max must be a scalar"));
    const float req_min = ctx->input(3).data<float>()[0];
    const float req_max = ctx->input(4).data<float>()[0];
    constexpr bool kSigned = std::is_same_v<Out, qint8>;
    if (kSigned) {
      DFX_OP_REQUIRES(
          ctx, req_min < 0.0f,
          absl::InvalidArgumentError(absl::StrCat(
              "If out_type is QINT8, requested_output_max must be non "
              "negative, got ",
              req_min)));
    }
    // TensorFlow reads a scale for each of the input's channels (past the
    // end when there are more channels than scales) and aborts on an empty
    // input.
    DFX_OP_REQUIRES(
        ctx, input.dim_size(3) <= depth && input.NumElements() > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "RequantizePerChannel needs a non-empty input with at most ", depth,
            " channels, got shape ", input.shape().DebugString(),
            " (TensorFlow reads out of bounds or aborts)")));
    const float factor = kSigned ? 127.0f : 255.0f;
    const float requested = std::max(std::abs(req_min), std::abs(req_max));
    std::vector<float> scales(depth);
    for (int64_t c = 0; c < depth; ++c) {
      const float m = std::max(std::abs(mins.data<float>()[c]),
                               std::abs(maxs.data<float>()[c]));
      scales[c] = factor * (m / requested / 2147483648.0f);
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const float lo = kSigned ? -128.0f : 0.0f;
    const float hi = kSigned ? 127.0f : 255.0f;
    const int64_t channels = input.dim_size(3);
    const qint32* in = input.data<qint32>();
    Out* out = output->data<Out>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      float v = static_cast<float>(in[i].value) * scales[i % channels];
      // NaN (an infinite scale times 0) saturates to the lowest level.
      v = std::isnan(v) ? lo : std::min(std::max(v, lo), hi);
      out[i] = Out(static_cast<int32_t>(std::nearbyint(v)));
    }
    Tensor* t = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &t));
    t->data<float>()[0] = req_min;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &t));
    t->data<float>()[0] = req_max;
  }
};

// RequantizationRangePerChannel: the range of a qint32 NHWC tensor whose
// channel c spans [-m_c, m_c]: the largest m_c * max|level| / 2^31 (at
// least FLT_MIN, at most clip_value_max), symmetric unless no level is
// negative.
class RequantizationRangePerChannelOp : public OpKernel {
 public:
  explicit RequantizationRangePerChannelOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("clip_value_max", &clip_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& mins = ctx->input(1);
    const Tensor& maxs = ctx->input(2);
    const int64_t depth = maxs.NumElements();
    DFX_OP_REQUIRES(ctx, mins.dims() >= 1 && mins.dim_size(0) == depth,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input_min has incorrect size, expected ", depth,
                        " was ", mins.dims() >= 1 ? mins.dim_size(0) : 0)));
    DFX_OP_REQUIRES(ctx, maxs.dims() >= 1 && maxs.dim_size(0) == depth,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input_max has incorrect size, expected ", depth,
                        " was ", maxs.dims() >= 1 ? maxs.dim_size(0) : 0)));
    DFX_OP_REQUIRES(
        ctx, mins.NumElements() == depth,
        absl::InvalidArgumentError(absl::StrCat(
            "input_min must have the same number of elements as input_max, "
            "got ",
            mins.NumElements(), " and ", depth)));
    DFX_OP_REQUIRES(ctx, input.NumElements() > 0,
                    absl::InvalidArgumentError("input must not be empty"));
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError("input must be in NHWC format"));
    DFX_OP_REQUIRES(ctx, input.dim_size(3) == depth,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must have same number of channels as length of "
                        "input_min: ",
                        input.dim_size(3), " vs ", depth)));
    std::vector<int32_t> lo(depth, std::numeric_limits<int32_t>::max());
    std::vector<int32_t> hi(depth, std::numeric_limits<int32_t>::min());
    const qint32* in = input.data<qint32>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      const int64_t c = i % depth;
      lo[c] = std::min(lo[c], in[i].value);
      hi[c] = std::max(hi[c], in[i].value);
    }
    // TensorFlow reads each channel's extreme levels through float (from
    // 2^31 - 64 up they become INT32_MIN), takes |INT32_MIN| as INT32_MIN
    // and the larger magnitude as an unsigned maximum (so INT32_MIN wins
    // and makes the range negative).
    auto abs32 = [](int32_t v) {
      return v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
    };
    float out = std::numeric_limits<float>::min();
    bool non_negative = true;
    for (int64_t c = 0; c < depth; ++c) {
      const int32_t min_level = Level(qint32(lo[c]));
      const int32_t max_level = Level(qint32(hi[c]));
      const int32_t abs_max =
          static_cast<int32_t>(std::max(abs32(min_level), abs32(max_level)));
      const float scale = std::max(std::abs(mins.data<float>()[c]),
                                   std::abs(maxs.data<float>()[c]));
      const float range = scale * static_cast<float>(abs_max) / 2147483648.0f;
      if (min_level < 0) non_negative = false;
      out = std::max(out, range);
    }
    if (out > clip_) out = clip_;
    Tensor* t = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &t));
    t->data<float>()[0] = non_negative ? 0.0f : -out;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &t));
    t->data<float>()[0] = out;
  }

 private:
  float clip_ = std::numeric_limits<float>::infinity();
};

// QuantizedConcatV2 as TensorFlow's oneDNN kernel computes it: 4-D inputs
// whose ranges agree within 1e-6 are copied and keep the first input's
// range; otherwise every input is requantized (in float, as QuantizedConcat
// does) into a range symmetric around zero for qint8 and [0, largest max]
// for quint8. As in TensorFlow, the k-th non-empty input is requantized
// from input k's range.
template <typename T>
class QuantizedConcatV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = (ctx->num_inputs() - 1) / 3;
    const Tensor& axis_t = ctx->input(n);
    DFX_OP_REQUIRES(ctx, axis_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "axis tensor should be a scalar integer, but got "
                        "shape ",
                        axis_t.shape().DebugString())));
    // TensorFlow's kernel reads the axis as int32 only and, given an int64
    // one, ends the step with Internal "Missing 0-th output".
    DFX_OP_REQUIRES(
        ctx, axis_t.dtype() == DT_INT32,
        absl::InternalError(
            "QuantizedConcatV2 with an int64 axis produces no "
            "output (as TensorFlow's kernel: Missing 0-th output)"));
    const int64_t axis_value = axis_t.data<int32_t>()[0];
    const Tensor& first = ctx->input(0);
    const int rank = first.dims();
    const int64_t axis = axis_value < 0 ? axis_value + rank : axis_value;
    DFX_OP_REQUIRES(
        ctx, axis >= 0 && axis < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "ConcatOp : Expected concatenating dimensions in the range [",
            -rank, ", ", rank, "), but got ", axis_value)));
    int64_t concat_size = 0;
    int empty = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      DFX_OP_REQUIRES(
          ctx, in.dims() == rank,
          absl::InvalidArgumentError(absl::StrCat(
              "ConcatOp : Ranks of all input tensors should match: shape[0] "
              "= ",
              first.shape().DebugString(), " vs. shape[", i,
              "] = ", in.shape().DebugString())));
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        DFX_OP_REQUIRES(
            ctx, in.dim_size(d) == first.dim_size(d),
            absl::InvalidArgumentError(absl::StrCat(
                "_MklConcatOp : Dimensions of inputs should match: shape[0][",
                d, "]= ", first.dim_size(d), " vs. shape[", i, "][", d,
                "] = ", in.dim_size(d))));
      }
      concat_size += in.dim_size(static_cast<int>(axis));
      if (in.NumElements() == 0) ++empty;
    }
    std::vector<std::pair<float, float>> ranges;
    for (int i = 0; i < n; ++i) {
      const Tensor& lo = ctx->input(n + 1 + i);
      const Tensor& hi = ctx->input(2 * n + 1 + i);
      DFX_OP_REQUIRES(
          ctx, lo.NumElements() > 0 && hi.NumElements() > 0,
          absl::InvalidArgumentError(absl::StrCat(
              "QuantizedConcatV2: input ", i, "'s range must not be empty")));
      ranges.emplace_back(lo.data<float>()[0], hi.data<float>()[0]);
    }
    bool copy = rank == 4 && empty < n;
    for (int i = 1; i < n && copy; ++i) {
      if (std::fabs(ranges[0].first - ranges[i].first) > 1.0e-6f ||
          std::fabs(ranges[0].second - ranges[i].second) > 1.0e-6f) {
        copy = false;
      }
    }
    float out_min = ranges[0].first;
    float out_max = ranges[0].second;
    if (!copy) {
      float lo = std::numeric_limits<float>::max();
      float hi = std::numeric_limits<float>::lowest();
      for (const auto& [a, b] : ranges) {
        lo = std::min(lo, a);
        hi = std::max(hi, b);
      }
      if (std::is_same_v<T, qint8>) {
        const float largest = std::max(std::abs(lo), std::abs(hi));
        out_min = -largest;
        out_max = largest;
      } else {
        out_min = 0.0f;
        out_max = hi;
      }
    }
    std::vector<int64_t> dims(first.shape().dim_sizes().begin(),
                              first.shape().dim_sizes().end());
    dims[axis] = concat_size;
    absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    T* out = output->data<T>();
    const int64_t out_row = outer == 0 ? 0 : output->NumElements() / outer;
    int64_t col = 0;
    int k = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      if (in.NumElements() == 0) continue;
      const std::pair<float, float>& range = ranges[k++];
      const bool same =
          copy || (range.first == out_min && range.second == out_max);
      const int64_t row = in.NumElements() / outer;
      const T* src = in.data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        T* dst = out + o * out_row + col;
        if (same) {
          std::copy(src + o * row, src + (o + 1) * row, dst);
        } else {
          quantized::RequantizeTensor<T, T>(src + o * row, row, range.first,
                                            range.second, out_min, out_max,
                                            dst);
        }
      }
      col += row;
    }
    Tensor* t = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &t));
    t->data<float>()[0] = out_min;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &t));
    t->data<float>()[0] = out_max;
  }
};

}  // namespace

void RegisterUquantKernels(KernelRegistry* registry) {
  RegisterKernel<UniformQuantizeOp<qint8>>(registry,
                                           KernelDefBuilder("UniformQuantize")
                                               .TypeConstraint<float>("Tin")
                                               .TypeConstraint<qint8>("Tout"));
  RegisterKernel<UniformQuantizeOp<quint8>>(
      registry, KernelDefBuilder("UniformQuantize")
                    .TypeConstraint<float>("Tin")
                    .TypeConstraint<quint8>("Tout"));
  RegisterKernel<UniformQuantizeOp<qint32>>(
      registry, KernelDefBuilder("UniformQuantize")
                    .TypeConstraint<float>("Tin")
                    .TypeConstraint<qint32>("Tout"));
  RegisterKernel<UniformDequantizeOp<qint8>>(
      registry, KernelDefBuilder("UniformDequantize")
                    .TypeConstraint<qint8>("Tin")
                    .TypeConstraint<float>("Tout"));
  RegisterKernel<UniformDequantizeOp<quint8>>(
      registry, KernelDefBuilder("UniformDequantize")
                    .TypeConstraint<quint8>("Tin")
                    .TypeConstraint<float>("Tout"));
  RegisterKernel<UniformDequantizeOp<qint32>>(
      registry, KernelDefBuilder("UniformDequantize")
                    .TypeConstraint<qint32>("Tin")
                    .TypeConstraint<float>("Tout"));
  RegisterKernel<UniformRequantizeOp<qint8>>(
      registry, KernelDefBuilder("UniformRequantize")
                    .TypeConstraint<qint8>("Tin")
                    .TypeConstraint<qint8>("Tout"));
  RegisterKernel<UniformRequantizeOp<qint32>>(
      registry, KernelDefBuilder("UniformRequantize")
                    .TypeConstraint<qint32>("Tin")
                    .TypeConstraint<qint8>("Tout"));
  RegisterKernel<UniformQuantizedAddOp>(
      registry,
      KernelDefBuilder("UniformQuantizedAdd").TypeConstraint<qint32>("T"));
  RegisterKernel<UniformQuantizedClipByValueOp>(
      registry, KernelDefBuilder("UniformQuantizedClipByValue")
                    .TypeConstraint<qint32>("T"));
  RegisterKernel<UniformQuantizedDotOp>(registry,
                                        KernelDefBuilder("UniformQuantizedDot")
                                            .TypeConstraint<qint8>("Tin")
                                            .TypeConstraint<qint32>("Tout"));
  RegisterKernel<UniformQuantizedConvolutionOp>(
      registry, KernelDefBuilder("UniformQuantizedConvolution")
                    .TypeConstraint<qint8>("Tin")
                    .TypeConstraint<qint32>("Tout"));
  RegisterKernel<UniformQuantizedConvolutionHybridOp>(
      registry, KernelDefBuilder("UniformQuantizedConvolutionHybrid")
                    .TypeConstraint<float>("Tlhs")
                    .TypeConstraint<qint8>("Trhs")
                    .TypeConstraint<float>("Tout"));
  RegisterKernel<UniformQuantizedDotHybridOp>(
      registry, KernelDefBuilder("UniformQuantizedDotHybrid")
                    .TypeConstraint<float>("Tlhs")
                    .TypeConstraint<qint8>("Trhs")
                    .TypeConstraint<float>("Tout"));
  RegisterKernel<RequantizePerChannelOp<qint8>>(
      registry, KernelDefBuilder("RequantizePerChannel")
                    .TypeConstraint<qint32>("T")
                    .TypeConstraint<qint8>("out_type"));
  RegisterKernel<RequantizePerChannelOp<quint8>>(
      registry, KernelDefBuilder("RequantizePerChannel")
                    .TypeConstraint<qint32>("T")
                    .TypeConstraint<quint8>("out_type"));
  for (DataType idx : {DT_INT32, DT_INT64}) {
    RegisterKernel<QuantizedConcatV2Op<qint8>>(
        registry, KernelDefBuilder("QuantizedConcatV2")
                      .TypeConstraint<qint8>("T")
                      .TypeConstraint("Tidx", {idx})
                      .HostMemory("axis"));
    RegisterKernel<QuantizedConcatV2Op<quint8>>(
        registry, KernelDefBuilder("QuantizedConcatV2")
                      .TypeConstraint<quint8>("T")
                      .TypeConstraint("Tidx", {idx})
                      .HostMemory("axis"));
  }
  RegisterKernel<RequantizationRangePerChannelOp>(
      registry, KernelDefBuilder("RequantizationRangePerChannel")
                    .TypeConstraint<qint32>("T"));
}

}  // namespace dfx

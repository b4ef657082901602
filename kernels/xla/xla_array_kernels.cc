// The xla1 family's data-movement kernels: XlaPad, XlaDynamicSlice,
// XlaDynamicUpdateSlice, XlaBroadcastHelper, XlaSharding,
// XlaSpmdShardToFullShape, XlaDequantize,
// XlaOptimizationBarrier and XlaReducePrecision, with XLA's semantics (its
// operation semantics page: negative and interior padding, start indices
// clamped into the operand, ReducePrecision's rounding). TensorFlow runs
// them on CPU by compiling them with XLA, which serves only XLA's element
// types: the kernels are registered for every type the OpDefs allow, as
// TensorFlow's, and refuse strings and the like with InvalidArgument, as
// TensorFlow does when it looks for the compiled kernel. Every element
// type XLA serves has a fixed size, so the moves copy bytes.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/xla/xla_array_util.h"
#include "runtime/op_kernel.h"

namespace dfx::xla_array {
namespace {

using array_internal::ReadInts;

// Returns `status` from the enclosing function unless `cond` holds.
#define DFX_XLA_REQUIRE(cond, status) \
  do {                                \
    if (!(cond)) return (status);     \
  } while (false)

// A rank-1 int tensor of `n` elements, as int64s.
absl::StatusOr<std::vector<int64_t>> ReadIndexVector(const Tensor& t,
                                                     const char* what, int n) {
  if (t.dims() != 1 || t.dim_size(0) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a 1D tensor of size ", n, ", got shape ",
                     t.shape().DebugString()));
  }
  return ReadInts(t);
}

std::vector<int64_t> RowMajorStrides(const TensorShape& s) {
  std::vector<int64_t> st(s.dims());
  int64_t acc = 1;
  for (int d = s.dims() - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s.dim_size(d);
  }
  return st;
}

absl::StatusOr<TensorShape> ShapeOf(const std::vector<int64_t>& dims) {
  return TensorShape::Build(dims);
}

class XlaPadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& in = ctx->input(0);
    DFX_RETURN_IF_ERROR(CheckXlaType(in.dtype()));
    const Tensor& value = ctx->input(1);
    DFX_XLA_REQUIRE(
        value.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "padding_value input must be scalar, found rank ", value.dims())));
    const int rank = in.dims();
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> low,
                         ReadIndexVector(ctx->input(2), "padding_low", rank));
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> high,
                         ReadIndexVector(ctx->input(3), "padding_high", rank));
    DFX_ASSIGN_OR_RETURN(
        std::vector<int64_t> interior,
        ReadIndexVector(ctx->input(4), "padding_interior", rank));
    std::vector<int64_t> out_dims(rank);
    for (int d = 0; d < rank; ++d) {
      // Beyond 2^40 the size arithmetic could overflow; no tensor is that
      // large anyway.
      constexpr int64_t kLimit = int64_t{1} << 40;
      DFX_XLA_REQUIRE(std::abs(low[d]) <= kLimit &&
                          std::abs(high[d]) <= kLimit && interior[d] <= kLimit,
                      absl::InvalidArgumentError(absl::StrCat(
                          "padding of dimension ", d, " is too large: ", low[d],
                          ", ", high[d], ", ", interior[d])));
      DFX_XLA_REQUIRE(
          interior[d] >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "padding_interior must contain only non-negative values, "
              "found ",
              interior[d])));
      const int64_t n = in.dim_size(d);
      out_dims[d] = n + low[d] + high[d] + (n > 0 ? interior[d] * (n - 1) : 0);
      DFX_XLA_REQUIRE(
          out_dims[d] >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "resulting padded dimension has negative size ", out_dims[d])));
    }
    DFX_ASSIGN_OR_RETURN(TensorShape shape, ShapeOf(out_dims));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    const int64_t total = out->NumElements();
    if (total == 0) return absl::OkStatus();
    const size_t size = DataTypeSize(in.dtype());
    const char* src = static_cast<const char*>(in.raw_data());
    const char* pad = static_cast<const char*>(value.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    const std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
    // An odometer over the output's indices.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t o = 0; o < total; ++o) {
      int64_t offset = 0;
      bool inside = true;
      for (int d = 0; d < rank && inside; ++d) {
        const int64_t p = idx[d] - low[d];
        const int64_t step = interior[d] + 1;
        if (p < 0 || p % step != 0 || p / step >= in.dim_size(d)) {
          inside = false;
        } else {
          offset += (p / step) * in_strides[d];
        }
      }
      std::memcpy(dst + o * size, inside ? src + offset * size : pad, size);
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < out_dims[d]) break;
        idx[d] = 0;
      }
    }
    return absl::OkStatus();
  }
};

// Copies the box of `box` dims at `in_start` of `in` to `out_start` of
// `out`, row by row (each row `box.back()` contiguous elements).
void CopyBox(const Tensor& in, const std::vector<int64_t>& in_start,
             Tensor* out, const std::vector<int64_t>& out_start,
             const std::vector<int64_t>& box) {
  int64_t count = 1;
  for (int64_t b : box) count *= b;
  if (count == 0) return;
  const int rank = static_cast<int>(box.size());
  const size_t size = DataTypeSize(in.dtype());
  const char* src = static_cast<const char*>(in.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  if (rank == 0) {
    std::memcpy(dst, src, size);
    return;
  }
  const std::vector<int64_t> is = RowMajorStrides(in.shape());
  const std::vector<int64_t> os = RowMajorStrides(out->shape());
  const int64_t row = box.back();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t r = 0; r < count / row; ++r) {
    int64_t io = 0, oo = 0;
    for (int d = 0; d < rank; ++d) {
      io += (in_start[d] + idx[d]) * is[d];
      oo += (out_start[d] + idx[d]) * os[d];
    }
    std::memcpy(dst + oo * size, src + io * size, row * size);
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < box[d]) break;
      idx[d] = 0;
    }
  }
}

class XlaDynamicSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& in = ctx->input(0);
    DFX_RETURN_IF_ERROR(CheckXlaType(in.dtype()));
    const int rank = in.dims();
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> start,
                         ReadIndexVector(ctx->input(1), "start_indices", rank));
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                         ReadIndexVector(ctx->input(2), "size_indices", rank));
    for (int d = 0; d < rank; ++d) {
      DFX_XLA_REQUIRE(
          sizes[d] >= 0 && sizes[d] <= in.dim_size(d),
          absl::InvalidArgumentError(absl::StrCat(
              "size_indices[", d, "] = ", sizes[d], " must be in [0, ",
              in.dim_size(d), "], the input's dimension")));
      // XLA clamps the start so that the slice lies inside the operand.
      start[d] = std::clamp<int64_t>(start[d], 0, in.dim_size(d) - sizes[d]);
    }
    DFX_ASSIGN_OR_RETURN(TensorShape shape, ShapeOf(sizes));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    CopyBox(in, start, out, std::vector<int64_t>(rank, 0), sizes);
    return absl::OkStatus();
  }
};

class XlaDynamicUpdateSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& in = ctx->input(0);
    const Tensor& update = ctx->input(1);
    DFX_RETURN_IF_ERROR(CheckXlaType(in.dtype()));
    const int rank = in.dims();
    DFX_XLA_REQUIRE(update.dims() == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "update must have the input's rank ", rank,
                        ", got shape ", update.shape().DebugString())));
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> start,
                         ReadIndexVector(ctx->input(2), "indices", rank));
    std::vector<int64_t> box(rank);
    for (int d = 0; d < rank; ++d) {
      box[d] = update.dim_size(d);
      DFX_XLA_REQUIRE(box[d] <= in.dim_size(d),
                      absl::InvalidArgumentError(absl::StrCat(
                          "update dimension ", d, " of size ", box[d],
                          " is larger than the input's, ", in.dim_size(d))));
      start[d] = std::clamp<int64_t>(start[d], 0, in.dim_size(d) - box[d]);
    }
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() > 0) {
      std::memcpy(out->raw_data(), in.raw_data(),
                  in.NumElements() * DataTypeSize(in.dtype()));
    }
    CopyBox(update, std::vector<int64_t>(rank, 0), out, start, box);
    return absl::OkStatus();
  }
};

// XlaBroadcastHelper: the operand of lower rank is reshaped to the other's
// rank, its dims at broadcast_dims and 1 elsewhere; equal ranks pass
// through, and so does a scalar operand with no broadcast_dims.
class XlaBroadcastHelperOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& dims_t = ctx->input(2);
    DFX_XLA_REQUIRE(dims_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "broadcast_dims must be a vector, got shape ",
                        dims_t.shape().DebugString())));
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> bdims, ReadInts(dims_t));
    if (bdims.empty() || lhs.dims() == rhs.dims()) {
      // A scalar broadcasts as it is.
      DFX_XLA_REQUIRE(
          lhs.dims() == rhs.dims() || lhs.dims() == 0 || rhs.dims() == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "If broadcast_dims is empty, both arguments must have equal "
              "rank; argument shapes, or at least their ranks, are: ",
              lhs.shape().DebugString(), " and ", rhs.shape().DebugString())));
      ctx->set_output(0, lhs);
      ctx->set_output(1, rhs);
      return absl::OkStatus();
    }
    const bool lhs_small = lhs.dims() < rhs.dims();
    const Tensor& small = lhs_small ? lhs : rhs;
    const Tensor& big = lhs_small ? rhs : lhs;
    DFX_XLA_REQUIRE(
        static_cast<int>(bdims.size()) == small.dims(),
        absl::InvalidArgumentError(absl::StrCat(
            "broadcast_dims must have size equal to the smaller argument "
            "rank; broadcast_dims: [",
            absl::StrJoin(bdims, ","), "]; argument shapes: ",
            lhs.shape().DebugString(), " and ", rhs.shape().DebugString())));
    std::vector<int64_t> sorted = bdims;
    std::sort(sorted.begin(), sorted.end());
    DFX_XLA_REQUIRE(
        sorted == bdims &&
            std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
        absl::InvalidArgumentError(absl::StrCat(
            "Duplicate or nonmonotonic dimension in broadcast_dims; "
            "broadcast_dims: [",
            absl::StrJoin(bdims, ","), "]")));
    std::vector<int64_t> shape(big.dims(), 1);
    for (size_t i = 0; i < bdims.size(); ++i) {
      DFX_XLA_REQUIRE(bdims[i] >= 0 && bdims[i] < big.dims(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid broadcast dimension (", bdims[i],
                          "); dimension must "
                          "be in [0, ",
                          big.dims(), ")")));
      shape[bdims[i]] = small.dim_size(static_cast<int>(i));
    }
    DFX_ASSIGN_OR_RETURN(TensorShape reshaped, ShapeOf(shape));
    DFX_ASSIGN_OR_RETURN(Tensor out, small.Reshaped(reshaped));
    ctx->set_output(lhs_small ? 0 : 1, out);
    ctx->set_output(lhs_small ? 1 : 0, big);
    return absl::OkStatus();
  }
};

// XlaSharding and XlaOptimizationBarrier: identities on one device.
class XlaIdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      DFX_OP_REQUIRES_OK(ctx, CheckXlaType(ctx->input(i).dtype()));
    }
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      ctx->set_output(i, ctx->input(i));
    }
  }
};

// XlaSpmdShardToFullShape on one device: the shard is the whole tensor,
// so its shape must be full_shape. (TensorFlow fails with Internal from
// its sharding remover when it is not.)
class XlaShardToFullOp : public OpKernel {
 public:
  explicit XlaShardToFullOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    TensorShapeProto proto;
    ctx->SetStatus(ctx->GetAttr("full_shape", &proto));
    auto shape = TensorShape::FromProto(proto);
    if (!shape.ok()) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "full_shape must be fully defined: ", shape.status().message())));
    } else {
      full_shape_ = *shape;
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckXlaType(in.dtype()));
    DFX_OP_REQUIRES(
        ctx, in.shape() == full_shape_,
        absl::InvalidArgumentError(absl::StrCat(
            "on one device the shard is the full tensor, but its shape ",
            in.shape().DebugString(), " is not full_shape ",
            full_shape_.DebugString())));
    ctx->set_output(0, in);
  }

 private:
  TensorShape full_shape_;
};

// XlaDequantize: each uint32 packs four uint8 levels, the most significant
// byte first; MIN_COMBINED maps a level q to q * scale + min_range with
// scale = bfloat16((max_range - min_range) / 255), every step rounded to
// bfloat16 as XLA's bfloat16 arithmetic does. The output is [d0, ...,
// dn * 4], or with transpose_output [dn * 4, dn-1, ..., d0].
class XlaDequantizeOp : public OpKernel {
 public:
  explicit XlaDequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    ctx->SetStatus(ctx->GetAttr("min_range", &min_));
    ctx->SetStatus(ctx->GetAttr("max_range", &max_));
    ctx->SetStatus(ctx->GetAttr("mode", &mode));
    ctx->SetStatus(ctx->GetAttr("transpose_output", &transpose_));
    if (mode != "MIN_COMBINED") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Only MIN_COMBINED mode is supported in xla::Dequantize Op."));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    // TensorFlow 2.21 crashes on a scalar.
    DFX_OP_REQUIRES(ctx, in.dims() >= 1,
                    absl::InvalidArgumentError(
                        "XlaDequantize needs an input of rank 1 or more"));
    const int rank = in.dims();
    std::vector<int64_t> dims(in.shape().dim_sizes().begin(),
                              in.shape().dim_sizes().end());
    dims.back() *= 4;
    if (transpose_) std::reverse(dims.begin(), dims.end());
    auto shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    using bf16 = Eigen::bfloat16;
    const bf16 scale = bf16((max_ - min_) / static_cast<float>(bf16(255.0f)));
    const bf16 lo = bf16(min_);
    const uint32_t* src = in.data<uint32_t>();
    bf16* dst = out->data<bf16>();
    const std::vector<int64_t> ost = RowMajorStrides(*shape);
    std::vector<int64_t> idx(rank, 0);
    for (int64_t f = 0; f < in.NumElements(); ++f) {
      for (int p = 0; p < 4; ++p) {
        const uint32_t q = (src[f] >> (8 * (3 - p))) & 0xff;
        const bf16 product =
            bf16(static_cast<float>(bf16(static_cast<float>(q))) *
                 static_cast<float>(scale));
        const bf16 v =
            bf16(static_cast<float>(product) + static_cast<float>(lo));
        int64_t o = 0;
        if (!transpose_) {
          o = f * 4 + p;
        } else {
          // Output dim 0 is the last input dim times 4, then the others
          // reversed.
          o = (idx[rank - 1] * 4 + p) * ost[0];
          for (int d = 0; d < rank - 1; ++d) o += idx[d] * ost[rank - 1 - d];
        }
        dst[o] = v;
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < in.dim_size(d)) break;
        idx[d] = 0;
      }
    }
  }

 private:
  float min_ = 0, max_ = 0;
  bool transpose_ = false;
};

// XLA's ReducePrecision on the bits of one element: round the mantissa to
// `mb` bits (to nearest, ties to even), then turn exponents beyond an
// `eb`-bit exponent's range into infinity or zero; NaNs stay as they are.
// Bits: the element's bit pattern, kE exponent and kM mantissa bits.
template <int kE, int kM>
uint64_t ReduceBits(uint64_t x, int eb, int mb) {
  const uint64_t exp_mask = ((uint64_t{1} << kE) - 1) << kM;
  const uint64_t man_mask = (uint64_t{1} << kM) - 1;
  const uint64_t sign = uint64_t{1} << (kE + kM);
  const bool nan = (x & exp_mask) == exp_mask && (x & man_mask) != 0;
  if (nan) return x;
  if (mb < kM) {
    const int shift = kM - mb;
    const uint64_t last = uint64_t{1} << shift;
    const uint64_t bias = ((x & last) >> shift) + (last >> 1) - 1;
    x = (x + bias) & ~(last - 1);
    // A carry out of the top bit cannot happen: the exponent saturates at
    // all ones (infinity) before it.
    x &= (sign << 1) - 1;
  }
  if (eb < kE) {
    const uint64_t e = x & exp_mask;
    const int64_t bias = (int64_t{1} << (kE - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (eb - 1)) - 1;
    const uint64_t max_e = static_cast<uint64_t>(bias + reduced_bias) << kM;
    const uint64_t min_e = static_cast<uint64_t>(bias - reduced_bias) << kM;
    if (e > max_e) {
      x = (x & sign) | exp_mask;
    } else if (e <= min_e) {
      x = x & sign;
    }
  }
  return x;
}

template <typename T, typename Bits, int kE, int kM>
void ReducePrecision(const Tensor& in, Tensor* out, int eb, int mb) {
  const T* src = in.data<T>();
  T* dst = out->data<T>();
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    Bits b;
    std::memcpy(&b, static_cast<const void*>(&src[i]), sizeof(b));
    b = static_cast<Bits>(ReduceBits<kE, kM>(b, eb, mb));
    std::memcpy(static_cast<void*>(&dst[i]), &b, sizeof(b));
  }
}

class XlaReducePrecisionOp : public OpKernel {
 public:
  explicit XlaReducePrecisionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("exponent_bits", &exponent_bits_));
    ctx->SetStatus(ctx->GetAttr("mantissa_bits", &mantissa_bits_));
    if (exponent_bits_ < 1 || mantissa_bits_ < 0) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "exponent_bits must be at least 1 and mantissa_bits at least 0, "
          "got ",
          exponent_bits_, " and ", mantissa_bits_)));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int eb = static_cast<int>(exponent_bits_);
    const int mb = static_cast<int>(mantissa_bits_);
    switch (in.dtype()) {
      case DT_FLOAT:
        ReducePrecision<float, uint32_t, 8, 23>(in, out, eb, mb);
        break;
      case DT_DOUBLE:
        ReducePrecision<double, uint64_t, 11, 52>(in, out, eb, mb);
        break;
      case DT_HALF:
        ReducePrecision<Eigen::half, uint16_t, 5, 10>(in, out, eb, mb);
        break;
      case DT_BFLOAT16:
        ReducePrecision<Eigen::bfloat16, uint16_t, 8, 7>(in, out, eb, mb);
        break;
      default:
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "XlaReducePrecision does not serve ", DataTypeString(in.dtype()))));
    }
  }

 private:
  int64_t exponent_bits_ = 0;
  int64_t mantissa_bits_ = 0;
};

}  // namespace

absl::Status CheckXlaType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
    case DT_BOOL:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "no XLA CPU kernel for type ", DataTypeString(dtype),
          " (TensorFlow compiles this op with XLA, which has no such type)"));
  }
}

void RegisterXlaArrayKernels(KernelRegistry* registry) {
  const DataTypeVector ints = {DT_INT32, DT_INT64};
  RegisterKernel<XlaPadOp>(registry, KernelDefBuilder("XlaPad")
                                         .TypeConstraint("Tindices", ints)
                                         .HostMemory("padding_low")
                                         .HostMemory("padding_high")
                                         .HostMemory("padding_interior"));
  RegisterKernel<XlaDynamicSliceOp>(registry,
                                    KernelDefBuilder("XlaDynamicSlice")
                                        .TypeConstraint("Tindices", ints)
                                        .HostMemory("start_indices")
                                        .HostMemory("size_indices"));
  RegisterKernel<XlaDynamicUpdateSliceOp>(
      registry, KernelDefBuilder("XlaDynamicUpdateSlice")
                    .TypeConstraint("Tindices", ints)
                    .HostMemory("indices"));
  RegisterKernel<XlaBroadcastHelperOp>(registry,
                                       KernelDefBuilder("XlaBroadcastHelper")
                                           .TypeConstraint("Tindices", ints)
                                           .HostMemory("broadcast_dims"));
  RegisterKernel<XlaIdentityOp>(registry, KernelDefBuilder("XlaSharding"));
  RegisterKernel<XlaIdentityOp>(registry,
                                KernelDefBuilder("XlaOptimizationBarrier"));
  RegisterKernel<XlaShardToFullOp>(registry,
                                   KernelDefBuilder("XlaSpmdShardToFullShape"));
  RegisterKernel<XlaDequantizeOp>(registry, KernelDefBuilder("XlaDequantize"));
  RegisterKernel<XlaReducePrecisionOp>(registry,
                                       KernelDefBuilder("XlaReducePrecision"));
  RegisterXlaDotKernels(registry);
  RegisterXlaConvKernels(registry);
  RegisterXlaScatterKernels(registry);
  RegisterXlaLinalgKernels(registry);
}

}  // namespace dfx::xla_array

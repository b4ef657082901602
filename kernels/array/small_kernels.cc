// Small kernels of the mutex family's second group: DecodePaddedRaw
// (tf.io.decode_raw with fixed_length), IsotonicRegression
// (tf.nn.isotonic_regression, pool-adjacent violators) and ParallelConcat
// (tf.parallel_stack), and StatefulStandardNormal (v1). Plain loops over
// typed pointers.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/array/array_util.h"
#include "kernels/random/philox.h"
#include "kernels/random/random_util.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

// ---------------------------------------------------------------------------
// DecodePaddedRaw

template <typename T>
class DecodePaddedRawOp : public OpKernel {
 public:
  explicit DecodePaddedRawOp(OpKernelConstruction* c) : OpKernel(c) {
    bool little_endian = true;
    c->SetStatus(c->GetAttr("little_endian", &little_endian));
    // dfx builds for little-endian hosts only.
    swap_ = !little_endian && sizeof(T) > 1;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& length = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, length.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat("k must be scalar, got shape ",
                                                length.shape().DebugString())));
    const int64_t fixed_length = length.scalar<int32_t>();
    constexpr int64_t kSize = sizeof(T);
    DFX_OP_REQUIRES(
        ctx, fixed_length % kSize == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "fixed_length (", fixed_length,
            ") must be a multiple of the size of out_type (", kSize, ")")));
    DFX_OP_REQUIRES(
        ctx, fixed_length > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "fixed_length (", fixed_length, ") must be greater than zero.")));
    TensorShape shape = input.shape();
    DFX_OP_REQUIRES_OK(ctx, shape.AddDim(fixed_length / kSize));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const std::string* in = input.data<std::string>();
    char* o = static_cast<char*>(out->raw_data());
    const int64_t n = input.NumElements();
    for (int64_t i = 0; i < n; ++i, o += fixed_length) {
      // Short strings are padded with zeros (TensorFlow's byte-swapping
      // path reads past their end instead).
      const int64_t have =
          std::min<int64_t>(static_cast<int64_t>(in[i].size()), fixed_length);
      std::memset(o, 0, fixed_length);
      if (!swap_) {
        std::memcpy(o, in[i].data(), have);
        continue;
      }
      const char* p = in[i].data();
      for (int64_t b = 0; b + kSize <= have; b += kSize) {
        std::reverse_copy(p + b, p + b + kSize, o + b);
      }
      // A trailing partial element: its bytes, swapped into place.
      const int64_t tail = have % kSize;
      if (tail != 0) {
        const int64_t b = have - tail;
        for (int64_t k = 0; k < tail; ++k) o[b + kSize - 1 - k] = p[b + k];
      }
    }
  }

 private:
  bool swap_ = false;
};

// ---------------------------------------------------------------------------
// IsotonicRegression

// Each row (the input flattened to [rows, last dim]) is fitted with the
// closest non-increasing sequence in the squared error: pools of adjacent
// elements, merged while a pool's mean exceeds the one before it. Means
// are kept in Out, as TensorFlow keeps them (a half's sum rounds to half
// at each step), so the results match it bit for bit.
template <typename In, typename Out>
class IsotonicRegressionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int64_t cols =
        input.dims() == 0 ? 1 : input.dim_size(input.dims() - 1);
    const int64_t n = input.NumElements();
    const int64_t rows = cols == 0 ? 0 : n / cols;
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    DFX_OP_REQUIRES(ctx, rows < kMax && cols < kMax,
                    absl::InvalidArgumentError("Tensor too large"));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    Tensor* segments = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, input.shape(), &segments));
    const In* x = input.data<In>();
    Out* y = output->data<Out>();
    int32_t* seg = segments->data<int32_t>();
    std::vector<Pool> pools;
    for (int64_t r = 0; r < rows; ++r) {
      pools.clear();
      const In* xr = x + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        const Out v = static_cast<Out>(xr[c]);
        pools.push_back(Pool{c, c + 1, v, v});
        while (pools.size() > 1 &&
               pools.back().mean > pools[pools.size() - 2].mean) {
          Pool& prev = pools[pools.size() - 2];
          prev.end = pools.back().end;
          prev.sum += pools.back().sum;
          prev.mean = prev.sum / static_cast<Out>(prev.end - prev.start);
          pools.pop_back();
        }
      }
      int32_t id = 0;
      for (const Pool& p : pools) {
        for (int64_t c = p.start; c < p.end; ++c) {
          y[r * cols + c] = p.mean;
          seg[r * cols + c] = id;
        }
        ++id;
      }
    }
  }

 private:
  struct Pool {
    int64_t start;
    int64_t end;
    Out sum;
    Out mean;
  };
};

// ---------------------------------------------------------------------------
// ParallelConcat

// Stacks N tensors of shape [1, ...] into the `shape` attr's tensor, input
// i as row i (TensorFlow rewrites the op into _ParallelConcatStart and one
// _ParallelConcatUpdate per input, whose checks these are). Rows past N
// are zeros (TensorFlow leaves them uninitialized).
class ParallelConcatOp : public OpKernel {
 public:
  explicit ParallelConcatOp(OpKernelConstruction* c) : OpKernel(c) {
    TensorShapeProto proto;
    c->SetStatus(c->GetAttr("shape", &proto));
    if (!c->status().ok()) return;
    absl::StatusOr<TensorShape> shape = TensorShape::FromProto(proto);
    if (!shape.ok()) {
      c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "shape attr must be fully defined: ", shape.status().message())));
      return;
    }
    shape_ = *std::move(shape);
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES(
        ctx, shape_.dims() >= 1,
        absl::InvalidArgumentError("value should be at least rank 1."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape_, &out));
    if (out->dtype() != DT_STRING && out->TotalBytes() > 0) {
      std::memset(out->raw_data(), 0, out->TotalBytes());
    }
    const int64_t row = shape_.dim_size(0) == 0
                            ? 0
                            : shape_.num_elements() / shape_.dim_size(0);
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& update = ctx->input(i);
      DFX_OP_REQUIRES(ctx, shape_.dim_size(0) > i,
                      absl::InvalidArgumentError(absl::StrCat(
                          "0th dimension of value = ", shape_.dim_size(0),
                          " must be greater than loc_ = ", i)));
      bool match = update.dims() == shape_.dims();
      for (int d = 1; match && d < shape_.dims(); ++d) {
        match = update.dim_size(d) == shape_.dim_size(d);
      }
      DFX_OP_REQUIRES(
          ctx, match,
          absl::InvalidArgumentError(absl::StrCat(
              "value and update shape doesn't match: ", shape_.DebugString(),
              " vs. ", update.shape().DebugString())));
      DFX_OP_REQUIRES(ctx, update.dim_size(0) == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "update shape doesn't match: ", shape_.DebugString(),
                          " vs. ", update.shape().DebugString())));
      array_internal::CopyElements(update, 0, out, i * row, row);
    }
  }

 private:
  TensorShape shape_;
};

// ---------------------------------------------------------------------------
// StatefulStandardNormal (v1)

// The V2 op's normal values, the algorithm read from the state variable's
// first word and the Philox counter and key from the three after it, in
// TensorFlow's order of checks (the shape first).
class StatefulStandardNormalV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<TensorShape> shape = random::ShapeFromTensor(ctx->input(1));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    absl::StatusOr<random::Philox> gen =
        Advance(ctx, static_cast<uint64_t>(out->NumElements()));
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    random::FillFloat(*ctx->device(), random::FloatDist::kNormal, *gen, out);
  }

 private:
  static absl::StatusOr<random::Philox> Advance(OpKernelContext* ctx,
                                                uint64_t outputs) {
    // A missing variable is NotFound, as TensorFlow's LookupResource says.
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVariable(ctx, 0));
    absl::MutexLock lock(var->mu());
    Tensor* state = var->tensor();
    if (!var->is_initialized() || state->dtype() != DT_INT64) {
      return absl::InvalidArgumentError(
          absl::StrCat("dtype of RNG state variable must be int64, not ",
                       DataTypeString(var->is_initialized() ? state->dtype()
                                                            : var->dtype())));
    }
    if (state->dims() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("RNG state must have one and only one dimension, not ",
                       state->dims()));
    }
    if (state->NumElements() < 1) {
      return absl::InvalidArgumentError("Size of tensor must be at least 1");
    }
    const int64_t alg = state->data<int64_t>()[0];
    if (alg == random::kAlgThreeFry) {
      return absl::UnimplementedError(
          "Non-XLA devices don't support the ThreeFry algorithm.");
    }
    if (alg != random::kAlgPhilox && alg != random::kAlgAutoSelect) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unsupported algorithm id: ", alg));
    }
    if (state->NumElements() < 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "For the Philox algorithm, the size of state must be at least 4; "
          "got ",
          state->NumElements()));
    }
    DFX_RETURN_IF_ERROR(EnsureUnshared(ctx, state));
    int64_t* s = state->data<int64_t>() + 1;
    const random::Philox gen = random::Philox::FromKeyCounter(
        static_cast<uint64_t>(s[2]), static_cast<uint64_t>(s[0]),
        static_cast<uint64_t>(s[1]));
    random::Philox next = gen;
    next.Skip(outputs * random::kReservedBlocksPerOutput);
    s[0] = static_cast<int64_t>(next.counter_lo64());
    s[1] = static_cast<int64_t>(next.counter_hi64());
    return gen;
  }
};

template <typename T>
void RegisterDecodePaddedRaw(KernelRegistry* r) {
  RegisterKernel<DecodePaddedRawOp<T>>(
      r, KernelDefBuilder("DecodePaddedRaw").TypeConstraint<T>("out_type"));
}

template <typename In, typename Out>
void RegisterIsotonic(KernelRegistry* r) {
  RegisterKernel<IsotonicRegressionOp<In, Out>>(
      r, KernelDefBuilder("IsotonicRegression")
             .TypeConstraint("T", {DataTypeToEnum<In>::value})
             .TypeConstraint("output_dtype", {DataTypeToEnum<Out>::value}));
}

}  // namespace

void RegisterSmallKernels(KernelRegistry* r) {
  // TensorFlow 2.21's CPU types (no half, though the OpDef allows it).
  RegisterDecodePaddedRaw<float>(r);
  RegisterDecodePaddedRaw<double>(r);
  RegisterDecodePaddedRaw<int32_t>(r);
  RegisterDecodePaddedRaw<uint16_t>(r);
  RegisterDecodePaddedRaw<uint8_t>(r);
  RegisterDecodePaddedRaw<int16_t>(r);
  RegisterDecodePaddedRaw<int8_t>(r);
  RegisterDecodePaddedRaw<int64_t>(r);
  RegisterDecodePaddedRaw<Eigen::bfloat16>(r);
  // Floats keep their type; 8- and 16-bit integers fit in float, 32- and
  // 64-bit ones go to double: TensorFlow's eight kernels.
  RegisterIsotonic<float, float>(r);
  RegisterIsotonic<double, double>(r);
  RegisterIsotonic<Eigen::half, Eigen::half>(r);
  RegisterIsotonic<Eigen::bfloat16, Eigen::bfloat16>(r);
  RegisterIsotonic<int8_t, float>(r);
  RegisterIsotonic<int16_t, float>(r);
  RegisterIsotonic<int32_t, double>(r);
  RegisterIsotonic<int64_t, double>(r);
  RegisterKernel<StatefulStandardNormalV1Op>(
      r, KernelDefBuilder("StatefulStandardNormal")
             .TypeConstraint("dtype",
                             {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}));
  RegisterKernel<ParallelConcatOp>(
      r,
      KernelDefBuilder("ParallelConcat")
          .TypeConstraint(
              "T", {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8,
                    DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL, DT_BFLOAT16,
                    DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64}));
}

}  // namespace dfx

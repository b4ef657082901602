// The mutex family's small kernels (ops in graph/ops/small_ops.cc):
// DecodePaddedRaw (tf.io.decode_raw with fixed_length), IsotonicRegression
// (tf.nn.isotonic_regression, pool-adjacent violators), ParallelConcat
// (tf.parallel_stack), StochasticCastToInt and StatefulStandardNormal (v1).
// Plain loops over typed pointers.
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
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

// ---------------------------------------------------------------------------
// StochasticCastToInt

// The uniform draws of one Philox block as TensorFlow's
// UniformDistribution<PhiloxRandom, In> makes them: four per block (two
// for double).
template <typename In>
struct Draws {
  static constexpr int kCount = 4;
  static void Make(const random::PhiloxBlock& w, In* out) {
    for (int k = 0; k < 4; ++k) {
      if constexpr (std::is_same_v<In, float>) {
        out[k] = random::Uint32ToFloat(w[k]);
      } else if constexpr (std::is_same_v<In, Eigen::half>) {
        out[k] = random::Uint16ToHalf(static_cast<uint16_t>(w[k]));
      } else {
        out[k] = random::Uint16ToBfloat16(static_cast<uint16_t>(w[k]));
      }
    }
  }
};
template <>
struct Draws<double> {
  static constexpr int kCount = 2;
  static void Make(const random::PhiloxBlock& w, double* out) {
    out[0] = random::Uint64ToDouble(w[0], w[1]);
    out[1] = random::Uint64ToDouble(w[2], w[3]);
  }
};

// Rounds each element down or up at random, up with probability its
// fractional part, saturating at Out's range (NaN is 0). The random bits
// are TensorFlow 2.21's (x86 build) bit for bit: its kernel is one Eigen
// expression evaluated on one thread, which draws one block per SIMD
// packet (its lanes reusing the block's draws in turn) wherever it
// vectorizes and one block per non-integer element elsewhere. It
// vectorizes only into int32: packets of 8 floats, and of 4 doubles two at
// a time (8 int32s); the last elements short of a whole unit go one by
// one. Values beyond int32's range TensorFlow converts with undefined
// behaviour (INT_MIN on x86); dfx saturates them.
template <typename In, typename Out>
class StochasticCastToIntOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<int> alg = CheckKeyCounterAlg(*ctx);
    DFX_OP_REQUIRES_OK(ctx, alg.status());
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    DFX_OP_REQUIRES_OK(ctx, *alg == random::kAlgPhilox
                                ? absl::OkStatus()
                                : random::UnsupportedAlg(*alg));
    // TensorFlow seeds PhiloxRandom(counter[0], key[0]): the counter word
    // is the key, the key the counter's high half.
    random::Philox gen(ctx->input(2).data<uint64_t>()[0],
                       ctx->input(1).data<uint64_t>()[0]);
    const In* x = input.data<In>();
    Out* y = out->data<Out>();
    const int64_t n = input.NumElements();
    constexpr bool kInt32 = std::is_same_v<Out, int32_t>;
    constexpr bool kFloat = std::is_same_v<In, float>;
    constexpr bool kDouble = std::is_same_v<In, double>;
    constexpr int64_t kPacket =
        kInt32 && kFloat ? 8 : (kInt32 && kDouble ? 4 : 1);
    constexpr int64_t kUnit = kInt32 && (kFloat || kDouble) ? 8 : 1;
    In draws[Draws<In>::kCount];
    int64_t i = 0;
    if constexpr (kPacket > 1) {
      for (const int64_t end = n / kUnit * kUnit; i < end; i += kPacket) {
        Draws<In>::Make(gen.Next(), draws);
        for (int64_t j = 0; j < kPacket; ++j) {
          y[i + j] = Round(x[i + j], draws[j % Draws<In>::kCount]);
        }
      }
    }
    for (; i < n; ++i) {
      const In v = x[i];
      if (Eigen::numext::isnan(v) ||
          v >= static_cast<In>(std::numeric_limits<Out>::max()) ||
          v <= static_cast<In>(std::numeric_limits<Out>::min()) ||
          Eigen::numext::floor(v) == v) {
        y[i] = Round(v, In(0));  // no draw
        continue;
      }
      Draws<In>::Make(gen.Next(), draws);
      y[i] = Round(v, draws[0]);
    }
  }

 private:
  // TensorFlow's checks of key, counter and alg (GetKeyCounterAlgFromInputs,
  // which compares the counter's length with the algorithm id): the
  // algorithm, auto-select as Philox. Only counter[0] is read, so one
  // word will do.
  static absl::StatusOr<int> CheckKeyCounterAlg(const OpKernelContext& ctx) {
    const Tensor& key = ctx.input(1);
    const Tensor& counter = ctx.input(2);
    const Tensor& alg_t = ctx.input(3);
    if (alg_t.dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("input 3 (0-based) must have shape [], not ",
                       alg_t.shape().DebugString()));
    }
    int alg = alg_t.data<int32_t>()[0];
    if (alg == random::kAlgAutoSelect) alg = random::kAlgPhilox;
    if (key.dims() != 1 || key.dim_size(0) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "key must have shape [1], not ", key.shape().DebugString(),
          ". (Note that batched keys are not supported yet.)"));
    }
    if (counter.dims() != 1 || counter.dim_size(0) < std::max(alg, 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "counter must be a vector with length at least ", alg,
          "; got shape: ", counter.shape().DebugString(),
          ". (Note that batched counters are not supported yet.)"));
    }
    return alg;
  }

  // TensorFlow's arithmetic in In (a half's sum rounds to half), then a
  // saturating conversion.
  static Out Round(In v, In r) {
    if (Eigen::numext::isnan(v)) return Out(0);
    const In hi = static_cast<In>(std::numeric_limits<Out>::max());
    const In lo = static_cast<In>(std::numeric_limits<Out>::min());
    In rounded;
    if (v >= hi) {
      rounded = hi;
    } else if (v <= lo) {
      rounded = lo;
    } else if (Eigen::numext::floor(v) == v) {
      rounded = v;
    } else if (v < In(0)) {
      rounded = Eigen::numext::floor(static_cast<In>(v + r));
    } else {
      rounded = Eigen::numext::floor(static_cast<In>(v + In(1)) - r);
    }
    const double d = static_cast<double>(rounded);
    if (d >= static_cast<double>(std::numeric_limits<Out>::max())) {
      return std::numeric_limits<Out>::max();
    }
    if (d <= static_cast<double>(std::numeric_limits<Out>::min())) {
      return std::numeric_limits<Out>::min();
    }
    return static_cast<Out>(d);
  }
};

template <typename In, typename... Outs>
void RegisterStochasticCast(KernelRegistry* r) {
  (RegisterKernel<StochasticCastToIntOp<In, Outs>>(
       r, KernelDefBuilder("StochasticCastToInt")
              .TypeConstraint("Tin", {DataTypeToEnum<In>::value})
              .TypeConstraint("Tout", {DataTypeToEnum<Outs>::value})),
   ...);
}

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
  RegisterStochasticCast<Eigen::half, int8_t, int16_t, int32_t>(r);
  RegisterStochasticCast<Eigen::bfloat16, int8_t, int16_t, int32_t>(r);
  RegisterStochasticCast<float, int8_t, int16_t, int32_t>(r);
  RegisterStochasticCast<double, int8_t, int16_t, int32_t>(r);
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

// The machinery every optimizer kernel shares: TrainingOp, one kernel class
// template that serves the four forms of an op (Apply*, ResourceApply*,
// SparseApply*, ResourceSparseApply*), and the drivers that run an
// optimizer's element-wise update over a dense variable or over the rows a
// sparse gradient names. An optimizer supplies only a Traits type:
//
//   struct AdamTraits {
//     static constexpr int kNumVars = 3;           // var, m, v: inputs 0..2
//     static constexpr bool kCheckInnerDim = false;  // sparse: TF's check
//     static constexpr bool kScatterIndexMessage = false;
//     // The update of one call: reads the scalar inputs by name.
//     template <typename T>
//     static auto Make(HyperParams<T>& hp, const OptimizerAttrs& attrs,
//                      bool sparse);
//   };
//
// Make returns a functor `void operator()(const Rows<C>& r) const` over C =
// ComputeType<T> that updates r.n elements of each of the kNumVars arrays
// (var first) from the gradient, with Eigen array expressions (vectorized).
// Drivers call it on at most kChunk elements at a time.
//
// Private to kernels/training/.
#ifndef DFX_KERNELS_TRAINING_TRAINING_UTIL_H_
#define DFX_KERNELS_TRAINING_TRAINING_UTIL_H_

#include "kernels/eigen_util.h"  // first: Eigen with EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/tsan.h"
#include "kernels/state/variable_util.h"
#include "runtime/op_kernel.h"
#include "runtime/types.h"

namespace dfx::training {

// The arithmetic type of an update: float for half, bfloat16 and float (a
// 16-bit variable is widened chunk by chunk and rounded once when stored),
// double for double, and the complex types themselves (TensorFlow's
// functors are the same expressions in complex arithmetic: square is z * z,
// sqrt and rsqrt the principal roots).
template <typename T>
struct ComputeTypeOf {
  using type = float;
};
template <>
struct ComputeTypeOf<double> {
  using type = double;
};
template <typename R>
struct ComputeTypeOf<std::complex<R>> {
  using type = std::complex<R>;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

// Complex arrays are mapped with a stride known only at run time (always
// 1), which keeps Eigen from vectorizing their updates: the complex packet
// code costs more to compile than the few complex optimizers are worth.
template <typename C>
using MapStride =
    std::conditional_t<Eigen::NumTraits<C>::IsComplex,
                       Eigen::InnerStride<Eigen::Dynamic>, Eigen::Stride<0, 0>>;
template <typename C>
using ArrayMap =
    Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>, Eigen::Unaligned,
               MapStride<C>>;
template <typename C>
using ConstArrayMap =
    Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, 1>, Eigen::Unaligned,
               MapStride<C>>;

// The map of n elements at p.
template <typename Map, typename P>
Map MapOf(P* p, int64_t n) {
  if constexpr (Eigen::NumTraits<typename Map::Scalar>::IsComplex) {
    return Map(p, n, Eigen::InnerStride<Eigen::Dynamic>(1));
  } else {
    return Map(p, n);
  }
}

// Functors see at most this many elements per call: the several passes of
// an update stay in L1, and scratch arrays fit on the stack.
inline constexpr int64_t kChunk = 512;
inline constexpr int kMaxVars = 4;

// One chunk of an update: n elements of each variable (var, then the
// slots in input order) and of the gradient.
template <typename C>
struct Rows {
  C* v[kMaxVars] = {};
  const C* g = nullptr;
  int64_t n = 0;

  ArrayMap<C> var(int k) const { return MapOf<ArrayMap<C>>(v[k], n); }
  ConstArrayMap<C> grad() const { return MapOf<ConstArrayMap<C>>(g, n); }
};

// A scratch array of one chunk, for values an update uses twice.
template <typename C>
struct Scratch {
  C data[kChunk];
  ArrayMap<C> map(int64_t n) { return MapOf<ArrayMap<C>>(data, n); }
};

// Boolean attrs some optimizers read; defaults as TensorFlow's.
struct OptimizerAttrs {
  bool use_nesterov = false;
  bool update_slots = true;
  bool multiply_linear_by_lr = false;
};

// Which values a hyper-parameter may take (TensorFlow checks some on CPU).
// kPositiveOrZero is sparse Ftrl's lr with multiply_linear_by_lr.
enum class Range {
  kAny,
  kPositive,
  kPositiveOrZero,
  kNonNegative,
  kNonPositive,
};

// The scalar hyper-parameters of one call, read by input name. Each Get
// checks that the input is a scalar (InvalidArgument "<what> is not a
// scalar: <shape>", or "... is not a positive scalar: ..." for a range) and
// converts it to ComputeType<T>; the first problem is kept in status(), and
// reads after it return 0.
template <typename T>
class HyperParams {
 public:
  using C = ComputeType<T>;

  HyperParams(OpKernelContext* ctx, const std::vector<std::string>& names)
      : ctx_(ctx), names_(names) {}

  C Get(absl::string_view name, absl::string_view what = {},
        Range range = Range::kAny) {
    const Tensor* t = Find(name, what);
    if (t == nullptr) return C(0);
    const C value = static_cast<C>(t->data<T>()[0]);
    if constexpr (Eigen::NumTraits<C>::IsComplex) {
      // No complex optimizer has a hyper-parameter with a range.
      if (range != Range::kAny) {
        status_ = absl::InternalError(
            absl::StrCat(name, " has a range, but the op updates complex"));
      }
      return value;
    } else {
      bool ok = true;
      const char* kind = "";
      const char* note = "";
      switch (range) {
        case Range::kAny: break;
        case Range::kPositive: ok = value > C(0); kind = "positive "; break;
        case Range::kPositiveOrZero:
          ok = value >= C(0);
          kind = "positive ";
          note = " (or zero if multiply_linear_by_lr is set)";
          break;
        case Range::kNonNegative:
          ok = value >= C(0);
          kind = "non-negative ";
          break;
        case Range::kNonPositive:
          ok = value <= C(0);
          kind = "non-positive ";
          break;
      }
      if (!ok) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat(what.empty() ? name : what, " is not a ", kind,
                         "scalar", note, ": ", t->shape().DebugString()));
        return C(0);
      }
      return value;
    }
  }

  // An int64 scalar input (AdagradDA's global_step).
  int64_t GetInt64(absl::string_view name) {
    const Tensor* t = Find(name, {});
    return t == nullptr ? 0 : t->data<int64_t>()[0];
  }

  const absl::Status& status() const { return status_; }

 private:
  const Tensor* Find(absl::string_view name, absl::string_view what) {
    if (!status_.ok()) return nullptr;
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] != name) continue;
      const Tensor& t = ctx_->input(static_cast<int>(i));
      if (t.dims() != 0) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat(what.empty() ? name : what, " is not a scalar: ",
                         t.shape().DebugString()));
        return nullptr;
      }
      return &t;
    }
    status_ = absl::InternalError(
        absl::StrCat("optimizer kernel reads an input '", name,
                     "' its op does not have"));
    return nullptr;
  }

  OpKernelContext* const ctx_;
  const std::vector<std::string>& names_;
  absl::Status status_;
};

// Runs `fn` over n elements of the k arrays `vars` and of `grad`, in order,
// chunk by chunk; 16-bit types are widened to float and rounded back.
template <typename T, typename Fn>
void UpdateSpan(const Fn& fn, int k, T* const* vars, const T* grad,
                int64_t n) {
  using C = ComputeType<T>;
  Rows<C> r;
  if constexpr (std::is_same_v<T, C>) {
    for (int64_t off = 0; off < n; off += kChunk) {
      r.n = std::min(kChunk, n - off);
      for (int j = 0; j < k; ++j) r.v[j] = vars[j] + off;
      r.g = grad + off;
      fn(r);
    }
  } else {
    C buf[kMaxVars][kChunk];
    C gbuf[kChunk];
    for (int j = 0; j < k; ++j) r.v[j] = buf[j];
    r.g = gbuf;
    for (int64_t off = 0; off < n; off += kChunk) {
      r.n = std::min(kChunk, n - off);
      for (int j = 0; j < k; ++j) {
        const T* src = vars[j] + off;
        for (int64_t i = 0; i < r.n; ++i) buf[j][i] = static_cast<C>(src[i]);
      }
      const T* gsrc = grad + off;
      for (int64_t i = 0; i < r.n; ++i) gbuf[i] = static_cast<C>(gsrc[i]);
      fn(r);
      for (int j = 0; j < k; ++j) {
        T* dst = vars[j] + off;
        for (int64_t i = 0; i < r.n; ++i) dst[i] = static_cast<T>(buf[j][i]);
      }
    }
  }
}

// The cost of updating one element of k arrays (for ParallelFor's blocks).
template <typename T>
Eigen::TensorOpCost ElementCost(int k) {
  return Eigen::TensorOpCost((k + 1) * sizeof(T), k * sizeof(T), 12 * k);
}

// A dense update of n elements, split over the device's intra-op pool when
// it is large. `hogwild`: the update may run under readers of the
// variables (see ScopedTsanIgnoreAccesses).
template <typename T, typename Fn>
void UpdateDense(const Device& device, const Fn& fn, int k, T* const* vars,
                 const T* grad, int64_t n, bool hogwild) {
  ParallelFor(device, n, ElementCost<T>(k), [&](int64_t begin, int64_t end) {
    ScopedTsanIgnoreAccesses ignore(hogwild);
    T* p[kMaxVars] = {};
    for (int j = 0; j < k; ++j) p[j] = vars[j] + begin;
    UpdateSpan(fn, k, p, grad + begin, end - begin);
  });
}

// A sparse update: for i in [0, n), row idx[i] of each variable (`inner`
// elements) is updated from row i of `grad`. REQUIRES: every idx[i] in
// [0, rows). Rows named twice are updated in index order: when the work is
// large it is split either by columns (each block walks all indices over its
// columns) or, for narrow rows, by ranges of variable rows (the indices are
// bucketed by range, stably, and each block updates its bucket in order),
// never by indices. `hogwild` as for UpdateDense.
template <typename T, typename Index, typename Fn>
void UpdateSparse(const Device& device, const Fn& fn, int k, T* const* vars,
                  const T* grad, const Index* idx, int64_t n, int64_t inner,
                  int64_t rows, bool hogwild) {
  auto update = [&](int64_t i, int64_t c0, int64_t c1) {
    ScopedTsanIgnoreAccesses ignore(hogwild);
    T* p[kMaxVars] = {};
    const int64_t row = static_cast<int64_t>(idx[i]);
    for (int j = 0; j < k; ++j) p[j] = vars[j] + row * inner + c0;
    UpdateSpan(fn, k, p, grad + i * inner + c0, c1 - c0);
  };
  const ThreadPool* pool = device.intra_op_pool();
  const bool parallel = n * inner >= kParallelEvalThreshold &&
                        pool != nullptr && pool->NumThreads() > 1 &&
                        pool->CurrentThreadId() < 0;
  if (!parallel) {
    for (int64_t i = 0; i < n; ++i) update(i, 0, inner);
    return;
  }
  if (inner >= kChunk) {
    Eigen::TensorOpCost per_column = ElementCost<T>(k) * static_cast<double>(n);
    device.eigen_cpu_device().parallelFor(
        inner, per_column, [&](Eigen::Index c0, Eigen::Index c1) {
          for (int64_t i = 0; i < n; ++i) update(i, c0, c1);
        });
    return;
  }
  const int64_t shards =
      std::min<int64_t>(rows, 4 * static_cast<int64_t>(pool->NumThreads()));
  auto shard_of = [&](int64_t i) {
    return static_cast<int64_t>(idx[i]) * shards / rows;
  };
  std::vector<int64_t> start(shards + 1, 0);
  for (int64_t i = 0; i < n; ++i) ++start[shard_of(i) + 1];
  for (int64_t s = 0; s < shards; ++s) start[s + 1] += start[s];
  std::vector<int64_t> order(n);
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < n; ++i) order[next[shard_of(i)]++] = i;
  const double per_shard = static_cast<double>(n) / shards;
  device.eigen_cpu_device().parallelFor(
      shards, ElementCost<T>(k) * (per_shard * inner),
      [&](Eigen::Index s0, Eigen::Index s1) {
        for (int64_t j = start[s0]; j < start[s1]; ++j) {
          update(order[j], 0, inner);
        }
      });
}

// The kernel of one optimizer op on variables of type T. Index is void for
// the dense forms and the indices' type for the sparse ones. The variables
// are inputs 0..kNumVars-1 (references or resource handles); the other
// inputs are read by name.
template <typename Traits, typename T, typename Index = void>
class TrainingOp : public OpKernel {
 public:
  static constexpr bool kSparse = !std::is_void_v<Index>;
  static constexpr int kNumVars = Traits::kNumVars;
  static_assert(kNumVars >= 1 && kNumVars <= kMaxVars);

  explicit TrainingOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("use_locking", &use_locking_));
    for (const auto& attr : c->op_def().attr()) {
      if (attr.name() == "use_nesterov") {
        c->SetStatus(c->GetAttr("use_nesterov", &attrs_.use_nesterov));
      } else if (attr.name() == "update_slots") {
        c->SetStatus(c->GetAttr("update_slots", &attrs_.update_slots));
      } else if (attr.name() == "multiply_linear_by_lr") {
        c->SetStatus(c->GetAttr("multiply_linear_by_lr",
                                &attrs_.multiply_linear_by_lr));
      }
    }
    for (const auto& arg : c->op_def().input_arg()) {
      if (arg.name() == "grad" || arg.name() == "delta") {
        grad_index_ = static_cast<int>(names_.size());
      } else if (arg.name() == "indices") {
        indices_index_ = static_cast<int>(names_.size());
      }
      names_.push_back(arg.name());
    }
    if (grad_index_ < 0 || (kSparse && indices_index_ < 0) ||
        c->num_inputs() < kNumVars) {
      c->SetStatus(absl::InternalError(absl::StrCat(
          "op ", c->def().op(), " does not have the inputs its kernel reads")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    static constexpr int kIds[kMaxVars] = {0, 1, 2, 3};
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(
        ctx, vars.Init(ctx, absl::MakeConstSpan(kIds, kNumVars), use_locking_));
    // Each variable's tensor, sharing its buffer, so a concurrent Assign that
    // replaces the variable's tensor cannot free the buffer under this
    // update. Without use_locking no lock is held here: take the variable's
    // lock shared for the copy.
    Tensor t[kNumVars];
    for (int j = 0; j < kNumVars; ++j) {
      if (use_locking_ || vars.ref(j).mu == nullptr) {
        t[j] = *vars.tensor(j);
      } else {
        absl::ReaderMutexLock lock(vars.ref(j).mu);
        t[j] = *vars.tensor(j);
      }
    }
    const DataType dtype = DataTypeToEnum<T>::value;
    for (int j = 0; j < kNumVars; ++j) {
      DFX_OP_REQUIRES(
          ctx, t[j].dtype() == dtype,
          absl::InvalidArgumentError(absl::StrCat(
              names_[j], " is a ", DataTypeString(t[j].dtype()),
              " variable, but the op updates ", DataTypeString(dtype))));
    }
    for (int j = 1; j < kNumVars; ++j) {
      DFX_OP_REQUIRES(
          ctx, t[j].shape() == t[0].shape(),
          absl::InvalidArgumentError(absl::StrCat(
              "var and ", names_[j], " do not have the same shape",
              t[0].shape().DebugString(), " ", t[j].shape().DebugString())));
    }
    if constexpr (kSparse) {
      DFX_OP_REQUIRES(ctx, t[0].dims() >= 1,
                      absl::InvalidArgumentError(
                          "var must be at least 1 dimensional"));
    }
    HyperParams<T> hp(ctx, names_);
    const auto fn = Traits::template Make<T>(hp, attrs_, kSparse);
    DFX_OP_REQUIRES_OK(ctx, hp.status());

    const Tensor& grad = ctx->input(grad_index_);
    const bool hogwild = vars.hogwild();
    T* p[kMaxVars] = {};
    for (int j = 0; j < kNumVars; ++j) p[j] = t[j].template data<T>();
    if constexpr (!kSparse) {
      DFX_OP_REQUIRES(
          ctx, grad.shape() == t[0].shape(),
          absl::InvalidArgumentError(absl::StrCat(
              "var and ", names_[grad_index_],
              " do not have the same shape", t[0].shape().DebugString(), " ",
              grad.shape().DebugString())));
      UpdateDense(*ctx->device(), fn, kNumVars, p, grad.data<T>(),
                  t[0].NumElements(), hogwild);
    } else {
      const Tensor& indices = ctx->input(indices_index_);
      DFX_OP_REQUIRES_OK(ctx, CheckSparseShapes(t[0], grad, indices));
      const int64_t n = indices.dim_size(0);
      const int64_t rows = t[0].dim_size(0);
      const int64_t inner = rows == 0 ? 0 : t[0].NumElements() / rows;
      const Index* idx = indices.data<Index>();
      for (int64_t i = 0; i < n; ++i) {
        if (idx[i] >= 0 && idx[i] < rows) continue;
        ctx->SetStatus(absl::InvalidArgumentError(
            Traits::kScatterIndexMessage
                ? absl::StrCat("indices[", i, "] = ", idx[i],
                               " is not in [0, ", rows, ")")
                : absl::StrCat("Index ", idx[i], " at offset ", i,
                               " in indices is out of range")));
        return;
      }
      if (inner > 0) {
        UpdateSparse(*ctx->device(), fn, kNumVars, p, grad.data<T>(), idx, n,
                     inner, rows, hogwild);
      }
    }
    if (IsRefType(input_type(0))) ctx->set_output_ref(0, vars.ref(0));
  }

 private:
  // grad must be indices.shape[0] + var.shape[1:], indices a vector.
  absl::Status CheckSparseShapes(const Tensor& var, const Tensor& grad,
                                 const Tensor& indices) const {
    if (indices.dims() != 1) {
      return absl::InvalidArgumentError("indices must be one-dimensional");
    }
    if (grad.dims() != var.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "grad must have the rank of var, ", var.dims(), ", got shape ",
          grad.shape().DebugString(), " for var of shape ",
          var.shape().DebugString()));
    }
    int64_t inner = 1;
    for (int d = 1; d < var.dims(); ++d) {
      if (var.dim_size(d) != grad.dim_size(d)) {
        return absl::InvalidArgumentError(
            absl::StrCat("var and grad must match in dimension ", d));
      }
      inner *= var.dim_size(d);
    }
    if (grad.dim_size(0) != indices.dim_size(0)) {
      return absl::InvalidArgumentError(
          "grad must be the same size as indices in the first dimension.");
    }
    if (Traits::kCheckInnerDim && inner <= 0) {
      return absl::InvalidArgumentError(
          "Inner dimension should be greater than zero.");
    }
    return absl::OkStatus();
  }

  bool use_locking_ = false;
  OptimizerAttrs attrs_;
  std::vector<std::string> names_;  // input names, in order
  int grad_index_ = -1;
  int indices_index_ = -1;
};

// Which forms of an op a registration covers.
enum Forms : unsigned {
  kRef = 1,             // Apply<Name>
  kResource = 2,        // ResourceApply<Name>
  kSparseRef = 4,       // SparseApply<Name>
  kSparseResource = 8,  // ResourceSparseApply<Name>
  kDense = kRef | kResource,
  kSparse = kSparseRef | kSparseResource,
  kAll = kDense | kSparse,
};

// Registers the kernels of `name` ("Adam") for variables of type T, in the
// forms `forms` (sparse ones for int32 and int64 indices).
template <typename Traits, typename T>
void RegisterOptimizer(KernelRegistry* r, const std::string& name,
                       unsigned forms) {
  auto dense = [&](const std::string& op) {
    RegisterKernel<TrainingOp<Traits, T>>(
        r, KernelDefBuilder(op).template TypeConstraint<T>("T"));
  };
  auto sparse = [&](const std::string& op) {
    RegisterKernel<TrainingOp<Traits, T, int32_t>>(
        r, KernelDefBuilder(op)
               .template TypeConstraint<T>("T")
               .template TypeConstraint<int32_t>("Tindices"));
    RegisterKernel<TrainingOp<Traits, T, int64_t>>(
        r, KernelDefBuilder(op)
               .template TypeConstraint<T>("T")
               .template TypeConstraint<int64_t>("Tindices"));
  };
  if (forms & kRef) dense("Apply" + name);
  if (forms & kResource) dense("ResourceApply" + name);
  if (forms & kSparseRef) sparse("SparseApply" + name);
  if (forms & kSparseResource) sparse("ResourceSparseApply" + name);
}

// For the float types TensorFlow registers most optimizers for on CPU.
template <typename Traits>
void RegisterFloatTypes(KernelRegistry* r, const std::string& name,
                        unsigned forms) {
  RegisterOptimizer<Traits, Eigen::half>(r, name, forms);
  RegisterOptimizer<Traits, Eigen::bfloat16>(r, name, forms);
  RegisterOptimizer<Traits, float>(r, name, forms);
  RegisterOptimizer<Traits, double>(r, name, forms);
}

// For the complex types TensorFlow registers some optimizers for on CPU.
template <typename Traits>
void RegisterComplexTypes(KernelRegistry* r, const std::string& name,
                          unsigned forms) {
  RegisterOptimizer<Traits, std::complex<float>>(r, name, forms);
  RegisterOptimizer<Traits, std::complex<double>>(r, name, forms);
}

// The registration of each family (kernels/training/*_kernels.cc).
void RegisterSgdKernels(KernelRegistry* r);
void RegisterAdagradKernels(KernelRegistry* r);
void RegisterAdamKernels(KernelRegistry* r);
void RegisterRmsPropFtrlKernels(KernelRegistry* r);

}  // namespace dfx::training

#endif  // DFX_KERNELS_TRAINING_TRAINING_UTIL_H_

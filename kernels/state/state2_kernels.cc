// The state2 family's row updates, counters and step-scoped variables:
// InplaceUpdate/Add/Sub, CountUpTo and ResourceCountUpTo, Empty,
// TemporaryVariable and DestroyTemporaryVariable; RegisterState2Kernels
// adds state2_assign_kernels.cc's too.
//
// Inplace* return an updated copy of x: TensorFlow writes into x's buffer
// even when others share it, which no graph can rely on.
#include "kernels/state/state2_kernels.h"

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"
#include "kernels/kernels.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"

namespace dfx::state2_internal {
namespace {

enum class RowOp { kUpdate, kAdd, kSub };

template <typename T, RowOp kOp>
void ApplyRows(const int32_t* rows, int64_t n, int64_t num_rows,
               int64_t row_size, const T* v, T* y) {
  for (int64_t j = 0; j < n; ++j) {
    // TensorFlow wraps every index into [0, num_rows).
    const int64_t r = (rows[j] % num_rows + num_rows) % num_rows;
    T* dst = y + r * row_size;
    const T* src = v + j * row_size;
    for (int64_t c = 0; c < row_size; ++c) {
      if constexpr (kOp == RowOp::kAdd) {
        dst[c] += src[c];
      } else {
        dst[c] -= src[c];
      }
    }
  }
}

bool IsNumber(DataType dtype) {
  return dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128 ||
         (dtype != DT_BOOL && VisitNumericType(dtype, []<typename T>() {}));
}

template <RowOp kOp>
class InplaceOp : public OpKernel {
 public:
  explicit InplaceOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& i = ctx->input(1);
    const Tensor& v = ctx->input(2);
    DFX_OP_REQUIRES(ctx, i.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "i must be a vector. ", i.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, x.dims() == v.dims(),
        absl::InvalidArgumentError(absl::StrCat(
            "x and v shape doesn't match (ranks differ): ",
            x.shape().DebugString(), " vs. ", v.shape().DebugString())));
    for (int d = 1; d < x.dims(); ++d) {
      DFX_OP_REQUIRES(
          ctx, x.dim_size(d) == v.dim_size(d),
          absl::InvalidArgumentError(absl::StrCat(
              "x and v shape doesn't match at index ", d, " : ",
              x.shape().DebugString(), " vs. ", v.shape().DebugString())));
    }
    DFX_OP_REQUIRES(
        ctx, x.dims() >= 1 && i.dim_size(0) == v.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "i and x shape doesn't match at index 0: ", i.shape().DebugString(),
            " vs. ", v.shape().DebugString())));
    const DataType dtype = x.dtype();
    // TensorFlow's kernels: the number types, and bool and string for
    // InplaceUpdate.
    const bool supported =
        IsNumber(dtype) ||
        (kOp == RowOp::kUpdate && (dtype == DT_BOOL || dtype == DT_STRING));
    DFX_OP_REQUIRES(ctx, supported,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Unsupported data type: ", DataTypeString(dtype))));
    absl::StatusOr<Tensor> y = CopyTensor(ctx, x);
    DFX_OP_REQUIRES_OK(ctx, y.status());
    if (x.NumElements() > 0 && v.NumElements() > 0) {
      const int64_t num_rows = x.dim_size(0);
      const int64_t row_size = x.NumElements() / num_rows;
      const int32_t* rows = i.data<int32_t>();
      const int64_t n = i.NumElements();
      if constexpr (kOp == RowOp::kUpdate) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t r = (rows[j] % num_rows + num_rows) % num_rows;
          array_internal::CopyElements(v, j * row_size, &*y, r * row_size,
                                       row_size);
        }
      } else {
        auto apply = [&]<typename T>() {
          if constexpr (!std::is_same_v<T, bool>) {  // rejected above
            ApplyRows<T, kOp>(rows, n, num_rows, row_size, v.data<T>(),
                              y->data<T>());
          }
        };
        if (dtype == DT_COMPLEX64) {
          apply.template operator()<std::complex<float>>();
        } else if (dtype == DT_COMPLEX128) {
          apply.template operator()<std::complex<double>>();
        } else {
          VisitNumericType(dtype, apply);
        }
      }
    }
    ctx->set_output(0, *std::move(y));
  }
};

template <typename T>
absl::Status CheckCount(const Tensor& t, int64_t limit) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("input is not a scalar: ", t.shape().DebugString()));
  }
  if (static_cast<int64_t>(t.scalar<T>()) >= limit) {
    return absl::OutOfRangeError(absl::StrCat("Reached limit of ", limit));
  }
  return absl::OkStatus();
}

// CountUpTo (a reference): increments in place under the variable's lock.
template <typename T>
class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("limit", &limit_));
  }

  void Compute(OpKernelContext* ctx) override {
    T before = 0;
    {
      VariableInputs vars;
      DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, /*use_locking=*/true));
      Tensor* t = vars.tensor(0);
      DFX_OP_REQUIRES_OK(ctx, CheckCount<T>(*t, limit_));
      before = t->scalar<T>();
      t->scalar<T>() = before + 1;
    }
    ctx->set_output(0, Tensor::Scalar<T>(before));
  }

 private:
  int64_t limit_ = 0;
};

// ResourceCountUpTo: the variable gets a new buffer, so readers keep the
// value they read.
template <typename T>
class ResourceCountUpToOp : public OpKernel {
 public:
  explicit ResourceCountUpToOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("limit", &limit_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Var>> var = LookupVariable(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, var.status());
    absl::MutexLock lock((*var)->mu());
    DFX_OP_REQUIRES(
        ctx, (*var)->is_initialized(),
        absl::FailedPreconditionError(absl::StrCat(
            "Attempting to use uninitialized value ", def().input(0))));
    Tensor* t = (*var)->tensor();
    DFX_OP_REQUIRES(
        ctx, t->dtype() == DataTypeToEnum<T>::value,
        absl::InvalidArgumentError(absl::StrCat(
            "The variable is ", DataTypeString(t->dtype()), ", the op's T ",
            DataTypeString(DataTypeToEnum<T>::value))));
    DFX_OP_REQUIRES_OK(ctx, CheckCount<T>(*t, limit_));
    const T before = t->scalar<T>();
    *t = Tensor::Scalar<T>(before + 1);
    ctx->set_output(0, Tensor::Scalar<T>(before));
  }

 private:
  int64_t limit_ = 0;
};

// Empty: zeros whether or not `init` asks for them (TensorFlow leaves the
// memory as it finds it then, which no graph can rely on).
class EmptyOp : public OpKernel {
 public:
  explicit EmptyOp(OpKernelConstruction* c) : OpKernel(c) {
    bool init = false;
    c->SetStatus(c->GetAttr("init", &init));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "shape must be a vector of int32, got shape ",
                        shape_t.shape().DebugString())));
    TensorShape shape;
    for (int64_t k = 0; k < shape_t.NumElements(); ++k) {
      const int64_t d = shape_t.data<int32_t>()[k];
      DFX_OP_REQUIRES(ctx, d >= 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("Dimension ", d, " must be >= 0")));
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    array_internal::SetZero(*ctx->device(), out);
  }
};

absl::StatusOr<ScopedStepContainer*> StepOf(OpKernelContext* ctx) {
  if (ctx->step_container() == nullptr) {
    return absl::InternalError(
        "no per-step container: a temporary variable lives one step, and "
        "this kernel runs outside of one");
  }
  return ctx->step_container();
}

// The name of a temporary variable in the step's container: var_name and
// the loop frame and iteration the node runs in, as TensorFlow names it, so
// every iteration of a loop has a variable of its own.
std::string TemporaryName(OpKernelContext* ctx, const std::string& var_name) {
  const FrameAndIter at = ctx->frame_iter();
  return absl::StrCat(var_name, "/frame:", at.frame_id, "/iter:", at.iter_id);
}

// A LegacyVar in the step's container, named by var_name (the node's name
// when empty) and the node's frame and iteration; it lives until
// DestroyTemporaryVariable or the step's end.
// Zeros, where TensorFlow leaves the memory as it finds it.
class TemporaryVariableOp : public OpKernel {
 public:
  explicit TemporaryVariableOp(OpKernelConstruction* c) : OpKernel(c) {
    TensorShapeProto shape;
    c->SetStatus(c->GetAttr("shape", &shape));
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    c->SetStatus(c->GetAttr("var_name", &var_name_));
    if (var_name_.empty()) var_name_ = c->def().name();
    if (!c->status().ok()) return;
    std::vector<int64_t> dims;
    for (const auto& d : shape.dim()) dims.push_back(d.size());
    absl::StatusOr<TensorShape> built = TensorShape::Build(dims);
    if (shape.unknown_rank() || !built.ok()) {
      c->SetStatus(absl::InvalidArgumentError(
          "TemporaryVariable needs a fully defined shape"));
      return;
    }
    shape_ = *built;
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<ScopedStepContainer*> step = StepOf(ctx);
    DFX_OP_REQUIRES_OK(ctx, step.status());
    absl::StatusOr<Tensor> value =
        Tensor::Allocate(ctx->allocator(), dtype_, shape_);
    DFX_OP_REQUIRES_OK(ctx, value.status());
    array_internal::SetZero(*ctx->device(), &*value);
    auto var = std::make_shared<LegacyVar>(dtype_);
    {
      absl::MutexLock lock(var->mu());
      *var->tensor() = *std::move(value);
      var->set_initialized();
    }
    DFX_OP_REQUIRES_OK(
        ctx, ctx->resource_manager()->Create(
                 (*step)->name(), TemporaryName(ctx, var_name_), var));
    // The step's container keeps the variable alive while the reference is
    // used.
    ctx->set_output_ref(0, TensorRef{var->tensor(), var->mu()});
  }

 private:
  TensorShape shape_;
  DataType dtype_ = DT_INVALID;
  std::string var_name_;
};

class DestroyTemporaryVariableOp : public OpKernel {
 public:
  explicit DestroyTemporaryVariableOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("var_name", &var_name_));
    if (c->status().ok() && var_name_.empty()) {
      c->SetStatus(absl::InvalidArgumentError("Missing var_name attribute"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<ScopedStepContainer*> step = StepOf(ctx);
    DFX_OP_REQUIRES_OK(ctx, step.status());
    const TensorRef ref = ctx->input_ref(0);
    Tensor value;
    {
      absl::ReaderMutexLock lock(ref.mu);
      value = *ref.tensor;
    }
    ctx->set_output(0, std::move(value));
    DFX_OP_REQUIRES_OK(ctx, ctx->resource_manager()->Delete(
                                (*step)->name(), TemporaryName(ctx, var_name_),
                                LegacyVar::kTypeName));
  }

 private:
  std::string var_name_;
};

}  // namespace

}  // namespace dfx::state2_internal

namespace dfx {

void RegisterState2Kernels(KernelRegistry* r) {
  using namespace state2_internal;  // NOLINT: this family's kernels
  RegisterAssignKernels(r);
  // No type constraint: TensorFlow's kernels take every type and reject
  // the ones without the arithmetic when they run.
  RegisterKernel<InplaceOp<RowOp::kUpdate>>(r,
                                            KernelDefBuilder("InplaceUpdate"));
  RegisterKernel<InplaceOp<RowOp::kAdd>>(r, KernelDefBuilder("InplaceAdd"));
  RegisterKernel<InplaceOp<RowOp::kSub>>(r, KernelDefBuilder("InplaceSub"));
  RegisterKernel<CountUpToOp<int32_t>>(
      r, KernelDefBuilder("CountUpTo").TypeConstraint<int32_t>("T"));
  RegisterKernel<CountUpToOp<int64_t>>(
      r, KernelDefBuilder("CountUpTo").TypeConstraint<int64_t>("T"));
  RegisterKernel<ResourceCountUpToOp<int32_t>>(
      r, KernelDefBuilder("ResourceCountUpTo").TypeConstraint<int32_t>("T"));
  RegisterKernel<ResourceCountUpToOp<int64_t>>(
      r, KernelDefBuilder("ResourceCountUpTo").TypeConstraint<int64_t>("T"));
  RegisterKernel<EmptyOp>(r, KernelDefBuilder("Empty").TypeConstraint(
                                 "dtype", array_internal::MovableTypes()));
  RegisterKernel<TemporaryVariableOp>(r, KernelDefBuilder("TemporaryVariable"));
  RegisterKernel<DestroyTemporaryVariableOp>(
      r, KernelDefBuilder("DestroyTemporaryVariable"));
}

}  // namespace dfx

// XlaReduce, XlaVariadicReduce, XlaVariadicReduceV2, XlaReduceWindow and
// XlaSelectAndScatter: XLA's Reduce, ReduceWindow and SelectAndScatter on
// the CPU. Elements move as bytes; the function attr runs through
// ScalarFunction, whose fast path (one Add/Mul/Maximum/Minimum/LogicalAnd/
// LogicalOr, or one comparison for select) skips the function runtime.
#include <cstring>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/int_elements.h"
#include "kernels/kernels.h"
#include "kernels/xla/xla_reduce_function.h"

namespace dfx::xla2 {
namespace {

char* Bytes(Tensor& t) { return static_cast<char*>(t.raw_data()); }
const char* Bytes(const Tensor& t) {
  return static_cast<const char*>(t.raw_data());
}

absl::Status CheckPlain(DataType dtype) {
  if (IsPlainType(dtype)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("XLA ops take no ", DataTypeString(dtype), " tensors"));
}

// Reduces operands into accumulators: the fast path for one operand, the
// function for any number.
class Reducer {
 public:
  Reducer(const ScalarFunction* f, const DataTypeVector& types)
      : f_(f), types_(types) {
    if (types.size() == 1) combine_ = FastCombine(f->body_op(), types[0]);
  }

  // acc[i][acc_at] = f(acc..., x[i][x_at]...).
  absl::Status Apply(OpKernelContext* ctx, std::vector<Tensor*>& acc,
                     int64_t acc_at, const std::vector<const Tensor*>& x,
                     int64_t x_at) const {
    if (combine_ != nullptr) {
      const size_t size = DataTypeSize(types_[0]);
      combine_(Bytes(*acc[0]) + acc_at * size, Bytes(*x[0]) + x_at * size);
      return absl::OkStatus();
    }
    std::vector<Tensor> args;
    for (Tensor* a : acc) args.push_back(ElementAsScalar(*a, acc_at));
    for (const Tensor* t : x) args.push_back(ElementAsScalar(*t, x_at));
    absl::StatusOr<std::vector<Tensor>> out =
        f_->Call(ctx, std::move(args), types_);
    if (!out.ok()) return out.status();
    for (size_t i = 0; i < acc.size(); ++i) {
      const size_t size = DataTypeSize(types_[i]);
      std::memcpy(Bytes(*acc[i]) + acc_at * size, Bytes((*out)[i]), size);
    }
    return absl::OkStatus();
  }

 private:
  const ScalarFunction* const f_;
  const DataTypeVector types_;
  CombineFn combine_ = nullptr;
};

// Fills every element of `t` with the scalar `value`.
void Fill(Tensor* t, const Tensor& value) {
  const size_t size = DataTypeSize(t->dtype());
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    std::memcpy(Bytes(*t) + i * size, Bytes(value), size);
  }
}

// Row-major strides of `shape`.
std::vector<int64_t> Strides(const TensorShape& shape) {
  std::vector<int64_t> s(shape.dims(), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) {
    s[d] = s[d + 1] * shape.dim_size(d + 1);
  }
  return s;
}

class XlaReduceOp : public OpKernel {
 public:
  explicit XlaReduceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dimensions_to_reduce", &dims_));
    if (!ctx->status().ok()) return;
    absl::StatusOr<std::unique_ptr<ScalarFunction>> f =
        ScalarFunction::Create(ctx, "reducer");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    reducer_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 2;
    DataTypeVector types;
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      DFX_OP_REQUIRES_OK(ctx, CheckPlain(in.dtype()));
      DFX_OP_REQUIRES(ctx, in.shape() == ctx->input(0).shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "All inputs must have the same shape. Input ", i,
                          " has shape ", in.shape().DebugString(), ", input 0 ",
                          ctx->input(0).shape().DebugString())));
      DFX_OP_REQUIRES(ctx, ctx->input(n + i).dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "init value ", i, " must be a scalar, got shape ",
                          ctx->input(n + i).shape().DebugString())));
      types.push_back(in.dtype());
      inputs.push_back(&in);
    }
    DFX_OP_REQUIRES(
        ctx,
        reducer_->num_args() == 2 * types.size() &&
            reducer_->num_rets() == types.size(),
        absl::InvalidArgumentError(absl::StrCat(
            "reducer '", reducer_->name(), "' takes ", reducer_->num_args(),
            " arguments and returns ", reducer_->num_rets(), "; ", n,
            " operands need ", 2 * n, " and ", n)));
    const TensorShape& shape = ctx->input(0).shape();
    const int rank = shape.dims();
    std::vector<bool> reduced(rank, false);
    for (int64_t d : dims_) {
      DFX_OP_REQUIRES(ctx, d >= 0 && d < rank && !reduced[d],
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid dimensions_to_reduce argument: ", d,
                          " for an input of rank ", rank)));
      reduced[d] = true;
    }
    std::vector<int64_t> out_dims;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) out_dims.push_back(shape.dim_size(d));
    }
    absl::StatusOr<TensorShape> built = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES_OK(ctx, built.status());
    const TensorShape& out_shape = *built;
    std::vector<Tensor*> outs(n);
    for (int i = 0; i < n; ++i) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(i, out_shape, &outs[i]));
      Fill(outs[i], ctx->input(n + i));
    }
    // The output stride of each input dim (0 for reduced dims).
    std::vector<int64_t> out_stride(rank, 0);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      if (reduced[d]) continue;
      out_stride[d] = stride;
      stride *= shape.dim_size(d);
    }
    Reducer reducer(reducer_.get(), types);
    std::vector<int64_t> index(rank, 0);
    int64_t out_at = 0;
    const int64_t count = shape.num_elements();
    for (int64_t at = 0; at < count; ++at) {
      DFX_OP_REQUIRES_OK(ctx, reducer.Apply(ctx, outs, out_at, inputs, at));
      for (int d = rank - 1; d >= 0; --d) {
        out_at += out_stride[d];
        if (++index[d] < shape.dim_size(d)) break;
        out_at -= out_stride[d] * index[d];
        index[d] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> dims_;
  std::unique_ptr<ScalarFunction> reducer_;
};

// A window's geometry, one entry per dim.
struct Window {
  std::vector<int64_t> size, stride, base_dilation, dilation, pad_low, pad_high;
};

absl::Status ReadVector(const Tensor& t, int rank, const char* what,
                        std::vector<int64_t>* out) {
  if (t.dims() != 1 || t.dim_size(0) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a vector of ", rank,
        " values (the input's rank), got shape ", t.shape().DebugString()));
  }
  out->resize(rank);
  for (int i = 0; i < rank; ++i) (*out)[i] = IntAt(t, i);
  return absl::OkStatus();
}

absl::Status ReadPadding(const Tensor& t, int rank, Window* w) {
  if (t.dims() != 2 || t.dim_size(0) != rank || t.dim_size(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat("padding must be of shape [",
                                                   rank, ", 2], got ",
                                                   t.shape().DebugString()));
  }
  w->pad_low.resize(rank);
  w->pad_high.resize(rank);
  for (int i = 0; i < rank; ++i) {
    w->pad_low[i] = IntAt(t, 2 * i);
    w->pad_high[i] = IntAt(t, 2 * i + 1);
  }
  return absl::OkStatus();
}

// The output shape of a window over `in`; InvalidArgument for sizes,
// strides or dilations below 1 or padding below 0.
absl::StatusOr<TensorShape> WindowOutput(const TensorShape& in,
                                         const Window& w) {
  std::vector<int64_t> out;
  for (int d = 0; d < in.dims(); ++d) {
    if (w.size[d] < 1 || w.stride[d] < 1 || w.base_dilation[d] < 1 ||
        w.dilation[d] < 1 || w.pad_low[d] < 0 || w.pad_high[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("window dimension ", d, ": size ", w.size[d],
                       ", stride ", w.stride[d], ", base dilation ",
                       w.base_dilation[d], ", window dilation ", w.dilation[d],
                       " must be at least 1 and padding (", w.pad_low[d], ", ",
                       w.pad_high[d], ") at least 0"));
    }
    const int64_t n = in.dim_size(d);
    const int64_t dilated = n == 0 ? 0 : (n - 1) * w.base_dilation[d] + 1;
    const int64_t padded = dilated + w.pad_low[d] + w.pad_high[d];
    const int64_t span = (w.size[d] - 1) * w.dilation[d] + 1;
    out.push_back(padded < span ? 0 : (padded - span) / w.stride[d] + 1);
  }
  return TensorShape::Build(out);
}

// Calls fn(input flat index) for each input element the window at output
// index `o` covers, in row-major window order; padding and base-dilation
// holes are skipped.
template <typename Fn>
absl::Status ForEachInWindow(const TensorShape& in,
                             const std::vector<int64_t>& in_strides,
                             const Window& w, const std::vector<int64_t>& o,
                             Fn&& fn) {
  const int rank = in.dims();
  std::vector<int64_t> k(rank, 0);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= w.size[d];
  for (int64_t step = 0; step < total; ++step) {
    int64_t at = 0;
    bool inside = true;
    for (int d = 0; d < rank && inside; ++d) {
      const int64_t pos =
          o[d] * w.stride[d] + k[d] * w.dilation[d] - w.pad_low[d];
      if (pos < 0 || pos % w.base_dilation[d] != 0 ||
          pos / w.base_dilation[d] >= in.dim_size(d)) {
        inside = false;
      } else {
        at += pos / w.base_dilation[d] * in_strides[d];
      }
    }
    if (inside) DFX_RETURN_IF_ERROR(fn(at));
    for (int d = rank - 1; d >= 0; --d) {
      if (++k[d] < w.size[d]) break;
      k[d] = 0;
    }
  }
  return absl::OkStatus();
}

// Advances a row-major multi-index over `shape`.
void Next(const TensorShape& shape, std::vector<int64_t>* index) {
  for (int d = shape.dims() - 1; d >= 0; --d) {
    if (++(*index)[d] < shape.dim_size(d)) return;
    (*index)[d] = 0;
  }
}

class XlaReduceWindowOp : public OpKernel {
 public:
  explicit XlaReduceWindowOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<std::unique_ptr<ScalarFunction>> f =
        ScalarFunction::Create(ctx, "computation");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    computation_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckPlain(in.dtype()));
    DFX_OP_REQUIRES(ctx, ctx->input(1).dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("init_value must be a scalar, got shape ",
                                     ctx->input(1).shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, computation_->num_args() == 2 && computation_->num_rets() == 1,
        absl::InvalidArgumentError(
            absl::StrCat("computation '", computation_->name(), "' takes ",
                         computation_->num_args(), " arguments and returns ",
                         computation_->num_rets(), ", expected 2 and 1")));
    const int rank = in.dims();
    Window w;
    DFX_OP_REQUIRES_OK(
        ctx, ReadVector(ctx->input(2), rank, "window_dimensions", &w.size));
    DFX_OP_REQUIRES_OK(
        ctx, ReadVector(ctx->input(3), rank, "window_strides", &w.stride));
    DFX_OP_REQUIRES_OK(ctx, ReadVector(ctx->input(4), rank, "base_dilations",
                                       &w.base_dilation));
    DFX_OP_REQUIRES_OK(
        ctx, ReadVector(ctx->input(5), rank, "window_dilations", &w.dilation));
    DFX_OP_REQUIRES_OK(ctx, ReadPadding(ctx->input(6), rank, &w));
    absl::StatusOr<TensorShape> out_shape = WindowOutput(in.shape(), w);
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    Fill(out, ctx->input(1));
    Reducer reducer(computation_.get(), {in.dtype()});
    std::vector<Tensor*> acc = {out};
    const std::vector<const Tensor*> x = {&in};
    const std::vector<int64_t> in_strides = Strides(in.shape());
    std::vector<int64_t> o(rank, 0);
    for (int64_t at = 0; at < out->NumElements(); ++at) {
      DFX_OP_REQUIRES_OK(
          ctx, ForEachInWindow(in.shape(), in_strides, w, o, [&](int64_t i) {
            return reducer.Apply(ctx, acc, at, x, i);
          }));
      Next(*out_shape, &o);
    }
  }

 private:
  std::unique_ptr<ScalarFunction> computation_;
};

class XlaSelectAndScatterOp : public OpKernel {
 public:
  explicit XlaSelectAndScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<std::unique_ptr<ScalarFunction>> f =
        ScalarFunction::Create(ctx, "select");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    select_ = *std::move(f);
    f = ScalarFunction::Create(ctx, "scatter");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    scatter_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& operand = ctx->input(0);
    const Tensor& source = ctx->input(4);
    const Tensor& init = ctx->input(5);
    const DataType dtype = operand.dtype();
    DFX_OP_REQUIRES_OK(ctx, CheckPlain(dtype));
    DFX_OP_REQUIRES(ctx, init.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("init_value must be a scalar, got shape ",
                                     init.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx,
        select_->num_args() == 2 && select_->num_rets() == 1 &&
            scatter_->num_args() == 2 && scatter_->num_rets() == 1,
        absl::InvalidArgumentError(
            "select and scatter must each take 2 arguments and return 1"));
    const int rank = operand.dims();
    Window w;
    DFX_OP_REQUIRES_OK(
        ctx, ReadVector(ctx->input(1), rank, "window_dimensions", &w.size));
    DFX_OP_REQUIRES_OK(
        ctx, ReadVector(ctx->input(2), rank, "window_strides", &w.stride));
    DFX_OP_REQUIRES_OK(ctx, ReadPadding(ctx->input(3), rank, &w));
    w.base_dilation.assign(rank, 1);
    w.dilation.assign(rank, 1);
    absl::StatusOr<TensorShape> windows = WindowOutput(operand.shape(), w);
    DFX_OP_REQUIRES_OK(ctx, windows.status());
    DFX_OP_REQUIRES(ctx, source.shape() == *windows,
                    absl::InvalidArgumentError(absl::StrCat(
                        "source has shape ", source.shape().DebugString(),
                        ", the windows ", windows->DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, operand.shape(), &out));
    Fill(out, init);
    const PredicateFn fast_select = FastPredicate(select_->body_op(), dtype);
    const DataTypeVector bool_type = {DT_BOOL};
    const size_t size = DataTypeSize(dtype);
    Reducer scatter(scatter_.get(), {dtype});
    std::vector<Tensor*> acc = {out};
    const std::vector<const Tensor*> x = {&source};
    const std::vector<int64_t> strides = Strides(operand.shape());
    std::vector<int64_t> o(rank, 0);
    for (int64_t at = 0; at < source.NumElements(); ++at) {
      int64_t selected = -1;
      DFX_OP_REQUIRES_OK(
          ctx,
          ForEachInWindow(
              operand.shape(), strides, w, o, [&](int64_t i) -> absl::Status {
                if (selected < 0) {
                  selected = i;
                  return absl::OkStatus();
                }
                bool keep = false;
                if (fast_select != nullptr) {
                  keep = fast_select(Bytes(operand) + selected * size,
                                     Bytes(operand) + i * size);
                } else {
                  absl::StatusOr<std::vector<Tensor>> r =
                      select_->Call(ctx,
                                    {ElementAsScalar(operand, selected),
                                     ElementAsScalar(operand, i)},
                                    bool_type);
                  if (!r.ok()) return r.status();
                  keep = (*r)[0].scalar<bool>();
                }
                if (!keep) selected = i;
                return absl::OkStatus();
              }));
      if (selected >= 0) {
        DFX_OP_REQUIRES_OK(ctx, scatter.Apply(ctx, acc, selected, x, at));
      }
      Next(*windows, &o);
    }
  }

 private:
  std::unique_ptr<ScalarFunction> select_;
  std::unique_ptr<ScalarFunction> scatter_;
};

// XlaWhile is lowered into TF1 control flow before any step runs
// (graph/lower_functional_ops.h); this kernel only stands for TensorFlow's
// CPU registration and fails if a graph ever reaches it unlowered.
class XlaWhileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InternalError(
        "XlaWhile reached a kernel: it is lowered before graphs run"));
  }
};

}  // namespace

void RegisterXla2SortKernels(KernelRegistry* registry);
void RegisterXla2RngKernels(KernelRegistry* registry);

}  // namespace dfx::xla2

namespace dfx {

void RegisterXla2Kernels(KernelRegistry* registry) {
  RegisterKernel<xla2::XlaReduceOp>(registry, KernelDefBuilder("XlaReduce"));
  RegisterKernel<xla2::XlaReduceOp>(registry,
                                    KernelDefBuilder("XlaVariadicReduce"));
  RegisterKernel<xla2::XlaReduceOp>(registry,
                                    KernelDefBuilder("XlaVariadicReduceV2"));
  RegisterKernel<xla2::XlaReduceWindowOp>(registry,
                                          KernelDefBuilder("XlaReduceWindow"));
  RegisterKernel<xla2::XlaSelectAndScatterOp>(
      registry, KernelDefBuilder("XlaSelectAndScatter"));
  RegisterKernel<xla2::XlaWhileOp>(registry, KernelDefBuilder("XlaWhile"));
  xla2::RegisterXla2SortKernels(registry);
  xla2::RegisterXla2RngKernels(registry);
}

}  // namespace dfx

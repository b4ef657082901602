// Einsum on CPU, as TensorFlow computes it: each operand is brought (by one
// strided pass that also takes diagonals of repeated labels and sums labels
// no one else uses) into [batch..., free..., contracted...] order, unless it
// already is in that order or its transpose; one broadcasting batched GEMM
// contracts the two; the result is permuted into the output order when that
// differs. Single-operand equations are one strided pass.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/ops/einsum_equation.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/linalg_util.h"
#include "kernels/linalg/strided_copy.h"

namespace dfx::linalg {
namespace {

// Row-major element strides of `shape`.
std::vector<int64_t> Strides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims());
  int64_t s = 1;
  for (int d = shape.dims() - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape.dim_size(d);
  }
  return strides;
}

// An operand seen per distinct label: its size in this operand and its
// stride (the sum of the strides of every dim with that label, which walks
// the diagonal of repeated labels). Labels in order of first appearance.
struct LabelView {
  std::vector<int> labels;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  bool has_repeats = false;

  int Find(int label) const {
    auto it = std::find(labels.begin(), labels.end(), label);
    return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
  }
};

LabelView MakeView(const std::vector<int>& labels, const TensorShape& shape) {
  LabelView v;
  const std::vector<int64_t> strides = Strides(shape);
  for (size_t d = 0; d < labels.size(); ++d) {
    const int at = v.Find(labels[d]);
    if (at >= 0) {
      v.strides[at] += strides[d];
      v.has_repeats = true;
      continue;
    }
    v.labels.push_back(labels[d]);
    v.sizes.push_back(shape.dim_size(d));
    v.strides.push_back(strides[d]);
  }
  return v;
}

std::vector<int> Concat(std::initializer_list<const std::vector<int>*> parts) {
  std::vector<int> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    ctx->SetStatus(ctx->GetAttr("equation", &equation));
    if (!ctx->status().ok()) return;
    auto eq = ParseEinsumEquation(equation, ctx->num_inputs());
    if (!eq.ok()) {
      ctx->SetStatus(eq.status());
      return;
    }
    equation_ = *std::move(eq);
  }

  void Compute(OpKernelContext* ctx) override {
    const int num_inputs = ctx->num_inputs();
    std::vector<int> ranks;
    for (int i = 0; i < num_inputs; ++i) ranks.push_back(ctx->input(i).dims());
    auto resolved = ResolveEinsum(equation_, ranks);
    DFX_OP_REQUIRES_OK(ctx, resolved.status());
    const ResolvedEinsum& r = *resolved;

    // Every label's size: named labels agree exactly, broadcast labels are
    // 1 or the one other size.
    std::vector<int64_t> size(r.num_labels, -1);
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& t = ctx->input(i);
      for (int d = 0; d < t.dims(); ++d) {
        const int label = r.inputs[i][d];
        const int64_t dim = t.dim_size(d);
        const bool broadcast = label >= r.num_named;
        if (size[label] < 0 || (broadcast && size[label] == 1)) {
          size[label] = dim;
        } else if (dim != size[label] && !(broadcast && dim == 1)) {
          DFX_OP_REQUIRES(
              ctx, false,
              absl::InvalidArgumentError(absl::StrCat(
                  "Expected dimension ", size[label], " at axis ", d,
                  " of input ", i, " shaped ", t.shape().DebugString(),
                  " but got dimension ", dim)));
        }
      }
    }
    std::vector<int64_t> out_dims;
    for (int label : r.output) out_dims.push_back(size[label]);
    auto out_shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const LabelView out_view = MakeView(r.output, out->shape());
    if (out_view.has_repeats) {
      // Only the diagonal is written below.
      std::fill_n(out->data<T>(), out->NumElements(), T(0));
    }
    if (num_inputs == 1) {
      ComputeUnary(ctx, r, out_view, out);
    } else {
      ComputeBinary(ctx, r, size, out_view, out);
    }
  }

 private:
  // out = sum over the labels the output drops, of the input's diagonal.
  void ComputeUnary(OpKernelContext* ctx, const ResolvedEinsum& r,
                    const LabelView& out_view, Tensor* out) {
    const Tensor& in = ctx->input(0);
    const LabelView v = MakeView(r.inputs[0], in.shape());
    StridedLoop loop;
    for (size_t i = 0; i < out_view.labels.size(); ++i) {
      const int at = v.Find(out_view.labels[i]);
      loop.dims.push_back(out_view.sizes[i]);
      loop.src_strides.push_back(v.strides[at]);
      loop.dst_strides.push_back(out_view.strides[i]);
    }
    for (size_t i = 0; i < v.labels.size(); ++i) {
      if (out_view.Find(v.labels[i]) >= 0) continue;
      loop.red_dims.push_back(v.sizes[i]);
      loop.red_strides.push_back(v.strides[i]);
    }
    StridedCopy<T>(*ctx->device(), loop, in.data<T>(), out->data<T>());
  }

  // One operand laid out as `order` (labels of its view), contiguous, with
  // the labels in `drop` summed. Returns the data and fills `sizes`.
  absl::StatusOr<const T*> Arrange(OpKernelContext* ctx, const Tensor& in,
                                   const LabelView& v,
                                   const std::vector<int>& order,
                                   const std::vector<int>& drop,
                                   Tensor* scratch) {
    std::vector<int64_t> dims;
    for (int label : order) dims.push_back(v.sizes[v.Find(label)]);
    auto shape = TensorShape::Build(dims);
    if (!shape.ok()) return shape.status();
    absl::Status s =
        ctx->allocate_temp(DataTypeToEnum<T>::value, *shape, scratch);
    if (!s.ok()) return s;
    StridedLoop loop;
    loop.dims = dims;
    loop.dst_strides = Strides(scratch->shape());
    for (int label : order) loop.src_strides.push_back(v.strides[v.Find(label)]);
    for (int label : drop) {
      const int at = v.Find(label);
      loop.red_dims.push_back(v.sizes[at]);
      loop.red_strides.push_back(v.strides[at]);
    }
    StridedCopy<T>(*ctx->device(), loop, in.data<T>(), scratch->data<T>());
    return static_cast<const T*>(scratch->data<T>());
  }

  void ComputeBinary(OpKernelContext* ctx, const ResolvedEinsum& r,
                     const std::vector<int64_t>& size,
                     const LabelView& out_view, Tensor* out) {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const LabelView xv = MakeView(r.inputs[0], x.shape());
    const LabelView yv = MakeView(r.inputs[1], y.shape());
    // Roles: batch (both operands and the output, in output order), free
    // (one operand and the output), contracted (both operands, not the
    // output, in x's order), dropped (one operand only: summed first).
    std::vector<int> batch, free_x, free_y, contract, drop_x, drop_y;
    for (int label : out_view.labels) {
      if (xv.Find(label) >= 0 && yv.Find(label) >= 0) batch.push_back(label);
    }
    for (int label : xv.labels) {
      const bool in_y = yv.Find(label) >= 0;
      const bool in_out = out_view.Find(label) >= 0;
      if (in_out && !in_y) free_x.push_back(label);
      if (!in_out && in_y) contract.push_back(label);
      if (!in_out && !in_y) drop_x.push_back(label);
    }
    for (int label : yv.labels) {
      const bool in_x = xv.Find(label) >= 0;
      const bool in_out = out_view.Find(label) >= 0;
      if (in_out && !in_x) free_y.push_back(label);
      if (!in_out && !in_x) drop_y.push_back(label);
    }
    auto product = [&](const std::vector<int>& labels) {
      int64_t p = 1;
      for (int label : labels) p *= size[label];
      return p;
    };
    const int64_t m = product(free_x);
    const int64_t n = product(free_y);
    const int64_t k = product(contract);

    // x as [batch, free_x, contract] or, transposed, [batch, contract,
    // free_x]; y as [batch, contract, free_y] or [batch, free_y, contract].
    const std::vector<int> x_plain = Concat({&batch, &free_x, &contract});
    const std::vector<int> x_trans = Concat({&batch, &contract, &free_x});
    const std::vector<int> y_plain = Concat({&batch, &contract, &free_y});
    const std::vector<int> y_trans = Concat({&batch, &free_y, &contract});
    Tensor x_scratch, y_scratch;
    bool tx = false;
    bool ty = false;
    const T* xd = x.data<T>();
    const T* yd = y.data<T>();
    if (xv.has_repeats || !drop_x.empty() ||
        (xv.labels != x_plain && xv.labels != x_trans)) {
      auto arranged = Arrange(ctx, x, xv, x_plain, drop_x, &x_scratch);
      DFX_OP_REQUIRES_OK(ctx, arranged.status());
      xd = *arranged;
    } else {
      tx = xv.labels != x_plain;
    }
    if (yv.has_repeats || !drop_y.empty() ||
        (yv.labels != y_plain && yv.labels != y_trans)) {
      auto arranged = Arrange(ctx, y, yv, y_plain, drop_y, &y_scratch);
      DFX_OP_REQUIRES_OK(ctx, arranged.status());
      yd = *arranged;
    } else {
      ty = yv.labels != y_plain;
    }

    // Batch dims of the output and of each operand (1 where broadcast).
    std::vector<int64_t> out_batch, x_batch, y_batch;
    for (int label : batch) {
      out_batch.push_back(size[label]);
      x_batch.push_back(xv.sizes[xv.Find(label)]);
      y_batch.push_back(yv.sizes[yv.Find(label)]);
    }
    const std::vector<int64_t> x_index = BroadcastBatchIndex(out_batch, x_batch);
    const std::vector<int64_t> y_index = BroadcastBatchIndex(out_batch, y_batch);
    const int64_t num_batch = product(batch);

    // The product lands in the output directly when the output is
    // [batch, free_x, free_y] (or [batch, free_y, free_x]: the product is
    // then computed transposed), else in scratch and is permuted after.
    const std::vector<int> c_plain = Concat({&batch, &free_x, &free_y});
    const std::vector<int> c_trans = Concat({&batch, &free_y, &free_x});
    const bool direct = !out_view.has_repeats &&
                        (out_view.labels == c_plain || out_view.labels == c_trans);
    const bool swap = direct && out_view.labels != c_plain;
    Tensor c_scratch;
    T* cd = out->data<T>();
    if (!direct) {
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                  TensorShape({num_batch, m, n}), &c_scratch));
      cd = c_scratch.data<T>();
    }
    const MatrixBatch<const T> a{xd, tx ? m : k, m * k,
                                 x_index.empty() ? nullptr : &x_index};
    const MatrixBatch<const T> b{yd, ty ? k : n, k * n,
                                 y_index.empty() ? nullptr : &y_index};
    if (swap) {
      // out[b] (n x m) = op(y[b])^T-ish: (x y)^T = y^T x^T.
      const MatrixBatch<T> c{cd, m, m * n, nullptr};
      BatchedGemm<T>(*ctx->device(), num_batch, n, m, k, b, !ty, a, !tx, c);
      return;
    }
    const MatrixBatch<T> c{cd, n, m * n, nullptr};
    BatchedGemm<T>(*ctx->device(), num_batch, m, n, k, a, tx, b, ty, c);
    if (direct) return;
    // Permute [batch, free_x, free_y] into the output.
    StridedLoop loop;
    int64_t stride = 1;
    std::vector<int64_t> c_strides(c_plain.size());
    for (int d = static_cast<int>(c_plain.size()) - 1; d >= 0; --d) {
      c_strides[d] = stride;
      stride *= size[c_plain[d]];
    }
    for (size_t i = 0; i < out_view.labels.size(); ++i) {
      const int label = out_view.labels[i];
      const int at = static_cast<int>(
          std::find(c_plain.begin(), c_plain.end(), label) - c_plain.begin());
      loop.dims.push_back(out_view.sizes[i]);
      loop.src_strides.push_back(c_strides[at]);
      loop.dst_strides.push_back(out_view.strides[i]);
    }
    StridedCopy<T>(*ctx->device(), loop, cd, out->data<T>());
  }

  EinsumEquation equation_;
};

template <typename T>
void Register(KernelRegistry* registry) {
  RegisterKernel<EinsumOp<T>>(
      registry, KernelDefBuilder("Einsum").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterEinsumKernels(KernelRegistry* registry) {
  Register<float>(registry);
  Register<double>(registry);
  Register<Eigen::half>(registry);
  Register<Eigen::bfloat16>(registry);
  Register<int32_t>(registry);
  Register<int64_t>(registry);
  Register<std::complex<float>>(registry);
  Register<std::complex<double>>(registry);
}

}  // namespace dfx::linalg

// ReduceJoin, StringSplitV2 and Add of strings (concatenation, `a + b` on
// string tensors) with TensorFlow 2.21's semantics (reduce_join_op.cc,
// string_split_op.cc, cwise_op_add_1.cc).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/broadcast.h"
#include "kernels/strings/string_util.h"

namespace dfx::strings {
namespace {

// Joins the strings of `inputs` along the reduced dims. The reduced dims
// are walked in the order reduction_indices lists them, the first listed
// varying fastest, as TensorFlow does; no indices reduce nothing.
class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("keep_dims", &keep_dims_));
    c->SetStatus(c->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const int rank = input.dims();
    std::vector<bool> reduced(rank, false);
    std::vector<int> reduced_dims;  // in the order given
    for (int64_t k = 0; k < indices.NumElements(); ++k) {
      const int32_t index = indices.data<int32_t>()[k];
      // TensorFlow reports an index out of range as OutOfRange.
      DFX_OP_REQUIRES(ctx, index >= -rank && index < rank,
                      absl::OutOfRangeError(absl::StrCat(
                          "Invalid reduction dimension ", index,
                          " for input with ", rank, " dimension(s)")));
      const int dim = index < 0 ? index + rank : index;
      DFX_OP_REQUIRES(ctx, !reduced[dim],
                      absl::InvalidArgumentError(absl::StrCat(
                          "Duplicate reduction dimension ", index)));
      reduced[dim] = true;
      reduced_dims.push_back(dim);
    }
    TensorShape out_shape;
    std::vector<int> kept_dims;
    for (int d = 0; d < rank; ++d) {
      if (reduced[d]) {
        if (keep_dims_) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(1));
      } else {
        kept_dims.push_back(d);
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(d)));
      }
    }
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * input.dim_size(d + 1);
    }
    int64_t reduce_size = 1;
    for (int d : reduced_dims) reduce_size *= input.dim_size(d);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    std::vector<absl::string_view> parts(reduce_size);
    for (int64_t e = 0; e < out->NumElements(); ++e) {
      // The input offset of output element e: kept dims row-major.
      int64_t base = 0, rest = e;
      for (int k = static_cast<int>(kept_dims.size()) - 1; k >= 0; --k) {
        const int d = kept_dims[k];
        base += (rest % input.dim_size(d)) * strides[d];
        rest /= input.dim_size(d);
      }
      for (int64_t r = 0; r < reduce_size; ++r) {
        int64_t offset = base, left = r;
        for (int d : reduced_dims) {
          offset += (left % input.dim_size(d)) * strides[d];
          left /= input.dim_size(d);
        }
        parts[r] = in[offset];
      }
      o[e] = absl::StrJoin(parts, separator_);
    }
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

bool IsSpace(char c) {
  return absl::ascii_isspace(static_cast<unsigned char>(c));
}

// TensorFlow's SplitV2 of `s`, after Python's str.split(sep, maxsplit):
// maxsplit 0 keeps the string whole; `sep` empty splits at runs of
// whitespace, dropping leading whitespace, and once maxsplit pieces are
// cut the rest (possibly empty) is the last piece.
void Split(absl::string_view s, absl::string_view sep, int64_t maxsplit,
           std::vector<absl::string_view>* out) {
  if (maxsplit == 0) {
    out->push_back(s);
    return;
  }
  if (sep.empty()) {
    size_t i = 0;
    int64_t splits = 0;
    while (i < s.size() && IsSpace(s[i])) ++i;
    while (i < s.size()) {
      size_t j = i;
      while (j < s.size() && !IsSpace(s[j])) ++j;
      out->push_back(s.substr(i, j - i));
      i = j;
      while (i < s.size() && IsSpace(s[i])) ++i;
      if (maxsplit > 0 && ++splits == maxsplit) {
        out->push_back(s.substr(i));
        return;
      }
    }
    return;
  }
  size_t start = 0;
  int64_t splits = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == absl::string_view::npos) break;
    out->push_back(s.substr(start, at - start));
    start = at + sep.size();
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  out->push_back(s.substr(start));
}

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("maxsplit", &maxsplit_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sep = ctx->input(1);
    DFX_OP_REQUIRES(ctx, input.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be a vector, got shape: ",
                                     input.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, sep.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "sep must be a scalar, got shape: ", sep.shape().DebugString())));
    const int64_t n = input.NumElements();
    std::vector<std::vector<absl::string_view>> pieces(n);
    for (int64_t i = 0; i < n; ++i) {
      Split(input.data<std::string>()[i], sep.scalar<std::string>(), maxsplit_,
            &pieces[i]);
    }
    OutputSplitPieces(ctx, pieces);
  }

 private:
  int64_t maxsplit_ = -1;
};

// Add for T=string: element-wise concatenation, broadcast as every binary
// op is ("Incompatible shapes: [2] vs. [3]" otherwise).
class StringAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<Broadcast> bcast = Broadcast::Make(a.shape(), b.shape());
    DFX_OP_REQUIRES_OK(ctx, bcast.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, bcast->output_shape(), &out));
    const std::string* x = a.data<std::string>();
    const std::string* y = b.data<std::string>();
    std::string* z = out->data<std::string>();
    bcast->ForEachRun(0, bcast->num_elements(),
                      [&](int64_t at, int64_t length, const int64_t* in,
                          const int64_t* step) {
                        for (int64_t i = 0; i < length; ++i) {
                          z[at + i] = absl::StrCat(x[in[0] + i * step[0]],
                                                   y[in[1] + i * step[1]]);
                        }
                      });
  }
};

}  // namespace

void OutputSplitPieces(
    OpKernelContext* ctx,
    const std::vector<std::vector<absl::string_view>>& pieces) {
  const int64_t n = static_cast<int64_t>(pieces.size());
  int64_t total = 0, widest = 0;
  for (const auto& p : pieces) {
    total += static_cast<int64_t>(p.size());
    widest = std::max<int64_t>(widest, p.size());
  }
  Tensor *indices = nullptr, *values = nullptr, *shape = nullptr;
  DFX_OP_REQUIRES_OK(
      ctx, ctx->allocate_output(0, TensorShape({total, 2}), &indices));
  DFX_OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(1, TensorShape({total}), &values));
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < pieces[i].size(); ++j, ++k) {
      indices->data<int64_t>()[2 * k] = i;
      indices->data<int64_t>()[2 * k + 1] = static_cast<int64_t>(j);
      values->data<std::string>()[k] = std::string(pieces[i][j]);
    }
  }
  shape->data<int64_t>()[0] = n;
  shape->data<int64_t>()[1] = widest;
}

void RegisterStringJoinSplitKernels(KernelRegistry* registry) {
  RegisterKernel<StringAddOp>(
      registry, KernelDefBuilder("Add").TypeConstraint<std::string>("T"));
  RegisterKernel<ReduceJoinOp>(registry, KernelDefBuilder("ReduceJoin"));
  RegisterKernel<StringSplitV2Op>(registry, KernelDefBuilder("StringSplitV2"));
}

}  // namespace dfx::strings

// XlaSort, XlaKeyValueSort and XlaVariadicSort: XLA's Sort on the CPU.
// Each row along the sort dimension is ordered by a permutation, which
// std::stable_sort computes (stable whatever is_stable says: an unstable
// sort may order ties either way). XlaSort and XlaKeyValueSort compare the
// keys with '<'; XlaVariadicSort's comparator takes the fast path when it is
// one Less/Greater/LessEqual/GreaterEqual of operand 0's pair, else runs
// through the function runtime.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/kernels.h"
#include "kernels/xla/xla_reduce_function.h"

namespace dfx::xla2 {
namespace {

// A comparison of elements i and j of the current row's operands; sets
// `status` and answers false on error.
using Less = std::function<bool(int64_t, int64_t)>;

// Sorts every row of `inputs` along `dim` into freshly allocated outputs.
// `make_less(base, stride)` gives the comparison of the row whose element k
// sits at flat index base + k * stride.
template <typename MakeLess>
void SortRows(OpKernelContext* ctx, const std::vector<const Tensor*>& inputs,
              int dim, MakeLess&& make_less, absl::Status* status) {
  const TensorShape& shape = inputs[0]->shape();
  std::vector<Tensor*> outs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(static_cast<int>(i), shape, &outs[i]));
  }
  if (shape.num_elements() == 0) return;
  const int64_t n = shape.dim_size(dim);
  int64_t inner = 1;
  for (int d = dim + 1; d < shape.dims(); ++d) inner *= shape.dim_size(d);
  const int64_t outer = shape.num_elements() / (n * inner);
  std::vector<int64_t> perm(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * n * inner + in;
      std::iota(perm.begin(), perm.end(), 0);
      const Less less = make_less(base, inner);
      std::stable_sort(perm.begin(), perm.end(), less);
      DFX_OP_REQUIRES_OK(ctx, *status);
      for (size_t t = 0; t < inputs.size(); ++t) {
        const size_t size = DataTypeSize(inputs[t]->dtype());
        const char* src = static_cast<const char*>(inputs[t]->raw_data());
        char* dst = static_cast<char*>(outs[t]->raw_data());
        for (int64_t k = 0; k < n; ++k) {
          std::memcpy(dst + (base + k * inner) * size,
                      src + (base + perm[k] * inner) * size, size);
        }
      }
    }
  }
}

absl::Status CheckSortable(const Tensor& keys) {
  if (!IsPlainType(keys.dtype()) ||
      FastPredicate(BodyOp::kLess, keys.dtype()) == nullptr) {
    if (keys.dtype() != DT_BOOL) {
      return absl::InvalidArgumentError(
          absl::StrCat("XLA sorts no ", DataTypeString(keys.dtype()), " keys"));
    }
  }
  return absl::OkStatus();
}

bool BoolLess(const void* a, const void* b) {
  return !*static_cast<const bool*>(a) && *static_cast<const bool*>(b);
}

// '<' on keys of `dtype` (false < true for bool).
PredicateFn KeyLess(DataType dtype) {
  if (dtype == DT_BOOL) return &BoolLess;
  return FastPredicate(BodyOp::kLess, dtype);
}

// XlaSort (one input) and XlaKeyValueSort (keys, values): ascending along
// the last dim by the first input.
class XlaSortOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      DFX_OP_REQUIRES(ctx, IsPlainType(ctx->input(i).dtype()),
                      absl::InvalidArgumentError(absl::StrCat(
                          "XLA sorts no ",
                          DataTypeString(ctx->input(i).dtype()), " tensors")));
      inputs.push_back(&ctx->input(i));
    }
    const Tensor& keys = *inputs[0];
    DFX_OP_REQUIRES_OK(ctx, CheckSortable(keys));
    if (inputs.size() == 2) {
      DFX_OP_REQUIRES(ctx, inputs[1]->shape() == keys.shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "keys of shape ", keys.shape().DebugString(),
                          " and values of shape ",
                          inputs[1]->shape().DebugString(), " differ")));
    }
    // XLA sorts along the last dimension, which a scalar lacks.
    DFX_OP_REQUIRES(ctx, keys.dims() > 0,
                    absl::InvalidArgumentError(
                        "XLA sorts tensors of rank 1 or more, got a scalar"));
    const PredicateFn less = KeyLess(keys.dtype());
    const size_t size = DataTypeSize(keys.dtype());
    const char* data = static_cast<const char*>(keys.raw_data());
    absl::Status status;
    SortRows(
        ctx, inputs, keys.dims() - 1,
        [&](int64_t base, int64_t stride) -> Less {
          return [=](int64_t i, int64_t j) {
            return less(data + (base + i * stride) * size,
                        data + (base + j * stride) * size);
          };
        },
        &status);
  }
};

class XlaVariadicSortOp : public OpKernel {
 public:
  explicit XlaVariadicSortOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<std::unique_ptr<ScalarFunction>> f =
        ScalarFunction::Create(ctx, "comparator");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    comparator_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const Tensor& dim_t = ctx->input(n);
    DFX_OP_REQUIRES(ctx, dim_t.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("dimension must be a scalar, got shape ",
                                     dim_t.shape().DebugString())));
    int64_t dim = dim_t.scalar<int32_t>();
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      DFX_OP_REQUIRES(
          ctx, IsPlainType(t.dtype()),
          absl::InvalidArgumentError(absl::StrCat(
              "XLA sorts no ", DataTypeString(t.dtype()), " tensors")));
      DFX_OP_REQUIRES(ctx, t.shape() == ctx->input(0).shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "input ", i, " has shape ", t.shape().DebugString(),
                          ", input 0 ", ctx->input(0).shape().DebugString())));
      inputs.push_back(&t);
    }
    const int rank = ctx->input(0).dims();
    // XLA counts a negative dimension from the end.
    DFX_OP_REQUIRES(
        ctx, dim >= -rank && dim < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "dimension ", dim, " must be in range [", -rank, ", ", rank, ")")));
    if (dim < 0) dim += rank;
    DFX_OP_REQUIRES(ctx,
                    comparator_->num_args() == 2 * static_cast<size_t>(n) &&
                        comparator_->num_rets() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "comparator '", comparator_->name(), "' takes ",
                        comparator_->num_args(), " arguments and returns ",
                        comparator_->num_rets(), "; ", n, " inputs need ",
                        2 * n, " and 1")));
    const PredicateFn fast =
        FastPredicate(comparator_->body_op(), inputs[0]->dtype());
    const size_t size = DataTypeSize(inputs[0]->dtype());
    const char* data = static_cast<const char*>(inputs[0]->raw_data());
    const DataTypeVector bool_type = {DT_BOOL};
    absl::Status status;
    SortRows(
        ctx, inputs, static_cast<int>(dim),
        [&](int64_t base, int64_t stride) -> Less {
          if (fast != nullptr) {
            return [=](int64_t i, int64_t j) {
              return fast(data + (base + i * stride) * size,
                          data + (base + j * stride) * size);
            };
          }
          return [&, base, stride](int64_t i, int64_t j) {
            if (!status.ok()) return false;
            std::vector<Tensor> args;
            for (const Tensor* t : inputs) {
              args.push_back(ElementAsScalar(*t, base + i * stride));
              args.push_back(ElementAsScalar(*t, base + j * stride));
            }
            absl::StatusOr<std::vector<Tensor>> r =
                comparator_->Call(ctx, std::move(args), bool_type);
            if (!r.ok()) {
              status = r.status();
              return false;
            }
            return (*r)[0].scalar<bool>();
          };
        },
        &status);
  }

 private:
  std::unique_ptr<ScalarFunction> comparator_;
};

}  // namespace

void RegisterXla2SortKernels(KernelRegistry* registry) {
  RegisterKernel<XlaSortOp>(registry, KernelDefBuilder("XlaSort"));
  RegisterKernel<XlaSortOp>(registry, KernelDefBuilder("XlaKeyValueSort"));
  RegisterKernel<XlaVariadicSortOp>(registry,
                                    KernelDefBuilder("XlaVariadicSort"));
}

}  // namespace dfx::xla2

// Sum, Mean, Prod, Max and Min on CPU.
//
// The input's dims are first simplified: size-1 dims are dropped and
// neighbours that are both reduced or both kept are merged, so a reduction
// over the innermost or outermost axes of contiguous data becomes one 2-D or
// 3-D Eigen reduction. Shapes that still alternate (kept, reduced, kept,
// reduced, ...) are reduced one group at a time, innermost first, each pass
// a 3-D [outer, reduced, inner] reduction into a smaller temporary.
#include "kernels/nn/nn_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dfx::nn_internal {
namespace {

using Index = Eigen::DenseIndex;

// Output values combined per task when a reduced axis has kept axes inside
// it: 4 KiB of floats, so a task's accumulator stays in L1.
constexpr int64_t kColumnBlock = 1024;

enum class ReduceKind { kSum, kMean, kProd, kMax, kMin };

// The value of reducing an empty set: what TensorFlow returns when a reduced
// dimension has size 0.
template <typename T, ReduceKind K>
T EmptyReduction() {
  if constexpr (K == ReduceKind::kSum) {
    return T(0);
  } else if constexpr (K == ReduceKind::kProd) {
    return T(1);
  } else if constexpr (K == ReduceKind::kMean) {
    // No identity: NaN for floating types; integers have no NaN and give 0
    // rather than dividing by zero.
    if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
      return std::numeric_limits<T>::quiet_NaN();
    } else {
      return T(0);
    }
  } else if constexpr (K == ReduceKind::kMax) {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  } else {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
}

// The Eigen reduction of `in` over `axes`. Mean is reduced as a sum and
// divided at the end, so that several passes compose. Max and Min propagate
// NaN, as TensorFlow's do.
template <ReduceKind K, typename In, typename Axes>
auto EigenReduce(const In& in, const Axes& axes) {
  if constexpr (K == ReduceKind::kSum || K == ReduceKind::kMean) {
    return in.sum(axes);
  } else if constexpr (K == ReduceKind::kProd) {
    return in.prod(axes);
  } else if constexpr (K == ReduceKind::kMax) {
    return in.template maximum<Axes, Eigen::PropagateNaN>(axes);
  } else {
    return in.template minimum<Axes, Eigen::PropagateNaN>(axes);
  }
}

// One dim of the simplified shape.
struct Group {
  int64_t size;
  bool reduced;
};

// Appends a dim to `groups`, merging it into the last group when both are
// reduced or both kept. Size-1 dims change nothing and are skipped.
void AppendDim(std::vector<Group>* groups, int64_t size, bool reduced) {
  if (size == 1) return;
  if (!groups->empty() && groups->back().reduced == reduced) {
    groups->back().size *= size;
  } else {
    groups->push_back({size, reduced});
  }
}

template <typename T, ReduceKind K>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, indices.dims() <= 1,
        NodeInvalidArgument(
            *ctx, absl::StrCat("reduction_indices must be a scalar or a "
                               "vector, got shape ",
                               indices.shape().DebugString())));
    const int rank = input.dims();
    std::vector<bool> reduced(rank, false);
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      const int64_t axis = indices.dtype() == DT_INT32
                               ? indices.data<int32_t>()[i]
                               : indices.data<int64_t>()[i];
      DFX_OP_REQUIRES(
          ctx, axis >= -rank && axis < rank,
          NodeInvalidArgument(
              *ctx, absl::StrCat("Invalid reduction dimension (", axis,
                                 " for input with ", rank, " dimension(s))")));
      reduced[axis < 0 ? axis + rank : axis] = true;  // duplicates are fine
    }

    TensorShape out_shape;
    std::vector<Group> groups;
    int64_t reduced_count = 1;  // elements reduced into each output value
    for (int i = 0; i < rank; ++i) {
      const int64_t size = input.dim_size(i);
      if (!reduced[i]) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(size));
      } else {
        reduced_count *= size;
        if (keep_dims_) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(1));
      }
      AppendDim(&groups, size, reduced[i]);
    }

    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (input.NumElements() == 0) {
      // Some reduced dim is empty while the output is not.
      flat<T>(*out).setConstant(EmptyReduction<T, K>());
      return;
    }
    bool any_reduced = false;
    for (const Group& g : groups) any_reduced |= g.reduced;
    if (!any_reduced) {
      // Only size-1 dims are reduced: the values are unchanged.
      auto reshaped = input.Reshaped(out_shape);
      DFX_OP_REQUIRES_OK(ctx, reshaped.status());
      ctx->set_output(0, *std::move(reshaped));
      return;
    }

    // Reduce the innermost reduced group until none is left; the last pass
    // writes the output.
    const T* src = input.data<T>();
    Tensor temp;
    while (true) {
      int j = static_cast<int>(groups.size()) - 1;
      while (!groups[j].reduced) --j;
      int64_t outer = 1;
      int64_t inner = 1;
      bool last_pass = true;
      for (int i = 0; i < static_cast<int>(groups.size()); ++i) {
        if (i < j) {
          outer *= groups[i].size;
          last_pass &= !groups[i].reduced;
        } else if (i > j) {
          inner *= groups[i].size;
        }
      }
      const int64_t r = groups[j].size;
      T* dst;
      Tensor next;
      if (last_pass) {
        dst = out->data<T>();
      } else {
        DFX_OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                    TensorShape({outer * inner}), &next));
        dst = next.data<T>();
      }
      ReducePass(*ctx, src, outer, r, inner, dst);
      if (last_pass) break;
      temp = std::move(next);
      src = temp.data<T>();
      // Drop group j and merge its kept neighbours.
      std::vector<Group> rest;
      for (int i = 0; i < static_cast<int>(groups.size()); ++i) {
        if (i != j) AppendDim(&rest, groups[i].size, groups[i].reduced);
      }
      groups = std::move(rest);
    }

    if constexpr (K == ReduceKind::kMean) {
      auto o = flat<T>(*out);
      Assign(*ctx, out->NumElements(), o,
             o / static_cast<T>(reduced_count));
    }
  }

 private:
  // dst[o, i] = reduce over k of src[o, k, i]; src has outer * r * inner
  // elements, dst outer * inner. REQUIRES: r >= 1.
  static void ReducePass(const OpKernelContext& ctx, const T* src,
                         int64_t outer, int64_t r, int64_t inner, T* dst) {
    const int64_t work = outer * r * inner;
    if (inner == 1) {
      // Innermost axis: contiguous rows, Eigen's vectorised inner reduction.
      const typename EigenTypes<T, 2>::UnalignedConstTensor in(src, outer, r);
      typename EigenTypes<T, 1>::UnalignedTensor o(dst, outer);
      Assign(ctx, work, o, EigenReduce<K>(in, Eigen::array<Index, 1>{1}));
      return;
    }
    // A reduced axis with kept axes inside it. Eigen's reduction walks such
    // data with a stride; instead each output block of up to kColumnBlock
    // contiguous values is combined with the r input rows that feed it,
    // row after row, which streams memory in order and vectorises.
    const int64_t blocks_per_outer = (inner + kColumnBlock - 1) / kColumnBlock;
    auto reduce_blocks = [src, r, inner, dst, blocks_per_outer](Index first,
                                                                 Index last) {
      for (Index t = first; t < last; ++t) {
        const int64_t o = t / blocks_per_outer;
        const int64_t begin = (t % blocks_per_outer) * kColumnBlock;
        const int64_t len = std::min(kColumnBlock, inner - begin);
        const T* in = src + o * r * inner + begin;
        typename EigenTypes<T, 1>::UnalignedTensor acc(dst + o * inner + begin,
                                                       len);
        acc = typename EigenTypes<T, 1>::UnalignedConstTensor(in, len);
        for (int64_t k = 1; k < r; ++k) {
          const typename EigenTypes<T, 1>::UnalignedConstTensor row(
              in + k * inner, len);
          Combine(acc, row);
        }
      }
    };
    const int64_t tasks = outer * blocks_per_outer;
    if (work >= kParallelEvalThreshold && tasks > 1) {
      const double block_bytes =
          static_cast<double>(std::min(kColumnBlock, inner) * sizeof(T));
      ctx.device()->eigen_cpu_device().parallelFor(
          tasks,
          Eigen::TensorOpCost(block_bytes * static_cast<double>(r),
                              block_bytes,
                              static_cast<double>(std::min(kColumnBlock, inner) * r)),
          reduce_blocks);
    } else {
      reduce_blocks(0, tasks);
    }
  }

  // acc = acc (op) row, elementwise.
  template <typename Acc, typename Row>
  static void Combine(Acc& acc, const Row& row) {
    if constexpr (K == ReduceKind::kSum || K == ReduceKind::kMean) {
      acc += row;
    } else if constexpr (K == ReduceKind::kProd) {
      acc *= row;
    } else if constexpr (K == ReduceKind::kMax) {
      acc = acc.template cwiseMax<Eigen::PropagateNaN>(row);
    } else {
      acc = acc.template cwiseMin<Eigen::PropagateNaN>(row);
    }
  }

  bool keep_dims_ = false;
};

template <ReduceKind K>
void RegisterKind(KernelRegistry* registry, const char* op) {
  const DataTypeVector tidx = {DT_INT32, DT_INT64};
  RegisterKernel<ReductionOp<float, K>>(
      registry, KernelDefBuilder(op).TypeConstraint<float>("T").TypeConstraint(
                    "Tidx", tidx));
  RegisterKernel<ReductionOp<double, K>>(
      registry, KernelDefBuilder(op).TypeConstraint<double>("T").TypeConstraint(
                    "Tidx", tidx));
  RegisterKernel<ReductionOp<int32_t, K>>(
      registry, KernelDefBuilder(op)
                    .TypeConstraint<int32_t>("T")
                    .TypeConstraint("Tidx", tidx));
  RegisterKernel<ReductionOp<int64_t, K>>(
      registry, KernelDefBuilder(op)
                    .TypeConstraint<int64_t>("T")
                    .TypeConstraint("Tidx", tidx));
}

}  // namespace

void RegisterReductionKernels(KernelRegistry* registry) {
  RegisterKind<ReduceKind::kSum>(registry, "Sum");
  RegisterKind<ReduceKind::kMean>(registry, "Mean");
  RegisterKind<ReduceKind::kProd>(registry, "Prod");
  RegisterKind<ReduceKind::kMax>(registry, "Max");
  RegisterKind<ReduceKind::kMin>(registry, "Min");
}

}  // namespace dfx::nn_internal

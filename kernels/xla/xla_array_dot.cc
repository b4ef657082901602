// XlaDot, XlaDotV2 (XLA's DotGeneral) and XlaGather (XLA's Gather): the
// dimension numbers are serialized xla protos (proto/xla_data.proto).
//
// DotGeneral: the output is the batch dims (in lhs_batch_dimensions'
// order), then lhs's free dims, then rhs's, each element the sum over the
// contracting dims. The kernel lists, per operand, the flat offsets of its
// batch, free and contracting index combinations once, so the product is
// three plain loops. XlaDotV2 first converts each operand to the output
// type (preferred_element_type). float and double pack the operands and
// run dfx's GEMM (kernels/linalg/gemm.h); other types run the loops.
// Integers wrap as XLA's do; half and bfloat16 accumulate in float.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/linalg/gemm.h"
#include "kernels/xla/xla_array_util.h"
#include "kernels/xla/xla_array_convert.h"
#include "proto/xla_data.pb.h"
#include "runtime/op_kernel.h"

namespace dfx::xla_array {
namespace {

using array_internal::ReadInts;

std::vector<int64_t> Strides(const TensorShape& s) {
  std::vector<int64_t> st(s.dims());
  int64_t acc = 1;
  for (int d = s.dims() - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s.dim_size(d);
  }
  return st;
}

// The flat offsets of every index combination of `dims` of `shape`, in
// row-major order over those dims.
std::vector<int64_t> Offsets(const TensorShape& shape,
                             const std::vector<int64_t>& dims) {
  const std::vector<int64_t> st = Strides(shape);
  std::vector<int64_t> out = {0};
  for (int64_t d : dims) {
    std::vector<int64_t> next;
    next.reserve(out.size() * shape.dim_size(static_cast<int>(d)));
    for (int64_t base : out) {
      for (int64_t i = 0; i < shape.dim_size(static_cast<int>(d)); ++i) {
        next.push_back(base + i * st[d]);
      }
    }
    out = std::move(next);
  }
  return out;
}

struct DotPlan {
  std::vector<int64_t> lb, lf, lk, rb, rf, rk;  // flat offsets
  TensorShape out_shape;
};

template <typename T>
void RunDot(const DotPlan& p, const T* l, const T* r, T* out) {
  int64_t o = 0;
  for (size_t b = 0; b < p.lb.size(); ++b) {
    for (int64_t li : p.lf) {
      for (int64_t ri : p.rf) {
        Acc<T> acc{};
        const T* lp = l + p.lb[b] + li;
        const T* rp = r + p.rb[b] + ri;
        for (size_t k = 0; k < p.lk.size(); ++k) {
          acc += static_cast<Acc<T>>(lp[p.lk[k]]) *
                 static_cast<Acc<T>>(rp[p.rk[k]]);
        }
        out[o++] = static_cast<T>(acc);
      }
    }
  }
}

// float and double: each operand packed into [batch, m, k] and [batch, k,
// n] row-major, then dfx's batched GEMM (oneDNN's sgemm for float, on the
// intra-op pool). Other types run RunDot's loops.
template <typename T>
void RunDotGemm(const Device& device, const DotPlan& p, const T* l, const T* r,
                T* out) {
  const int64_t batch = static_cast<int64_t>(p.lb.size());
  const int64_t m = static_cast<int64_t>(p.lf.size());
  const int64_t n = static_cast<int64_t>(p.rf.size());
  const int64_t k = static_cast<int64_t>(p.lk.size());
  std::vector<T> a(batch * m * k), b(batch * k * n);
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      const T* row = l + p.lb[bi] + p.lf[i];
      T* dst = a.data() + (bi * m + i) * k;
      for (int64_t c = 0; c < k; ++c) dst[c] = row[p.lk[c]];
    }
    for (int64_t c = 0; c < k; ++c) {
      const T* row = r + p.rb[bi] + p.rk[c];
      T* dst = b.data() + (bi * k + c) * n;
      for (int64_t j = 0; j < n; ++j) dst[j] = row[p.rf[j]];
    }
  }
  linalg::BatchedGemm<T>(device, batch, m, n, k, {a.data(), k, m * k, nullptr},
                         false, {b.data(), n, k * n, nullptr}, false,
                         {out, n, m * n, nullptr});
}

// Runs the product of `plan` on l and r into out.
template <typename T>
void Dot(const Device& device, const DotPlan& p, const T* l, const T* r,
         T* out) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    RunDotGemm<T>(device, p, l, r, out);
  } else {
    RunDot<T>(p, l, r, out);
  }
}

// Checks `dims` (one operand's batch and contracting dims) name distinct
// dims of a rank-`rank` operand.
absl::Status CheckDims(const std::vector<int64_t>& dims, int rank,
                       const char* side) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat(side, " dimension number ", d,
                       " is out of range for an operand "
                       "of rank ",
                       rank));
    }
    if (seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(side, " dimension number ", d,
                       " appears more than once in the "
                       "batch and contracting dimensions"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<DotPlan> PlanDot(const xla::DotDimensionNumbers& dn,
                                const TensorShape& ls, const TensorShape& rs) {
  const std::vector<int64_t> lc(dn.lhs_contracting_dimensions().begin(),
                                dn.lhs_contracting_dimensions().end());
  const std::vector<int64_t> rc(dn.rhs_contracting_dimensions().begin(),
                                dn.rhs_contracting_dimensions().end());
  const std::vector<int64_t> lbd(dn.lhs_batch_dimensions().begin(),
                                 dn.lhs_batch_dimensions().end());
  const std::vector<int64_t> rbd(dn.rhs_batch_dimensions().begin(),
                                 dn.rhs_batch_dimensions().end());
  if (lc.size() != rc.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must specify the same number of contracting dimensions for lhs and "
        "rhs. Got: ",
        lc.size(), " and ", rc.size()));
  }
  if (lbd.size() != rbd.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must specify the same number of batch dimensions for lhs and rhs. "
        "Got: ",
        lbd.size(), " and ", rbd.size()));
  }
  std::vector<int64_t> lall = lbd, rall = rbd;
  lall.insert(lall.end(), lc.begin(), lc.end());
  rall.insert(rall.end(), rc.begin(), rc.end());
  DFX_RETURN_IF_ERROR(CheckDims(lall, ls.dims(), "lhs"));
  DFX_RETURN_IF_ERROR(CheckDims(rall, rs.dims(), "rhs"));
  for (size_t i = 0; i < lall.size(); ++i) {
    const int64_t a = ls.dim_size(static_cast<int>(lall[i]));
    const int64_t b = rs.dim_size(static_cast<int>(rall[i]));
    if (a != b) {
      return absl::InvalidArgumentError(
          absl::StrCat(i < lbd.size() ? "batch" : "contracting",
                       " dimension sizes differ: "
                       "lhs dimension ",
                       lall[i], " has size ", a, ", rhs dimension ", rall[i],
                       " has size ", b));
    }
  }
  DotPlan p;
  std::vector<int64_t> out_dims;
  for (int64_t d : lbd) out_dims.push_back(ls.dim_size(static_cast<int>(d)));
  std::vector<int64_t> lfree, rfree;
  for (int d = 0; d < ls.dims(); ++d) {
    if (!absl::c_linear_search(lall, d)) {
      lfree.push_back(d);
      out_dims.push_back(ls.dim_size(d));
    }
  }
  for (int d = 0; d < rs.dims(); ++d) {
    if (!absl::c_linear_search(rall, d)) {
      rfree.push_back(d);
      out_dims.push_back(rs.dim_size(d));
    }
  }
  DFX_ASSIGN_OR_RETURN(p.out_shape, TensorShape::Build(out_dims));
  if (p.out_shape.num_elements() == 0) return p;
  p.lb = Offsets(ls, lbd);
  p.rb = Offsets(rs, rbd);
  p.lf = Offsets(ls, lfree);
  p.rf = Offsets(rs, rfree);
  p.lk = Offsets(ls, lc);
  p.rk = Offsets(rs, rc);
  return p;
}

absl::Status ParseAttrProto(OpKernelConstruction* ctx, const char* attr,
                            google::protobuf::MessageLite* msg) {
  std::string bytes;
  DFX_RETURN_IF_ERROR(ctx->GetAttr(attr, &bytes));
  if (!msg->ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attr '", attr, "' is not a serialized xla.", msg->GetTypeName()));
  }
  return absl::OkStatus();
}

// XlaDot (kV2 false: lhs, rhs and output of type T) and XlaDotV2.
template <bool kV2>
class XlaDotOp : public OpKernel {
 public:
  explicit XlaDotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ParseAttrProto(ctx, "dimension_numbers", &dn_));
    xla::PrecisionConfig precision;
    ctx->SetStatus(ParseAttrProto(ctx, "precision_config", &precision));
  }

  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFX_ASSIGN_OR_RETURN(DotPlan plan, PlanDot(dn_, lhs.shape(), rhs.shape()));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, plan.out_shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    bool served = VisitDotType(out->dtype(), [&]<typename T>() {
      if constexpr (!kV2) {
        Dot<T>(*ctx->device(), plan, lhs.data<T>(), rhs.data<T>(),
               out->data<T>());
      } else {
        std::vector<T> l = ConvertTo<T>(lhs);
        std::vector<T> r = ConvertTo<T>(rhs);
        Dot<T>(*ctx->device(), plan, l.data(), r.data(), out->data<T>());
      }
    });
    if (!served) {
      return absl::InvalidArgumentError(absl::StrCat(
          "no XLA CPU kernel for type ", DataTypeString(out->dtype())));
    }
    return absl::OkStatus();
  }

  xla::DotDimensionNumbers dn_;
};

absl::Status CheckSortedUnique(const std::vector<int64_t>& v, int64_t limit,
                               const char* what) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0 || v[i] >= limit) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid ", what, " dimension ", v[i],
                       ": must be in [0, ", limit, ")"));
    }
    if (i > 0 && v[i] <= v[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " must be sorted and have no repeated dimensions: [",
          absl::StrJoin(v, ","), "]"));
    }
  }
  return absl::OkStatus();
}

class XlaGatherOp : public OpKernel {
 public:
  explicit XlaGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ParseAttrProto(ctx, "dimension_numbers", &dn_));
  }

  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& operand = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& sizes_t = ctx->input(2);
    DFX_RETURN_IF_ERROR(CheckXlaType(operand.dtype()));
    const int rank = operand.dims();
    const int irank = indices.dims();
    if (sizes_t.dims() != 1 || sizes_t.dim_size(0) != rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice_sizes must be a 1D tensor of size ", rank,
          ", the operand's rank; got shape ", sizes_t.shape().DebugString()));
    }
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadInts(sizes_t));
    const std::vector<int64_t> offset_dims(dn_.offset_dims().begin(),
                                           dn_.offset_dims().end());
    const std::vector<int64_t> collapsed(dn_.collapsed_slice_dims().begin(),
                                         dn_.collapsed_slice_dims().end());
    const std::vector<int64_t> start_map(dn_.start_index_map().begin(),
                                         dn_.start_index_map().end());
    const std::vector<int64_t> op_batch(dn_.operand_batching_dims().begin(),
                                        dn_.operand_batching_dims().end());
    const std::vector<int64_t> idx_batch(
        dn_.start_indices_batching_dims().begin(),
        dn_.start_indices_batching_dims().end());
    const int64_t ivd = dn_.index_vector_dim();
    if (ivd < 0 || ivd > irank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Gather index leaf dimension must be within [0, rank(start_indices)"
          " + 1). rank(start_indices) is ",
          irank, " and gather index leaf dimension is ", ivd, "."));
    }
    const int64_t index_len = ivd == irank ? 1 : indices.dim_size(ivd);
    const int batch_rank = ivd == irank ? irank : irank - 1;
    const int out_rank = batch_rank + static_cast<int>(offset_dims.size());
    if (static_cast<int64_t>(start_map.size()) != index_len) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Gather op has ", start_map.size(),
          " elements in start_index_map and the bound of dimension "
          "index_vector_dim=",
          ivd, " of start_indices is ", index_len,
          ". These two numbers must be equal."));
    }
    if (offset_dims.size() + collapsed.size() + op_batch.size() !=
        static_cast<size_t>(rank)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "All components of the offset index in a gather op must either be "
          "a offset dimension or explicitly collapsed/batching; got len(slice "
          "sizes)=",
          rank, ", output_slice_sizes=[", absl::StrJoin(offset_dims, ","),
          "], collapsed_slice_dims=[", absl::StrJoin(collapsed, ","),
          "], operand_batching_dims=[", absl::StrJoin(op_batch, ","), "]."));
    }
    if (op_batch.size() != idx_batch.size()) {
      return absl::InvalidArgumentError(
          "operand_batching_dims and start_indices_batching_dims must have "
          "the same size");
    }
    DFX_RETURN_IF_ERROR(
        CheckSortedUnique(offset_dims, out_rank, "offset_dims"));
    DFX_RETURN_IF_ERROR(
        CheckSortedUnique(collapsed, rank, "collapsed_slice_dims"));
    DFX_RETURN_IF_ERROR(
        CheckSortedUnique(op_batch, rank, "operand_batching_dims"));
    // Every operand dim is at most one of: collapsed, batching, mapped.
    std::vector<int> role(rank, 0);  // 1 collapsed, 2 batching
    for (int64_t d : collapsed) role[d] = 1;
    for (int64_t d : op_batch) {
      if (role[d] != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("operand dimension ", d,
                         " is both a collapsed and a batching dimension"));
      }
      role[d] = 2;
    }
    std::vector<bool> mapped(rank, false);
    for (int64_t d : start_map) {
      if (d < 0 || d >= rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid start_index_map; domain is [0, ", rank, "), got: ", d));
      }
      if (mapped[d] || role[d] == 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Repeated dimension in start_index_map, or a batching dimension "
            "in it: ",
            d));
      }
      mapped[d] = true;
    }
    for (size_t i = 0; i < idx_batch.size(); ++i) {
      const int64_t d = idx_batch[i];
      if (d < 0 || d >= irank || d == ivd) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid start_indices_batching_dims dimension ", d));
      }
      if (indices.dim_size(static_cast<int>(d)) !=
          operand.dim_size(static_cast<int>(op_batch[i]))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "start_indices_batching_dims[", i, "] and operand_batching_dims[",
            i, "] name dimensions of different sizes"));
      }
    }
    for (int d = 0; d < rank; ++d) {
      if (sizes[d] < 0 || sizes[d] > operand.dim_size(d)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Slice size at index ", d,
                         " in gather op is out of range, must "
                         "be within [0, ",
                         operand.dim_size(d) + 1, "), got ", sizes[d], "."));
      }
      if (role[d] != 0 && sizes[d] > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Gather op can only collapse slice dims with bound 1 or 0, but "
            "bound is ",
            sizes[d], " for index ", d, " at position ", d, "."));
      }
    }
    // The output's shape: batch dims where no offset dim is.
    std::vector<int64_t> batch_dims_of_indices;  // indices dims, in order
    for (int d = 0; d < irank; ++d) {
      if (d != ivd) batch_dims_of_indices.push_back(d);
    }
    std::vector<int64_t> window_dims;  // operand dims the offsets walk
    for (int d = 0; d < rank; ++d) {
      if (role[d] == 0) window_dims.push_back(d);
    }
    std::vector<int64_t> out_dims(out_rank);
    std::vector<int> out_role(out_rank, -1);  // offset j, or -1 batch
    for (size_t j = 0; j < offset_dims.size(); ++j) {
      out_role[offset_dims[j]] = static_cast<int>(j);
      out_dims[offset_dims[j]] = sizes[window_dims[j]];
    }
    {
      int b = 0;
      for (int d = 0; d < out_rank; ++d) {
        if (out_role[d] < 0) {
          out_dims[d] =
              indices.dim_size(static_cast<int>(batch_dims_of_indices[b++]));
        }
      }
    }
    DFX_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    const int64_t total = out->NumElements();
    if (total == 0) return absl::OkStatus();
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> idx_values, ReadInts(indices));
    const std::vector<int64_t> ist = Strides(indices.shape());
    const std::vector<int64_t> ost = Strides(operand.shape());
    const size_t esize = DataTypeSize(operand.dtype());
    const char* src = static_cast<const char*>(operand.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    std::vector<int64_t> oi(out_rank, 0);  // the output's multi-index
    std::vector<int64_t> gi(irank, 0);     // the indices' multi-index
    std::vector<int64_t> start(rank, 0);
    for (int64_t o = 0; o < total; ++o) {
      int b = 0;
      for (int d = 0; d < out_rank; ++d) {
        if (out_role[d] < 0) gi[batch_dims_of_indices[b++]] = oi[d];
      }
      std::fill(start.begin(), start.end(), 0);
      int64_t base = 0;
      for (int d = 0; d < irank; ++d) {
        if (d != ivd) base += gi[d] * ist[d];
      }
      for (size_t k = 0; k < start_map.size(); ++k) {
        const int64_t flat =
            base + (ivd < irank ? static_cast<int64_t>(k) * ist[ivd] : 0);
        start[start_map[k]] = idx_values[flat];
      }
      for (int d = 0; d < rank; ++d) {
        start[d] =
            std::clamp<int64_t>(start[d], 0, operand.dim_size(d) - sizes[d]);
      }
      for (size_t i = 0; i < op_batch.size(); ++i) {
        start[op_batch[i]] = gi[idx_batch[i]];
      }
      for (int d = 0; d < out_rank; ++d) {
        if (out_role[d] >= 0) start[window_dims[out_role[d]]] += oi[d];
      }
      int64_t off = 0;
      for (int d = 0; d < rank; ++d) off += start[d] * ost[d];
      std::memcpy(dst + o * esize, src + off * esize, esize);
      for (int d = out_rank - 1; d >= 0; --d) {
        if (++oi[d] < out_dims[d]) break;
        oi[d] = 0;
      }
    }
    return absl::OkStatus();
  }

  xla::GatherDimensionNumbers dn_;
};

}  // namespace

void RegisterXlaDotKernels(KernelRegistry* registry) {
  RegisterKernel<XlaDotOp<false>>(registry, KernelDefBuilder("XlaDot"));
  RegisterKernel<XlaDotOp<true>>(registry, KernelDefBuilder("XlaDotV2"));
  RegisterKernel<XlaGatherOp>(
      registry, KernelDefBuilder("XlaGather")
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                    .HostMemory("slice_sizes"));
}

}  // namespace dfx::xla_array

// XlaScatter (XLA's Scatter): each element of `updates` is combined into
// the operand element its scatter index and window offset name, by the
// op's update_computation -- a function of two scalars, the operand's
// current value and the update: inline when it is one
// xla2::RecogniseBody knows (set, add, mul, max, min, and, or), else
// through dfx's function runtime (the dataset functions' executor,
// kernels/data/dataset.h) once per update element; in the updates'
// row-major order either way. A scatter index whose window
// does not fit inside the operand is skipped whole, as XLA's CPU backend
// does.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/data/dataset.h"
#include "kernels/xla/xla_array_util.h"
#include "kernels/xla/xla_reduce_function.h"
#include "proto/xla_data.pb.h"
#include "runtime/op_kernel.h"

namespace dfx::xla_array {
namespace {

using array_internal::ReadInts;

std::vector<int64_t> Repeated(
    const google::protobuf::RepeatedField<int64_t>& f) {
  return std::vector<int64_t>(f.begin(), f.end());
}

absl::Status SortedUnique(const std::vector<int64_t>& v, int64_t limit,
                          const char* what) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0 || v[i] >= limit || (i > 0 && v[i] <= v[i - 1])) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " must be sorted, distinct and in [0, ", limit,
                       "): [", absl::StrJoin(v, ","), "]"));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> StridesOf(const TensorShape& s) {
  std::vector<int64_t> st(s.dims());
  int64_t acc = 1;
  for (int d = s.dims() - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s.dim_size(d);
  }
  return st;
}

class XlaScatterOp : public OpKernel {
 public:
  explicit XlaScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string bytes;
    ctx->SetStatus(ctx->GetAttr("dimension_numbers", &bytes));
    if (!dn_.ParseFromString(bytes)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "attr 'dimension_numbers' is not a serialized "
          "xla.ScatterDimensionNumbers"));
    }
    auto f = data::DatasetFunction::Create(ctx, "update_computation");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    fn_ = *std::move(f);
    const DataType t = ctx->output_type(0);
    if (fn_->arg_types() != DataTypeVector{t, t} ||
        fn_->ret_types() != DataTypeVector{t}) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("update_computation '", fn_->name(), "' must take two ",
                       DataTypeString(t), " scalars and return one")));
    }
    // The computations jax2tf emits (set, add, max, ...) run inline; any
    // other runs through the function runtime once per update element.
    combine_ =
        xla2::FastCombine(xla2::RecogniseBody(ctx, "update_computation"), t);
  }

  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& operand = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    DFX_RETURN_IF_ERROR(CheckXlaType(operand.dtype()));
    const int rank = operand.dims();
    const int irank = indices.dims();
    const int urank = updates.dims();
    const std::vector<int64_t> window = Repeated(dn_.update_window_dims());
    const std::vector<int64_t> inserted = Repeated(dn_.inserted_window_dims());
    const std::vector<int64_t> to_operand =
        Repeated(dn_.scatter_dims_to_operand_dims());
    const std::vector<int64_t> in_batch = Repeated(dn_.input_batching_dims());
    const std::vector<int64_t> idx_batch =
        Repeated(dn_.scatter_indices_batching_dims());
    const int64_t ivd = dn_.index_vector_dim();
    if (ivd < 0 || ivd > irank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Scatter index leaf dimension must be within [0, "
          "rank(scatter_indices) + 1). rank(scatter_indices) is ",
          irank, " and scatter index leaf dimension is ", ivd, "."));
    }
    DFX_RETURN_IF_ERROR(SortedUnique(window, urank, "update_window_dims"));
    DFX_RETURN_IF_ERROR(SortedUnique(inserted, rank, "inserted_window_dims"));
    DFX_RETURN_IF_ERROR(SortedUnique(in_batch, rank, "input_batching_dims"));
    if (window.size() + inserted.size() + in_batch.size() !=
        static_cast<size_t>(rank)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Scatter op has window of size ", window.size(),
                       "; doesn't match operand of rank ", rank, "."));
    }
    const int64_t index_len = ivd == irank ? 1 : indices.dim_size(ivd);
    if (static_cast<int64_t>(to_operand.size()) != index_len) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Scatter op has ", to_operand.size(),
          " elements in scatter_dims_to_operand_dims and the bound of "
          "dimension index_vector_dim=",
          ivd, " of scatter_indices is ", index_len,
          ". These two numbers must be equal."));
    }
    if (in_batch.size() != idx_batch.size()) {
      return absl::InvalidArgumentError(
          "input_batching_dims and scatter_indices_batching_dims must have "
          "the same size");
    }
    std::vector<int> role(rank, 0);  // 1 inserted, 2 batching
    for (int64_t d : inserted) role[d] = 1;
    for (int64_t d : in_batch) {
      if (role[d] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "operand dimension ", d, " is both inserted and batching"));
      }
      role[d] = 2;
    }
    std::vector<bool> mapped(rank, false);
    for (int64_t d : to_operand) {
      if (d < 0 || d >= rank || mapped[d] || role[d] == 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid scatter_dims_to_operand_dims: [",
                         absl::StrJoin(to_operand, ","), "]"));
      }
      mapped[d] = true;
    }
    std::vector<int64_t> scatter_dims_of_indices;
    for (int d = 0; d < irank; ++d) {
      if (d != ivd) scatter_dims_of_indices.push_back(d);
    }
    for (int64_t d : idx_batch) {
      if (d < 0 || d >= irank || d == ivd) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid scatter_indices_batching_dims dimension ", d));
      }
    }
    if (static_cast<size_t>(urank) !=
        window.size() + scatter_dims_of_indices.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Updates tensor must be of rank ",
                       window.size() + scatter_dims_of_indices.size(), "; got ",
                       urank, "."));
    }
    // The updates' dims: window dims map to the operand's free dims in
    // order, the others to the indices' scatter dims in order.
    std::vector<int64_t> free_dims;
    for (int d = 0; d < rank; ++d) {
      if (role[d] == 0) free_dims.push_back(d);
    }
    std::vector<int> urole(urank, -1);  // window j, or -1 scatter
    std::vector<int64_t> window_size(rank, 1);
    for (size_t j = 0; j < window.size(); ++j) {
      urole[window[j]] = static_cast<int>(j);
      const int64_t od = free_dims[j];
      window_size[od] = updates.dim_size(static_cast<int>(window[j]));
      if (window_size[od] > operand.dim_size(static_cast<int>(od))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Bounds of the window dimensions of updates must not exceed the "
            "bounds of the corresponding dimensions of operand. For "
            "dimension ",
            window[j], ", updates bound is ", window_size[od],
            ", operand bound is ", operand.dim_size(static_cast<int>(od)),
            "."));
      }
    }
    {
      int s = 0;
      for (int d = 0; d < urank; ++d) {
        if (urole[d] >= 0) continue;
        const int64_t want =
            indices.dim_size(static_cast<int>(scatter_dims_of_indices[s++]));
        if (updates.dim_size(d) != want) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Bounds of the scatter dimensions of updates must be same as "
              "the bounds of the corresponding dimensions of scatter "
              "indices. For scatter dimension ",
              d, ", updates bound is ", updates.dim_size(d),
              ", scatter_indices bound is ", want, "."));
        }
      }
    }
    for (size_t i = 0; i < idx_batch.size(); ++i) {
      if (indices.dim_size(static_cast<int>(idx_batch[i])) !=
          operand.dim_size(static_cast<int>(in_batch[i]))) {
        return absl::InvalidArgumentError(
            "scatter_indices_batching_dims and input_batching_dims name "
            "dimensions of different sizes");
      }
    }

    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, operand.shape(), &out));
    const size_t esize = DataTypeSize(operand.dtype());
    if (operand.NumElements() > 0) {
      std::memcpy(out->raw_data(), operand.raw_data(),
                  operand.NumElements() * esize);
    }
    const int64_t total = updates.NumElements();
    if (total == 0) return absl::OkStatus();
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> idx_values, ReadInts(indices));
    const std::vector<int64_t> ist = StridesOf(indices.shape());
    const std::vector<int64_t> ost = StridesOf(operand.shape());
    const char* usrc = static_cast<const char*>(updates.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    data::IteratorContext ictx;
    ictx.device = ctx->device();
    ictx.cancellation_manager = ctx->cancellation_manager();
    std::vector<int64_t> ui(urank, 0), gi(irank, 0), start(rank, 0);
    for (int64_t u = 0; u < total; ++u) {
      int s = 0;
      for (int d = 0; d < urank; ++d) {
        if (urole[d] < 0) gi[scatter_dims_of_indices[s++]] = ui[d];
      }
      int64_t base = 0;
      for (int d = 0; d < irank; ++d) {
        if (d != ivd) base += gi[d] * ist[d];
      }
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < to_operand.size(); ++k) {
        start[to_operand[k]] =
            idx_values[base +
                       (ivd < irank ? static_cast<int64_t>(k) * ist[ivd] : 0)];
      }
      for (size_t i = 0; i < in_batch.size(); ++i) {
        start[in_batch[i]] = gi[idx_batch[i]];
      }
      bool fits = true;
      for (int d = 0; d < rank; ++d) {
        if (start[d] < 0 || start[d] > operand.dim_size(d) - window_size[d]) {
          fits = false;
        }
      }
      if (fits) {
        int64_t off = 0;
        for (int d = 0; d < rank; ++d) off += start[d] * ost[d];
        for (int d = 0; d < urank; ++d) {
          if (urole[d] >= 0) off += ui[d] * ost[free_dims[urole[d]]];
        }
        if (combine_ != nullptr) {
          combine_(dst + off * esize, usrc + u * esize);
        } else {
          DFX_RETURN_IF_ERROR(Apply(&ictx, dst + off * esize, usrc + u * esize,
                                    operand.dtype(), esize));
        }
      }
      for (int d = urank - 1; d >= 0; --d) {
        if (++ui[d] < updates.dim_size(d)) break;
        ui[d] = 0;
      }
    }
    return absl::OkStatus();
  }

  // *current = update_computation(*current, *update) through the function
  // runtime.
  absl::Status Apply(data::IteratorContext* ictx, char* current_ptr,
                     const char* update_ptr, DataType dtype, size_t esize) {
    Tensor current(dtype, TensorShape());
    Tensor update(dtype, TensorShape());
    std::memcpy(current.raw_data(), current_ptr, esize);
    std::memcpy(update.raw_data(), update_ptr, esize);
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> result,
                         fn_->Run(ictx, {current, update}));
    if (result.size() != 1 || result[0].NumElements() != 1 ||
        result[0].dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "update_computation '", fn_->name(), "' must return one scalar"));
    }
    std::memcpy(current_ptr, result[0].raw_data(), esize);
    return absl::OkStatus();
  }

  xla::ScatterDimensionNumbers dn_;
  std::shared_ptr<const data::DatasetFunction> fn_;
  xla2::CombineFn combine_ = nullptr;
};

}  // namespace

void RegisterXlaScatterKernels(KernelRegistry* registry) {
  RegisterKernel<XlaScatterOp>(
      registry, KernelDefBuilder("XlaScatter")
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::xla_array

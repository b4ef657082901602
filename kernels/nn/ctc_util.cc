#include "kernels/nn/ctc_util.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx::ctc {

absl::Status CheckDecoderInputs(const Tensor& inputs, const Tensor& seq_len) {
  if (inputs.dims() != 3) {
    return absl::InvalidArgumentError("inputs is not a 3-Tensor");
  }
  if (inputs.NumElements() == 0) {
    return absl::InvalidArgumentError("inputs must not be empty");
  }
  const int64_t max_time = inputs.dim_size(0);
  const int64_t batch_size = inputs.dim_size(1);
  if (seq_len.dims() != 1) {
    return absl::InvalidArgumentError("sequence_length is not a vector");
  }
  if (seq_len.dim_size(0) != batch_size) {
    return absl::FailedPreconditionError(absl::StrCat(
        "len(sequence_length) != batch_size.  len(sequence_length):  ",
        seq_len.dim_size(0), " batch_size: ", batch_size));
  }
  const int32_t* lengths = seq_len.data<int32_t>();
  for (int64_t b = 0; b < batch_size; ++b) {
    if (!(lengths[b] <= max_time)) {
      return absl::FailedPreconditionError(
          absl::StrCat("sequence_length(", b, ") <= ", max_time));
    }
  }
  if (inputs.dim_size(2) > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError("num_classes cannot exceed max int");
  }
  return absl::OkStatus();
}

absl::Status StoreDecodedSequences(
    const std::vector<std::vector<std::vector<int>>>& sequences,
    int top_paths, OpKernelContext* ctx) {
  const int64_t batch_size = static_cast<int64_t>(sequences.size());
  for (int p = 0; p < top_paths; ++p) {
    int64_t total = 0;
    int64_t longest = 0;
    for (const auto& paths : sequences) {
      const int64_t n = static_cast<int64_t>(paths[p].size());
      total += n;
      longest = std::max(longest, n);
    }
    Tensor* indices = nullptr;
    Tensor* values = nullptr;
    Tensor* shape = nullptr;
    DFX_RETURN_IF_ERROR(
        ctx->allocate_output(p, TensorShape({total, 2}), &indices));
    DFX_RETURN_IF_ERROR(
        ctx->allocate_output(top_paths + p, TensorShape({total}), &values));
    DFX_RETURN_IF_ERROR(
        ctx->allocate_output(2 * top_paths + p, TensorShape({2}), &shape));
    int64_t* ip = indices->data<int64_t>();
    int64_t* vp = values->data<int64_t>();
    int64_t k = 0;
    for (int64_t b = 0; b < batch_size; ++b) {
      const std::vector<int>& path = sequences[b][p];
      for (size_t t = 0; t < path.size(); ++t, ++k) {
        ip[2 * k] = b;
        ip[2 * k + 1] = static_cast<int64_t>(t);
        vp[k] = path[t];
      }
    }
    shape->data<int64_t>()[0] = batch_size;
    shape->data<int64_t>()[1] = longest;
  }
  return absl::OkStatus();
}

}  // namespace dfx::ctc

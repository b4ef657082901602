// What the CTC kernels share (kernels/nn/ctc_*_op.cc): log-space sums as
// TensorFlow's CTC code computes them, and the decoders' input checks and
// sparse outputs (TensorFlow's CTCDecodeHelper).
#ifndef DFX_KERNELS_NN_CTC_UTIL_H_
#define DFX_KERNELS_NN_CTC_UTIL_H_

#include <cmath>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx::ctc {

template <typename T>
constexpr T LogZero() {
  return -std::numeric_limits<T>::infinity();
}

// log(exp(a) + exp(b)) as TensorFlow's CTC code computes it: the
// correction term in float (log1pf(expf(.))), for double too.
template <typename T>
T LogSumExp(T a, T b) {
  if (a == LogZero<T>()) return b;
  if (b == LogZero<T>()) return a;
  return a > b ? a + log1pf(expf(static_cast<float>(b - a)))
               : b + log1pf(expf(static_cast<float>(a - b)));
}

// Checks a decoder's inputs ([max_time, batch, classes] logits, int32
// sequence lengths [batch], each at most max_time) with TensorFlow's codes
// and messages.
absl::Status CheckDecoderInputs(const Tensor& inputs, const Tensor& seq_len);

// Writes a decoder's sparse outputs for `top_paths` paths: path p of batch
// member b is sequences[b][p]; outputs p, top_paths + p and 2 * top_paths + p
// are its indices [n, 2], values [n] and dense shape [batch, longest].
// REQUIRES: every sequences[b] has top_paths paths.
absl::Status StoreDecodedSequences(
    const std::vector<std::vector<std::vector<int>>>& sequences,
    int top_paths, OpKernelContext* ctx);

}  // namespace dfx::ctc

#endif  // DFX_KERNELS_NN_CTC_UTIL_H_

// One row of Softmax, LogSoftmax and the softmax cross-entropies, fused: a
// pass for the row's maximum, one for the sum of exp(x - max), one to write,
// each on Eigen packets. The kernels (softmax_ops.cc, loss_ops.cc) split
// rows over the intra-op pool and widen half and bfloat16 rows to float.
// Private to kernels/nn/.
//
// Every exp is flushed to exactly 0 below Eigen's clamping bound (Eigen
// 3.4's packet exp returns ~4e-39 for -inf where TensorFlow gives 0), so a
// -inf logit gets probability 0.
#ifndef DFX_KERNELS_NN_SOFTMAX_ROWS_H_
#define DFX_KERNELS_NN_SOFTMAX_ROWS_H_

#include "kernels/nn/packet_map.h"  // first: defines EIGEN_USE_THREADS

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dfx::nn_internal {

// exp(v), exactly 0 where Eigen would clamp (below its lowest argument).
template <typename P>
P FlushedPacketExp(const P& v) {
  using C = typename ei::unpacket_traits<P>::type;
  const C lowest = std::is_same_v<C, float> ? C(-88.3762626647949)
                                            : C(-709.436139303);
  return ei::pandnot(ei::pexp(v), ei::pcmp_lt(v, ei::pset1<P>(lowest)));
}

// The maximum of x[0, n), n >= 1. A NaN may or may not be taken; a row with
// a NaN comes out all NaN whatever the maximum (its exp sum is NaN).
template <typename C>
C RowMax(const C* x, int64_t n) {
  using P = PacketOf<C>;
  constexpr int64_t k = kPacketSize<C>;
  C m = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  if (n >= k) {
    P acc = ei::ploadu<P>(x);
    for (i = k; i + k <= n; i += k) acc = ei::pmax(acc, ei::ploadu<P>(x + i));
    m = ei::predux_max(acc);
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// Returns the sum over i of exp(x[i] - m) (flushed); stores the exps in
// y[0, n) when y is not null (y may be x).
template <typename C>
C ExpSum(const C* x, C m, C* y, int64_t n) {
  using P = PacketOf<C>;
  constexpr int64_t k = kPacketSize<C>;
  const P pm = ei::pset1<P>(m);
  P acc = ei::pzero(pm);
  int64_t i = 0;
  for (; i + k <= n; i += k) {
    const P e = FlushedPacketExp(ei::psub(ei::ploadu<P>(x + i), pm));
    if (y != nullptr) ei::pstoreu(y + i, e);
    acc = ei::padd(acc, e);
  }
  if (i < n) {
    // Pad with -inf: exp(-inf - m) adds 0 (or NaN when m is -inf or NaN,
    // which makes the row NaN as it is anyway).
    C in[k], out[k];
    for (int64_t j = 0; j < k; ++j) {
      in[j] = -std::numeric_limits<C>::infinity();
    }
    std::memcpy(in, x + i, (n - i) * sizeof(C));
    const P e = FlushedPacketExp(ei::psub(ei::ploadu<P>(in), pm));
    ei::pstoreu(out, e);
    C tail = 0;
    for (int64_t j = 0; j < n - i; ++j) tail += out[j];
    if (y != nullptr) std::memcpy(y + i, out, (n - i) * sizeof(C));
    return ei::predux(acc) + tail;
  }
  return ei::predux(acc);
}

// y[i] = op(a[i], b[i]) over n elements with a binary packet functor `op`
// (which may capture constants).
template <typename C, typename Op>
void RowMap2(const C* a, const C* b, C* y, int64_t n, const Op& op) {
  using P = PacketOf<C>;
  constexpr int64_t k = kPacketSize<C>;
  int64_t i = 0;
  for (; i + k <= n; i += k) {
    ei::pstoreu(y + i, op(ei::ploadu<P>(a + i), ei::ploadu<P>(b + i)));
  }
  if (i < n) {
    C pa[k] = {}, pb[k] = {}, out[k];
    std::memcpy(pa, a + i, (n - i) * sizeof(C));
    std::memcpy(pb, b + i, (n - i) * sizeof(C));
    ei::pstoreu(out, op(ei::ploadu<P>(pa), ei::ploadu<P>(pb)));
    std::memcpy(y + i, out, (n - i) * sizeof(C));
  }
}

// Softmax of one row: exp(x - max) * (1 / sum), as TensorFlow scales by the
// inverse sum; LogSoftmax: (x - max) - log(sum). y may be x.
template <typename C, bool kLog>
void SoftmaxRow(const C* x, C* y, int64_t n) {
  using P = PacketOf<C>;
  const C m = RowMax(x, n);
  if constexpr (kLog) {
    const P pm = ei::pset1<P>(m);
    const P log_sum = ei::pset1<P>(std::log(ExpSum<C>(x, m, nullptr, n)));
    RowMap2(x, x, y, n, [&](const P& a, const P&) {
      return ei::psub(ei::psub(a, pm), log_sum);
    });
  } else {
    const P inv = ei::pset1<P>(C(1) / ExpSum<C>(x, m, y, n));
    RowMap2<C>(y, y, y, n,
               [&](const P& e, const P&) { return ei::pmul(e, inv); });
  }
}

// SoftmaxCrossEntropyWithLogits of one row: returns the loss, sum(label *
// (log(sum) - (x - max))), and writes backprop = exp(x - max) / sum - label
// (as exp(x - max) * (1 / sum): a packet division costs as much as the exp,
// and the two differ by at most an ulp).
// As TensorFlow: a label of 0 against a logit of -inf gives a NaN loss.
template <typename C>
C XentRow(const C* x, const C* label, C* backprop, int64_t n) {
  using P = PacketOf<C>;
  constexpr int64_t k = kPacketSize<C>;
  const C m = RowMax(x, n);
  const C sum = ExpSum<C>(x, m, backprop, n);
  const P pm = ei::pset1<P>(m);
  const P inv = ei::pset1<P>(C(1) / sum);
  const P log_sum = ei::pset1<P>(std::log(sum));
  P loss = ei::pzero(pm);
  int64_t i = 0;
  for (; i + k <= n; i += k) {
    const P l = ei::ploadu<P>(label + i);
    const P shifted = ei::psub(ei::ploadu<P>(x + i), pm);
    loss = ei::padd(loss, ei::pmul(l, ei::psub(log_sum, shifted)));
    ei::pstoreu(backprop + i,
                ei::psub(ei::pmul(ei::ploadu<P>(backprop + i), inv), l));
  }
  C tail = 0;
  const C ls = std::log(sum);
  for (; i < n; ++i) {
    tail += label[i] * (ls - (x[i] - m));
    backprop[i] = backprop[i] * (C(1) / sum) - label[i];
  }
  return ei::predux(loss) + tail;
}

// SparseSoftmaxCrossEntropyWithLogits of one row with label `label` (in
// range): returns log(sum) - (x[label] - max) and writes backprop =
// exp(x - max) * (1 / sum) - one_hot(label).
template <typename C>
C SparseXentRow(const C* x, int64_t label, C* backprop, int64_t n) {
  using P = PacketOf<C>;
  const C m = RowMax(x, n);
  const C sum = ExpSum<C>(x, m, backprop, n);
  const P inv = ei::pset1<P>(C(1) / sum);
  RowMap2<C>(backprop, backprop, backprop, n,
             [&](const P& e, const P&) { return ei::pmul(e, inv); });
  backprop[label] -= C(1);
  return std::log(sum) - (x[label] - m);
}

}  // namespace dfx::nn_internal

#endif  // DFX_KERNELS_NN_SOFTMAX_ROWS_H_

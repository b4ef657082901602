// Element-wise maps for the activation kernels and their gradients, written
// with Eigen's packet primitives so that selects (x < 0 ? a : b) vectorise:
// Eigen 3.4's Tensor select and bool-to-T casts run one element at a time.
// Private to kernels/nn/.
//
// A functor computes on packets of C (float or double): `Packet<T>(x)` or
// `Packet<T>(g, x)`, where T is the tensor's type. Functors whose math has
// no packet form for C say so with `kVector<C> = false` and provide
// `Scalar`. Half and bfloat16 are widened to float in chunks; a functor
// rounds each intermediate result to T with RoundTo<T>, where TensorFlow
// computes in T, so that results match TensorFlow's even where a rounding
// decides a branch (bfloat16 Selu(-0.001) is 0 in TensorFlow, since exp
// rounds to 1, and SeluGrad then takes the x >= 0 branch).
#ifndef DFX_KERNELS_NN_PACKET_MAP_H_
#define DFX_KERNELS_NN_PACKET_MAP_H_

#include "kernels/nn/nn_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace dfx::nn_internal {

namespace ei = Eigen::internal;

template <typename C>
using PacketOf = typename ei::packet_traits<C>::type;
template <typename C>
inline constexpr int64_t kPacketSize = ei::unpacket_traits<PacketOf<C>>::size;

// All lanes v.
template <typename P>
P Splat(double v) {
  return ei::pset1<P>(static_cast<typename ei::unpacket_traits<P>::type>(v));
}

// Lanes of 1 where mask is set, 0 elsewhere (mask from pcmp_*).
template <typename P>
P MaskToOne(const P& mask) {
  return ei::pand(mask, Splat<P>(1.0));
}

// p rounded to T and back, lane by lane: a no-op for float and double.
template <typename T, typename P>
P RoundTo(const P& p) {
  using C = typename ei::unpacket_traits<P>::type;
  if constexpr (std::is_same_v<T, C>) {
    return p;
  } else {
#if defined(EIGEN_VECTORIZE_AVX) && !defined(EIGEN_VECTORIZE_AVX512)
    // P is Packet8f here (compared by lane count: naming the vector type in
    // a template argument drops its attributes).
    constexpr bool kPacket8f =
        std::is_same_v<C, float> && ei::unpacket_traits<P>::size == 8;
#if defined(__F16C__)
    // F16C directly: Eigen 3.4 never enables its F16C path under GCC (its
    // test wants EIGEN_COMP_CLANG undefined, and Eigen always defines it),
    // so ei::float2half would round lane by lane in software.
    if constexpr (kPacket8f && std::is_same_v<T, Eigen::half>) {
      return _mm256_cvtph_ps(
          _mm256_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
#endif
    if constexpr (kPacket8f && std::is_same_v<T, Eigen::half>) {
      return ei::half2float(ei::float2half(p));
    } else if constexpr (kPacket8f && std::is_same_v<T, Eigen::bfloat16>) {
      return ei::Bf16ToF32(ei::F32ToBf16(p));
    }
#endif
    constexpr int k = ei::unpacket_traits<P>::size;
    C lanes[k];
    ei::pstoreu(lanes, p);
    for (int i = 0; i < k; ++i) {
      lanes[i] = static_cast<C>(static_cast<T>(lanes[i]));
    }
    return ei::ploadu<P>(lanes);
  }
}

// All lanes v rounded to T (TensorFlow's constants are T).
template <typename T, typename P>
P SplatT(double v) {
  using C = typename ei::unpacket_traits<P>::type;
  return ei::pset1<P>(static_cast<C>(static_cast<T>(v)));
}

// Whether F vectorises on C: true unless F says otherwise.
template <typename F, typename C, typename = void>
struct VectorOn : std::true_type {};
template <typename F, typename C>
struct VectorOn<F, C, std::void_t<decltype(F::template kVector<C>)>>
    : std::bool_constant<F::template kVector<C>> {};

// y[i] = f(x[i]) for i in [0, n), all in C. The tail that does not fill a
// packet runs through a zero-padded packet, so every element takes the
// same code path.
template <typename T, typename F, typename C>
void UnaryPackets(const F& f, const C* x, C* y, int64_t n) {
  if constexpr (!VectorOn<F, C>::value) {
    for (int64_t i = 0; i < n; ++i) y[i] = f.Scalar(x[i]);
  } else {
    using P = PacketOf<C>;
    constexpr int64_t k = kPacketSize<C>;
    int64_t i = 0;
    for (; i + k <= n; i += k) {
      ei::pstoreu(y + i, f.template Packet<T>(ei::ploadu<P>(x + i)));
    }
    if (i < n) {
      C in[k] = {}, out[k];
      std::memcpy(in, x + i, (n - i) * sizeof(C));
      ei::pstoreu(out, f.template Packet<T>(ei::ploadu<P>(in)));
      std::memcpy(y + i, out, (n - i) * sizeof(C));
    }
  }
}

// out[i] = f(g[i], x[i]) for i in [0, n), all in C.
template <typename T, typename F, typename C>
void BinaryPackets(const F& f, const C* g, const C* x, C* out, int64_t n) {
  if constexpr (!VectorOn<F, C>::value) {
    for (int64_t i = 0; i < n; ++i) out[i] = f.Scalar(g[i], x[i]);
  } else {
    using P = PacketOf<C>;
    constexpr int64_t k = kPacketSize<C>;
    int64_t i = 0;
    for (; i + k <= n; i += k) {
      ei::pstoreu(out + i, f.template Packet<T>(ei::ploadu<P>(g + i),
                                                ei::ploadu<P>(x + i)));
    }
    if (i < n) {
      C a[k] = {}, b[k] = {}, o[k];
      std::memcpy(a, g + i, (n - i) * sizeof(C));
      std::memcpy(b, x + i, (n - i) * sizeof(C));
      ei::pstoreu(o, f.template Packet<T>(ei::ploadu<P>(a), ei::ploadu<P>(b)));
      std::memcpy(out + i, o, (n - i) * sizeof(C));
    }
  }
}

// The type T computes in: float for half and bfloat16, else T.
template <typename T>
using ComputeOf = AccumType<T>;

// Elements widened per step (three float buffers of this size on the stack).
inline constexpr int64_t kWidenChunk = 1024;

// out[i] = To(in[i]) for i in [0, n). Half to and from float with F16C
// where the compiler targets it (see RoundTo for why not through Eigen).
template <typename From, typename To>
void ConvertRun(const From* in, To* out, int64_t n) {
#if defined(__F16C__)
  if constexpr (std::is_same_v<From, Eigen::half> &&
                std::is_same_v<To, float>) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                    reinterpret_cast<const __m128i*>(in + i))));
    }
    for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
    return;
  } else if constexpr (std::is_same_v<From, float> &&
                       std::is_same_v<To, Eigen::half>) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                       _mm256_cvtps_ph(_mm256_loadu_ps(in + i),
                                       _MM_FROUND_TO_NEAREST_INT |
                                           _MM_FROUND_NO_EXC));
    }
    for (; i < n; ++i) out[i] = static_cast<Eigen::half>(in[i]);
    return;
  }
#endif
  typename EigenTypes<To>::Flat(out, n) =
      typename EigenTypes<From>::ConstFlat(in, n).template cast<To>();
}

// out = f(in) element-wise over n elements of T, split over the intra-op
// pool above kParallelEvalThreshold. `cycles` is f's cost per element.
template <typename T, typename F>
void MapUnary(const OpKernelContext& ctx, const F& f, const T* in, T* out,
              int64_t n, double cycles) {
  using C = ComputeOf<T>;
  const Eigen::TensorOpCost cost(sizeof(T), sizeof(T), cycles);
  ParallelFor(*ctx.device(), n, cost, [&](int64_t first, int64_t last) {
    if constexpr (std::is_same_v<C, T>) {
      UnaryPackets<T>(f, in + first, out + first, last - first);
    } else {
      C buf[kWidenChunk];
      for (int64_t i = first; i < last; i += kWidenChunk) {
        const int64_t len = std::min(kWidenChunk, last - i);
        ConvertRun(in + i, buf, len);
        UnaryPackets<T>(f, buf, buf, len);
        ConvertRun(buf, out + i, len);
      }
    }
  });
}

// out = f(g, x) element-wise over n elements of T.
template <typename T, typename F>
void MapBinary(const OpKernelContext& ctx, const F& f, const T* g, const T* x,
               T* out, int64_t n, double cycles) {
  using C = ComputeOf<T>;
  const Eigen::TensorOpCost cost(2 * sizeof(T), sizeof(T), cycles);
  ParallelFor(*ctx.device(), n, cost, [&](int64_t first, int64_t last) {
    if constexpr (std::is_same_v<C, T>) {
      BinaryPackets<T>(f, g + first, x + first, out + first, last - first);
    } else {
      C gbuf[kWidenChunk], xbuf[kWidenChunk];
      for (int64_t i = first; i < last; i += kWidenChunk) {
        const int64_t len = std::min(kWidenChunk, last - i);
        ConvertRun(g + i, gbuf, len);
        ConvertRun(x + i, xbuf, len);
        BinaryPackets<T>(f, gbuf, xbuf, gbuf, len);
        ConvertRun(gbuf, out + i, len);
      }
    }
  });
}

}  // namespace dfx::nn_internal

#endif  // DFX_KERNELS_NN_PACKET_MAP_H_

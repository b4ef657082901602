// Sum, Mean, Prod, Max, Min, EuclideanNorm, All and Any on CPU.
//
// Shapes. The input's dims are first simplified: size-1 dims are dropped and
// neighbours that are both reduced or both kept are merged, so a reduction
// over the innermost or outermost axes of contiguous data becomes one pass
// over [outer, r, inner] (r reduced). Shapes that still alternate (kept,
// reduced, kept, reduced, ...) are reduced one group at a time, innermost
// first, each pass into a smaller temporary.
//
// Numerics. Values are combined in a binary tree, never one long chain: a
// row of r contiguous values is halved down to leaves of kLeaf values, each
// folded into 4 packets of independent accumulators; a reduced axis with
// kept values inside it is halved down to kRowLeaf rows, each leaf added
// row by row into a block of kColumnBlock accumulators (vectorised across
// the block). A float sum of n values is then off by O(log n) ulps, not
// O(n): reduce_sum(ones([2**25])) is 33554432, as in TensorFlow. Half and
// bfloat16 accumulate in float; Mean of 8- to 32-bit integers accumulates in
// 64 bits and divides with truncation, as TensorFlow.
//
// Threads. Passes with enough work run on the device's intra-op pool. When
// there are fewer output blocks than threads, the tree is cut into subtrees
// that run in parallel and are then joined in the same tree, so a result
// does not depend on the number of threads.
#include "kernels/nn/nn_util.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/nn/reduction_axes.h"

namespace dfx::nn_internal {
namespace {

namespace ei = Eigen::internal;
using Index = Eigen::DenseIndex;

enum class ReduceKind {
  kSum,
  kMean,
  kProd,
  kMax,
  kMin,
  kEuclideanNorm,
  kAll,
  kAny
};

// Values folded by one leaf of a contiguous row.
constexpr int64_t kLeaf = 512;
// Rows added one after the other by one leaf of a column reduction.
constexpr int64_t kRowLeaf = 8;
// Accumulators of a column reduction's block: 2 KiB of floats, so a block
// and its partner in the tree stay in L1.
constexpr int64_t kColumnBlock = 512;
// Elements below which a subtree is not worth a task of its own.
constexpr int64_t kMinTaskElements = 16 * 1024;

template <typename T>
inline constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> ||
    std::is_same_v<T, std::complex<double>>;

template <typename T>
inline constexpr bool kIsLowPrecisionFloat =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// The type values of T are accumulated in for reduction K.
template <typename T, ReduceKind K>
using Accumulator = std::conditional_t<
    kIsLowPrecisionFloat<T>, float,
    std::conditional_t<K == ReduceKind::kMean && std::is_integral_v<T> &&
                           sizeof(T) < 8,
                       std::conditional_t<std::is_signed_v<T>, int64_t,
                                          uint64_t>,
                       T>>;

// How reduction K combines values of the accumulator type A.
template <typename A, ReduceKind K>
struct Reducer {
  static constexpr bool kAdds = K == ReduceKind::kSum ||
                                K == ReduceKind::kMean ||
                                K == ReduceKind::kEuclideanNorm;
  using Packet = typename ei::packet_traits<A>::type;
  static constexpr bool kVectorized =
      ei::packet_traits<A>::Vectorizable && !std::is_same_v<A, bool>;
  static constexpr int kPacketSize =
      kVectorized ? ei::unpacket_traits<Packet>::size : 1;

  // The value of reducing nothing.
  static A Identity() {
    if constexpr (kAdds) {
      return A(0);
    } else if constexpr (K == ReduceKind::kProd) {
      return A(1);
    } else if constexpr (K == ReduceKind::kMax) {
      return std::numeric_limits<A>::has_infinity
                 ? -std::numeric_limits<A>::infinity()
                 : std::numeric_limits<A>::lowest();
    } else if constexpr (K == ReduceKind::kMin) {
      return std::numeric_limits<A>::has_infinity
                 ? std::numeric_limits<A>::infinity()
                 : std::numeric_limits<A>::max();
    } else {
      return K == ReduceKind::kAll;
    }
  }
  // What an input value contributes: its square for EuclideanNorm (in A,
  // so integers wrap as TensorFlow's do).
  // A complex value contributes x * conj(x) = |x|^2, as in TensorFlow.
  static A Prepare(A x) {
    if constexpr (K == ReduceKind::kEuclideanNorm && kIsComplex<A>) {
      return x * std::conj(x);
    } else if constexpr (K == ReduceKind::kEuclideanNorm) {
      return static_cast<A>(x * x);
    } else {
      return x;
    }
  }
  // Max and Min propagate NaN, as TensorFlow's do.
  static A Combine(A a, A b) {
    if constexpr (kAdds) {
      return static_cast<A>(a + b);
    } else if constexpr (K == ReduceKind::kProd) {
      return static_cast<A>(a * b);
    } else if constexpr (K == ReduceKind::kMax || K == ReduceKind::kMin) {
      if constexpr (std::numeric_limits<A>::has_quiet_NaN) {
        if (a != a) return a;
        if (b != b) return b;
      }
      return K == ReduceKind::kMax ? (a < b ? b : a) : (b < a ? b : a);
    } else if constexpr (K == ReduceKind::kAll) {
      return a && b;
    } else {
      return a || b;
    }
  }
  static Packet PreparePacket(const Packet& x) {
    if constexpr (K == ReduceKind::kEuclideanNorm && kIsComplex<A>) {
      return ei::pmul(x, ei::pconj(x));
    } else if constexpr (K == ReduceKind::kEuclideanNorm) {
      return ei::pmul(x, x);
    } else {
      return x;
    }
  }
  static Packet CombinePacket(const Packet& a, const Packet& b) {
    if constexpr (kAdds) {
      return ei::padd(a, b);
    } else if constexpr (K == ReduceKind::kProd) {
      return ei::pmul(a, b);
    } else if constexpr (K == ReduceKind::kMax) {
      return ei::pmax<Eigen::PropagateNaN>(a, b);
    } else {
      return ei::pmin<Eigen::PropagateNaN>(a, b);
    }
  }
};

// The output value of accumulated `acc` over `count` values.
template <typename T, typename A, ReduceKind K>
T Finalize(A acc, int64_t count) {
  if constexpr (K == ReduceKind::kMean) {
    // Integers divide with truncation, as TensorFlow's.
    return static_cast<T>(acc / static_cast<A>(count));
  } else if constexpr (K == ReduceKind::kEuclideanNorm) {
    if constexpr (std::is_integral_v<A>) {
      // sqrt in double, truncated. A sum that wrapped negative has a NaN
      // root, which TensorFlow's x86 kernels turn into int32's (int64's)
      // minimum and then narrow: 0 for int8 and int16.
      if constexpr (std::is_signed_v<A>) {
        if (acc < A(0)) {
          return sizeof(T) == 8
                     ? static_cast<T>(std::numeric_limits<int64_t>::min())
                     : static_cast<T>(std::numeric_limits<int32_t>::min());
        }
      }
      return static_cast<T>(std::sqrt(static_cast<double>(acc)));
    } else {
      return static_cast<T>(std::sqrt(acc));
    }
  } else {
    return static_cast<T>(acc);
  }
}

// Where a run of n values (or rows) is halved: the tree every reduction of
// this file follows.
inline int64_t SplitPoint(int64_t n) { return n / 2; }

// The reduction of n <= kLeaf contiguous values of A.
template <typename A, ReduceKind K>
A LeafReduce(const A* p, int64_t n) {
  using R = Reducer<A, K>;
  if constexpr (K == ReduceKind::kAll) {
    return std::memchr(p, 0, n) == nullptr;  // a bool is stored as 0 or 1
  } else if constexpr (K == ReduceKind::kAny) {
    return std::memchr(p, 1, n) != nullptr;
  } else {
    int64_t i = 0;
    A lanes[4 * R::kPacketSize];
    if constexpr (R::kVectorized) {
      using P = typename R::Packet;
      constexpr int64_t L = R::kPacketSize;
      P acc0 = ei::pset1<P>(R::Identity());
      P acc1 = acc0, acc2 = acc0, acc3 = acc0;
      for (; i + 4 * L <= n; i += 4 * L) {
        acc0 = R::CombinePacket(acc0, R::PreparePacket(ei::ploadu<P>(p + i)));
        acc1 = R::CombinePacket(acc1,
                                R::PreparePacket(ei::ploadu<P>(p + i + L)));
        acc2 = R::CombinePacket(
            acc2, R::PreparePacket(ei::ploadu<P>(p + i + 2 * L)));
        acc3 = R::CombinePacket(
            acc3, R::PreparePacket(ei::ploadu<P>(p + i + 3 * L)));
      }
      ei::pstoreu(lanes, acc0);
      ei::pstoreu(lanes + L, acc1);
      ei::pstoreu(lanes + 2 * L, acc2);
      ei::pstoreu(lanes + 3 * L, acc3);
    } else {
      for (A& lane : lanes) lane = R::Identity();
      for (; i + 4 <= n; i += 4) {
        for (int j = 0; j < 4; ++j) {
          lanes[j] = R::Combine(lanes[j], R::Prepare(p[i + j]));
        }
      }
    }
    // The lanes in a tree, then the few values left over.
    for (int64_t width = 4 * R::kPacketSize; width > 1; width /= 2) {
      for (int64_t j = 0; j < width / 2; ++j) {
        lanes[j] = R::Combine(lanes[j], lanes[j + width / 2]);
      }
    }
    A acc = lanes[0];
    for (; i < n; ++i) acc = R::Combine(acc, R::Prepare(p[i]));
    return acc;
  }
}

// The reduction of n <= kLeaf contiguous values of In, in A.
template <typename In, typename A, ReduceKind K>
A LeafReduceFrom(const In* p, int64_t n) {
  if constexpr (std::is_same_v<In, A>) {
    return LeafReduce<A, K>(p, n);
  } else {
    A buf[kLeaf];
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<A>(p[i]);
    return LeafReduce<A, K>(buf, n);
  }
}

// The pairwise reduction of n contiguous values.
template <typename In, typename A, ReduceKind K>
A RowReduce(const In* p, int64_t n) {
  if (n <= kLeaf) return LeafReduceFrom<In, A, K>(p, n);
  const int64_t h = SplitPoint(n);
  const A left = RowReduce<In, A, K>(p, h);
  return Reducer<A, K>::Combine(left, RowReduce<In, A, K>(p + h, n - h));
}

// A run [begin, begin + size) of values or rows.
struct Piece {
  int64_t begin;
  int64_t size;
};

// The subtrees of the tree over [begin, begin + n) at `depth` levels below
// its root (or leaves of `leaf` or fewer, where the tree ends sooner), in
// order.
void TreePieces(int64_t begin, int64_t n, int depth, int64_t leaf,
                std::vector<Piece>* out) {
  if (depth == 0 || n <= leaf) {
    out->push_back({begin, n});
    return;
  }
  const int64_t h = SplitPoint(n);
  TreePieces(begin, h, depth - 1, leaf, out);
  TreePieces(begin + h, n - h, depth - 1, leaf, out);
}

// How many levels to cut a tree over n values into so that `tasks` trees
// give each of the pool's threads a few tasks, each of at least
// kMinTaskElements values (`width` values per row, for rows).
int CutDepth(const Device& device, int64_t tasks, int64_t n, int64_t width) {
  const ThreadPool* pool = device.intra_op_pool();
  const int threads = pool == nullptr ? 1 : pool->NumThreads();
  int depth = 0;
  while ((tasks << depth) < 4 * threads &&
         (n >> (depth + 1)) * width >= kMinTaskElements) {
    ++depth;
  }
  return depth;
}

// Runs fn(first, last) over [0, units) on the intra-op pool when `work`
// (elements touched) is worth it, else inline. Unlike ParallelFor, a few
// large units are still spread over the threads.
template <typename Fn>
void ParallelForUnits(const Device& device, int64_t units, int64_t work,
                      const Eigen::TensorOpCost& cost_per_unit, Fn&& fn) {
  if (units <= 0) return;
  const ThreadPool* pool = device.intra_op_pool();
  if (units == 1 || work < kParallelEvalThreshold || pool == nullptr ||
      pool->NumThreads() <= 1 || pool->CurrentThreadId() >= 0) {
    fn(int64_t{0}, units);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      units, cost_per_unit, [&fn](Index first, Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

// Row operations of the column reductions, over len <= kColumnBlock values,
// vectorised when In is A.
template <typename In, typename A, ReduceKind K>
struct RowOps {
  using R = Reducer<A, K>;

  // acc[c] = Prepare(row[c]).
  static void Init(A* acc, const In* row, int64_t len) {
    int64_t c = 0;
    if constexpr (std::is_same_v<In, A> && R::kVectorized) {
      using P = typename R::Packet;
      for (; c + R::kPacketSize <= len; c += R::kPacketSize) {
        ei::pstoreu(acc + c, R::PreparePacket(ei::ploadu<P>(row + c)));
      }
    }
    for (; c < len; ++c) acc[c] = R::Prepare(static_cast<A>(row[c]));
  }
  // acc[c] = Combine(acc[c], Prepare(row[c])).
  static void Accumulate(A* acc, const In* row, int64_t len) {
    if constexpr (std::is_same_v<In, A>) {
      int64_t c = 0;
      if constexpr (R::kVectorized) {
        using P = typename R::Packet;
        for (; c + R::kPacketSize <= len; c += R::kPacketSize) {
          ei::pstoreu(acc + c, R::CombinePacket(
                                   ei::ploadu<P>(acc + c),
                                   R::PreparePacket(ei::ploadu<P>(row + c))));
        }
      }
      for (; c < len; ++c) acc[c] = R::Combine(acc[c], R::Prepare(row[c]));
    } else {
      A buf[kColumnBlock];
      for (int64_t c = 0; c < len; ++c) buf[c] = static_cast<A>(row[c]);
      RowOps<A, A, K>::Accumulate(acc, buf, len);
    }
  }
  // acc[c] = Combine(acc[c], other[c]) (both already accumulated).
  static void Join(A* acc, const A* other, int64_t len) {
    int64_t c = 0;
    if constexpr (R::kVectorized) {
      using P = typename R::Packet;
      for (; c + R::kPacketSize <= len; c += R::kPacketSize) {
        ei::pstoreu(acc + c, R::CombinePacket(ei::ploadu<P>(acc + c),
                                              ei::ploadu<P>(other + c)));
      }
    }
    for (; c < len; ++c) acc[c] = R::Combine(acc[c], other[c]);
  }
};

// acc[c] = the pairwise reduction over m rows of p[k * stride + c], for
// c < len <= kColumnBlock.
template <typename In, typename A, ReduceKind K>
void ColumnReduce(const In* p, int64_t stride, int64_t m, int64_t len,
                  A* acc) {
  using Ops = RowOps<In, A, K>;
  if (m <= kRowLeaf) {
    Ops::Init(acc, p, len);
    for (int64_t k = 1; k < m; ++k) Ops::Accumulate(acc, p + k * stride, len);
    return;
  }
  const int64_t h = SplitPoint(m);
  ColumnReduce<In, A, K>(p, stride, h, len, acc);
  A right[kColumnBlock];
  ColumnReduce<In, A, K>(p + h * stride, stride, m - h, len, right);
  Ops::Join(acc, right, len);
}

// Joins parts[*next...] (each `stride` values, len used) in the tree over n
// rows cut `depth` levels deep, into the first of them; returns it.
template <typename A, ReduceKind K>
A* JoinTree(A* parts, int64_t stride, int64_t* next, int64_t n, int depth,
            int64_t leaf, int64_t len) {
  if (depth == 0 || n <= leaf) return parts + (*next)++ * stride;
  const int64_t h = SplitPoint(n);
  A* left = JoinTree<A, K>(parts, stride, next, h, depth - 1, leaf, len);
  A* right = JoinTree<A, K>(parts, stride, next, n - h, depth - 1, leaf, len);
  RowOps<A, A, K>::Join(left, right, len);
  return left;
}

// dst[o] = reduction of src[o, 0:r], for o < outer.
template <typename In, typename A, ReduceKind K>
void RowPass(const Device& device, const In* src, int64_t outer, int64_t r,
             A* dst) {
  const int64_t work = outer * r;
  const int depth = work >= kParallelEvalThreshold
                        ? CutDepth(device, outer, r, /*width=*/1)
                        : 0;
  if (depth == 0) {
    ParallelForUnits(
        device, outer, work,
        Eigen::TensorOpCost(r * sizeof(In), sizeof(A), r),
        [&](int64_t first, int64_t last) {
          for (int64_t o = first; o < last; ++o) {
            dst[o] = RowReduce<In, A, K>(src + o * r, r);
          }
        });
    return;
  }
  // Few long rows: each row's tree is cut into subtrees that run as tasks.
  std::vector<Piece> pieces;
  TreePieces(0, r, depth, kLeaf, &pieces);
  const int64_t np = static_cast<int64_t>(pieces.size());
  // Not std::vector: A may be bool.
  std::unique_ptr<A[]> partial(new A[outer * np]);
  ParallelForUnits(
      device, outer * np, work,
      Eigen::TensorOpCost(r / np * sizeof(In), sizeof(A), r / np),
      [&](int64_t first, int64_t last) {
        for (int64_t t = first; t < last; ++t) {
          const Piece& piece = pieces[t % np];
          partial[t] = RowReduce<In, A, K>(src + (t / np) * r + piece.begin,
                                           piece.size);
        }
      });
  for (int64_t o = 0; o < outer; ++o) {
    int64_t next = 0;
    dst[o] = *JoinTree<A, K>(partial.get() + o * np, 1, &next, r, depth,
                             kLeaf, 1);
  }
}

// dst[o, c] = reduction over k of src[o, k, c], for o < outer, k < r,
// c < inner (inner > 1).
//
// Narrow rows (inner < kColumnBlock) are regrouped: g consecutive rows are
// one row of g * inner contiguous values, reduced as a column block, and its
// g slices are then joined in a tree (plus the r % g rows left over), so
// even [2^20, 2] reductions run vectorised.
template <typename In, typename A, ReduceKind K>
void ColumnPass(const Device& device, const In* src, int64_t outer, int64_t r,
                int64_t inner, A* dst) {
  using Joins = RowOps<A, A, K>;
  int64_t g = std::max<int64_t>(1, kColumnBlock / inner);
  g = std::max<int64_t>(1, std::min(g, r / kRowLeaf));
  const int64_t rows = r / g;  // rows of the regrouped view
  const int64_t width = g * inner;
  const int64_t blocks = (width + kColumnBlock - 1) / kColumnBlock;
  const int64_t tasks = outer * blocks;
  const int64_t work = outer * r * inner;
  const int depth =
      work >= kParallelEvalThreshold ? CutDepth(device, tasks, rows, width)
                                     : 0;
  std::vector<Piece> pieces;
  TreePieces(0, rows, depth, kRowLeaf, &pieces);
  const int64_t np = static_cast<int64_t>(pieces.size());

  // Writes the reduction of (o, block)'s accumulators `acc` to dst.
  auto finish = [&](int64_t o, int64_t block, A* acc) {
    A* out = dst + o * inner;
    if (g == 1) {
      const int64_t begin = block * kColumnBlock;
      std::copy(acc, acc + std::min(kColumnBlock, inner - begin),
                out + begin);
      return;
    }
    for (int64_t step = 1; step < g; step *= 2) {
      for (int64_t j = 0; j + step < g; j += 2 * step) {
        Joins::Join(acc + j * inner, acc + (j + step) * inner, inner);
      }
    }
    // The r % g rows left over, reduced apart and then joined (added one
    // by one to a large sum, each could be lost to rounding).
    if (const int64_t rest = r - rows * g; rest > 0) {
      A rest_acc[kColumnBlock];
      ColumnReduce<In, A, K>(src + (o * r + rows * g) * inner, inner, rest,
                             inner, rest_acc);
      Joins::Join(acc, rest_acc, inner);
    }
    std::copy(acc, acc + inner, out);
  };

  const double block_bytes =
      static_cast<double>(std::min(kColumnBlock, width) * sizeof(In));
  const Eigen::TensorOpCost cost(block_bytes * rows / np, block_bytes,
                                 block_bytes * rows / np / sizeof(In));
  if (np == 1) {
    ParallelForUnits(device, tasks, work, cost,
                     [&](int64_t first, int64_t last) {
                       A acc[kColumnBlock];
                       for (int64_t t = first; t < last; ++t) {
                         const int64_t o = t / blocks;
                         const int64_t begin = (t % blocks) * kColumnBlock;
                         const int64_t len =
                             std::min(kColumnBlock, width - begin);
                         ColumnReduce<In, A, K>(src + o * r * inner + begin,
                                                width, rows, len, acc);
                         finish(o, t % blocks, acc);
                       }
                     });
    return;
  }
  // Few blocks with many rows: each block's tree is cut into subtrees that
  // run as tasks, then joined.
  std::unique_ptr<A[]> partial(new A[tasks * np * kColumnBlock]);
  ParallelForUnits(device, tasks * np, work, cost,
                   [&](int64_t first, int64_t last) {
                     for (int64_t u = first; u < last; ++u) {
                       const int64_t t = u / np;
                       const Piece& piece = pieces[u % np];
                       const int64_t o = t / blocks;
                       const int64_t begin = (t % blocks) * kColumnBlock;
                       const int64_t len =
                           std::min(kColumnBlock, width - begin);
                       ColumnReduce<In, A, K>(
                           src + (o * r + piece.begin * g) * inner + begin,
                           width, piece.size, len,
                           partial.get() + u * kColumnBlock);
                     }
                   });
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t begin = (t % blocks) * kColumnBlock;
    const int64_t len = std::min(kColumnBlock, width - begin);
    int64_t next = 0;
    A* acc = JoinTree<A, K>(partial.get() + t * np * kColumnBlock,
                            kColumnBlock, &next, rows, depth, kRowLeaf, len);
    finish(t / blocks, t % blocks, acc);
  }
}

// dst[o, i] = reduction over k of src[o, k, i]; REQUIRES: r >= 1.
template <typename In, typename A, ReduceKind K>
void ReducePass(const Device& device, const In* src, int64_t outer, int64_t r,
                int64_t inner, A* dst) {
  if (inner == 1) {
    RowPass<In, A, K>(device, src, outer, r, dst);
  } else {
    ColumnPass<In, A, K>(device, src, outer, r, inner, dst);
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
  using A = Accumulator<T, K>;
  using R = Reducer<A, K>;
  // Whether the accumulators are the output values themselves.
  static constexpr bool kDirect = std::is_same_v<A, T> &&
                                  K != ReduceKind::kMean &&
                                  K != ReduceKind::kEuclideanNorm;

  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    absl::StatusOr<std::vector<bool>> axes =
        ReductionAxes(ctx->input(1), rank);
    DFX_OP_REQUIRES_OK(ctx, axes.status());
    const std::vector<bool>& reduced = *axes;

    TensorShape out_shape;
    std::vector<Group> groups;
    int64_t count = 1;  // values reduced into each output value
    for (int i = 0; i < rank; ++i) {
      const int64_t size = input.dim_size(i);
      if (!reduced[i]) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(size));
      } else {
        count *= size;
        if (keep_dims_) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(1));
      }
      AppendDim(&groups, size, reduced[i]);
    }

    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n_out = out->NumElements();
    if (n_out == 0) return;
    T* o = out->data<T>();
    if (input.NumElements() == 0) {
      // Some reduced dim is empty while the output is not: TensorFlow's
      // identities (NaN for a floating-point Mean, 0 for an integer one).
      T value;
      if constexpr (K == ReduceKind::kMean && kIsComplex<T>) {
        value = T(0);  // TensorFlow's complex Mean of nothing is 0, not NaN
      } else if constexpr (K == ReduceKind::kMean && !std::is_integral_v<T>) {
        value = std::numeric_limits<T>::quiet_NaN();
      } else if constexpr (K == ReduceKind::kMean) {
        value = T(0);
      } else {
        value = Finalize<T, A, K>(R::Identity(), 1);
      }
      std::fill(o, o + n_out, value);
      return;
    }
    bool any_reduced = false;
    for (const Group& g : groups) any_reduced |= g.reduced;
    if (!any_reduced) {
      // Only size-1 dims are reduced: each output is one input value.
      if constexpr (K == ReduceKind::kEuclideanNorm) {
        const T* in = input.data<T>();
        ParallelFor(*ctx->device(), n_out,
                    Eigen::TensorOpCost(sizeof(T), sizeof(T), 3),
                    [&](int64_t first, int64_t last) {
                      for (int64_t i = first; i < last; ++i) {
                        o[i] = Finalize<T, A, K>(
                            R::Prepare(static_cast<A>(in[i])), 1);
                      }
                    });
      } else {
        absl::StatusOr<Tensor> reshaped = input.Reshaped(out_shape);
        DFX_OP_REQUIRES_OK(ctx, reshaped.status());
        ctx->set_output(0, *std::move(reshaped));
      }
      return;
    }

    // Reduce the innermost reduced group until none is left. Passes after
    // the first read the accumulators of the one before.
    const Device& device = *ctx->device();
    Tensor acc_tensor;  // the last pass's accumulators, unless kDirect
    A* acc = nullptr;
    if constexpr (kDirect) {
      acc = o;
    } else {
      DFX_OP_REQUIRES_OK(ctx, AllocateAccumulators(ctx, n_out, &acc_tensor));
      acc = acc_tensor.data<A>();
    }
    const A* prev = nullptr;  // null: the first pass reads the input
    Tensor prev_tensor;
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
      A* dst = acc;
      Tensor next;
      if (!last_pass) {
        DFX_OP_REQUIRES_OK(ctx,
                           AllocateAccumulators(ctx, outer * inner, &next));
        dst = next.data<A>();
      }
      if (prev == nullptr) {
        ReducePass<T, A, K>(device, input.data<T>(), outer, r, inner, dst);
      } else {
        // EuclideanNorm squared its values in the first pass: later passes
        // add the partial sums.
        constexpr ReduceKind kLater =
            K == ReduceKind::kEuclideanNorm ? ReduceKind::kSum : K;
        ReducePass<A, A, kLater>(device, prev, outer, r, inner, dst);
      }
      if (last_pass) break;
      prev_tensor = std::move(next);
      prev = prev_tensor.data<A>();
      // Drop group j and merge its kept neighbours.
      std::vector<Group> rest;
      for (int i = 0; i < static_cast<int>(groups.size()); ++i) {
        if (i != j) AppendDim(&rest, groups[i].size, groups[i].reduced);
      }
      groups = std::move(rest);
    }

    if constexpr (!kDirect) {
      ParallelFor(device, n_out,
                  Eigen::TensorOpCost(sizeof(A), sizeof(T), 2),
                  [&](int64_t first, int64_t last) {
                    for (int64_t i = first; i < last; ++i) {
                      o[i] = Finalize<T, A, K>(acc[i], count);
                    }
                  });
    }
  }

 private:
  // A scratch tensor of n accumulators.
  static absl::Status AllocateAccumulators(OpKernelContext* ctx, int64_t n,
                                           Tensor* out) {
    return ctx->allocate_temp(DataTypeToEnum<A>::value, TensorShape({n}), out);
  }

  bool keep_dims_ = false;
};

template <ReduceKind K, typename... Ts>
void RegisterKind(KernelRegistry* registry, const char* op) {
  const DataTypeVector tidx = {DT_INT32, DT_INT64};
  (RegisterKernel<ReductionOp<Ts, K>>(
       registry, KernelDefBuilder(op).TypeConstraint<Ts>("T").TypeConstraint(
                     "Tidx", tidx)),
   ...);
}

template <ReduceKind K>
void RegisterNumeric(KernelRegistry* registry, const char* op) {
  RegisterKind<K, float, double, Eigen::half, Eigen::bfloat16, int8_t,
               int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
               uint64_t>(registry, op);
}

}  // namespace

void RegisterReductionKernels(KernelRegistry* registry) {
  RegisterNumeric<ReduceKind::kSum>(registry, "Sum");
  RegisterNumeric<ReduceKind::kMean>(registry, "Mean");
  // Complex sums and means (tf.signal graphs, spectra averaged over frames),
  // products and norms.
  RegisterKind<ReduceKind::kSum, std::complex<float>, std::complex<double>>(
      registry, "Sum");
  RegisterKind<ReduceKind::kMean, std::complex<float>, std::complex<double>>(
      registry, "Mean");
  RegisterNumeric<ReduceKind::kProd>(registry, "Prod");
  RegisterKind<ReduceKind::kProd, std::complex<float>, std::complex<double>>(
      registry, "Prod");
  RegisterKind<ReduceKind::kEuclideanNorm, std::complex<float>,
               std::complex<double>>(registry, "EuclideanNorm");
  RegisterNumeric<ReduceKind::kMax>(registry, "Max");
  RegisterNumeric<ReduceKind::kMin>(registry, "Min");
  RegisterNumeric<ReduceKind::kEuclideanNorm>(registry, "EuclideanNorm");
  // All and Any have no type attr: their input is bool.
  const DataTypeVector tidx = {DT_INT32, DT_INT64};
  RegisterKernel<ReductionOp<bool, ReduceKind::kAll>>(
      registry, KernelDefBuilder("All").TypeConstraint("Tidx", tidx));
  RegisterKernel<ReductionOp<bool, ReduceKind::kAny>>(
      registry, KernelDefBuilder("Any").TypeConstraint("Tidx", tidx));
}

}  // namespace dfx::nn_internal

// What the CUDA kernels of gpu/kernels/ share: block size and grid size
// for grid-stride loops. Plain C++ for nvcc.
#ifndef DFX_GPU_KERNELS_LAUNCH_H_
#define DFX_GPU_KERNELS_LAUNCH_H_

#include <cstdint>

namespace dfx::gpu {

inline constexpr int kThreadsPerBlock = 256;

// Blocks for `n` elements, one per thread, at most 65536 (a grid-stride
// loop covers the rest).
inline int BlocksFor(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<int>(blocks < 65536 ? blocks : 65536);
}

// Blocks for `items` (rows, channels) of one block each, at most 65536 (a
// grid-stride loop over the items covers the rest).
inline int BlockPerItem(int64_t items) {
  return static_cast<int>(items < 65536 ? items : 65536);
}

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_LAUNCH_H_

// FrameAndIter: which loop frame instance and iteration a value belongs to.
// Its own header so that kernels (op_kernel.h) need not include the
// rendezvous.
#ifndef DFX_RUNTIME_FRAME_AND_ITER_H_
#define DFX_RUNTIME_FRAME_AND_ITER_H_

#include <cstdint>

namespace dfx {

// Frame and iteration of a tensor inside control-flow frames; (0, 0) at the
// top level.
struct FrameAndIter {
  uint64_t frame_id = 0;
  int64_t iter_id = 0;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_FRAME_AND_ITER_H_

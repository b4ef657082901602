// The Cast kernel, for the kernel families that add casts of their own
// types (kernels/fft/complex_ops.cc: to and from complex): a cast of a
// range of elements, and registration of a Cast kernel that runs what a
// finder picks for its SrcT and DstT.
#ifndef DFX_KERNELS_MATH_CAST_OP_H_
#define DFX_KERNELS_MATH_CAST_OP_H_

#include <cstdint>

#include "graph/types.h"
#include "runtime/op_kernel.h"

namespace dfx {

// Casts elements [first, last) of `in` into `out`.
using CastFn = void (*)(const void* in, void* out, int64_t first,
                        int64_t last);

// The cast from `src` to `dst`, with the Truncate attr's value; null when
// the finder has none for the pair.
using CastFinder = CastFn (*)(DataType src, DataType dst, bool truncate);

// Registers a Cast kernel for SrcT in `src` and DstT in `dst`: SrcT ==
// DstT passes the input through, other pairs run what `find` returns
// (Unimplemented, naming both types, when it returns null).
void RegisterCastKernel(KernelRegistry* registry, CastFinder find,
                        const DataTypeVector& src, const DataTypeVector& dst);

}  // namespace dfx

#endif  // DFX_KERNELS_MATH_CAST_OP_H_

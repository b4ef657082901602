// The string kernels TensorFlow's Saver graphs use around the checkpoint
// ops: ShardedFilename, ShardedFilespec, StringJoin, StaticRegexFullMatch.
// Registered by RegisterIoKernels.
#ifndef DFX_KERNELS_IO_STRING_KERNELS_H_
#define DFX_KERNELS_IO_STRING_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::io_internal {

void RegisterIoStringKernels(KernelRegistry* registry);

}  // namespace dfx::io_internal

#endif  // DFX_KERNELS_IO_STRING_KERNELS_H_

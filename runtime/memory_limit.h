// The host memory limit: the most bytes of tensor buffers that
// CpuAllocator() holds at once, for the whole process.
//
// An allocation that would go beyond the limit fails: Tensor::Allocate and
// OpKernelContext::allocate_output answer ResourceExhausted naming the size
// and what is in use, the executor names the node, the step fails and the
// process lives on. Allocations that cannot fail by their API (the
// Tensor(dtype, shape) constructor: scalars, handles, deep copies) are
// counted but never refused.
#ifndef DFX_RUNTIME_MEMORY_LIMIT_H_
#define DFX_RUNTIME_MEMORY_LIMIT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx {

// Zero: no limit (the default until set). Thread-safe; applies to later
// allocations (buffers held already stay).
void SetHostMemoryLimit(int64_t bytes);
int64_t HostMemoryLimit();

// 70% of the memory this process may use: the physical memory, or the
// cgroup's limit when that is lower. The rest is for what the limit does
// not count (protobuf copies of tensors on the wire, gRPC's buffers, code).
int64_t DefaultHostMemoryLimit();

// OK when `bytes` more fit beside what CpuAllocator() holds, under the
// limit; ResourceExhausted naming `what`, the size, the bytes in use and the
// limit otherwise (always OK without a limit). For memory the allocator does
// not see but an input makes dfx take: the heap bytes of string elements
// that a short `string_val` list pads out to a large shape.
absl::Status CheckHostMemoryHeadroom(int64_t bytes, absl::string_view what);

// "17179869184", "16G", "16GiB", "512M", "0" (no limit): binary units K, M,
// G, T with an optional "iB"/"B". InvalidArgument naming `flag` otherwise.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view flag,
                                      absl::string_view value);

// While one lives, allocations on its thread are never refused (they are
// still counted). For the allocation paths that cannot report an error.
class UnlimitedAllocationScope {
 public:
  UnlimitedAllocationScope();
  ~UnlimitedAllocationScope();
  UnlimitedAllocationScope(const UnlimitedAllocationScope&) = delete;
  UnlimitedAllocationScope& operator=(const UnlimitedAllocationScope&) =
      delete;

 private:
  bool previous_;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_MEMORY_LIMIT_H_

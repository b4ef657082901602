// Helpers for iterators' Save and Restore: bounded integers, lists of
// elements and kept statuses in an IteratorState.
#ifndef DFX_KERNELS_DATA_STATE_UTIL_H_
#define DFX_KERNELS_DATA_STATE_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/data/dataset.h"

namespace dfx::data {

// The int64 under prefix/name when it lies in [lo, hi]; InvalidArgument
// naming the key when it is absent, not an int64 or out of range.
absl::StatusOr<int64_t> ReadIntInRange(const IteratorState& state,
                                       absl::string_view prefix,
                                       absl::string_view name, int64_t lo,
                                       int64_t hi);

// A list of elements under prefix/name ("<name>/count", "<name>[i]").
void WriteElements(IteratorState* state, absl::string_view prefix,
                   absl::string_view name,
                   const std::vector<std::vector<Tensor>>& elements);
absl::StatusOr<std::vector<std::vector<Tensor>>> ReadElements(
    const IteratorState& state, absl::string_view prefix,
    absl::string_view name);

// A status kept with a buffered element ("<name>/code", "<name>/message").
void WriteStatus(IteratorState* state, absl::string_view prefix,
                 absl::string_view name, const absl::Status& status);
// Reads into `*status` what WriteStatus wrote (not a StatusOr<Status>,
// whose error and value would mix).
absl::Status ReadStatus(const IteratorState& state, absl::string_view prefix,
                        absl::string_view name, absl::Status* status);

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_STATE_UTIL_H_

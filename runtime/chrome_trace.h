// Chrome trace-event JSON (the format chrome://tracing and Perfetto open)
// from the StepStats of traced steps: one process per device and one per
// RecvTensor transfer stream (source task to destination task), a complete
// ("X") event per node with its op, inputs and outputs as args, a complete
// event per transfer with its bytes, and a flow ("s" then "f", one id) from
// each _Send to the _Recv that took its tensor.
#ifndef DFX_RUNTIME_CHROME_TRACE_H_
#define DFX_RUNTIME_CHROME_TRACE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/step_stats.pb.h"

namespace dfx {

// The trace of `steps` (each one step's merged StepStats, e.g.
// RunMetadata.step_stats), in one timeline: times are microseconds from the
// earliest recorded start. Events of each track are in time order. Nodes
// with a "name = Op(a, b)" timeline label get args.op and args.inputs;
// _Send/_Recv labels "name = _Send(tensor @device)" pair up by tensor name
// (in time order, for loops) into flows.
std::string StepStatsToChromeTrace(absl::Span<const StepStats> steps);

// Writes StepStatsToChromeTrace(steps) to `path` (replaced atomically: a
// temporary file, then a rename). Errors name the file.
absl::Status WriteChromeTrace(const std::string& path,
                              absl::Span<const StepStats> steps);

}  // namespace dfx

#endif  // DFX_RUNTIME_CHROME_TRACE_H_

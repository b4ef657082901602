// tfdbg v1 dump files as TensorFlow's DebugFileIO writes them: one
// serialized Event per file (no TFRecord framing) whose summary holds one
// value with the tensor, at
//   <dump_root>/_tfdbg_device_<device, ':'->'_', '/'->','>/<node scopes>/
//       <node base name>_<output slot>_<debug op>_<wall time in us>[-<i>]
// which tensorflow.python.debug.lib.debug_data.DebugDumpDir reads; and the
// graph files beside them.
#ifndef DFX_KERNELS_DEBUG_DEBUG_DUMP_H_
#define DFX_KERNELS_DEBUG_DEBUG_DUMP_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/event.pb.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"

namespace dfx::debug {

// What a debug op watches: TensorFlow's DebugNodeKey.
struct DebugWatchKey {
  std::string device_name;  // the device_name attr
  std::string node_name;    // the watched node, "scope/name"
  int32_t output_slot = 0;
  std::string debug_op;  // "DebugIdentity", "DebugNanCount", ...

  // "<node_name>:<output_slot>:<debug_op>", the Summary value's node_name.
  std::string DebugNodeName() const;
};

// The device folder's name: "_tfdbg_device_" and `device_name` with ':'
// replaced by '_' and '/' by ','.
std::string DeviceNameToDevicePath(const std::string& device_name);

// The Event TensorFlow dumps for `tensor`: wall_time `wall_time_us`, one
// summary value (node_name, tag, the "debugger" plugin's JSON metadata
// {"device","outputSlot","numChunks":1,"chunkIndex":0}, the tensor: strings
// in string_val, other types in tensor_content).
Event MakeDebugEvent(const DebugWatchKey& key, const Tensor& tensor,
                     uint64_t wall_time_us);

// Writes MakeDebugEvent's bytes under `dump_root` (created when missing)
// at TensorFlow's path, with "-1", "-2", ... appended while the path is
// taken. Returns the file's path. InvalidArgument when the node name would
// leave the dump root (an empty, "." or ".." part, a leading '/'), or the
// dump root is empty; FailedPrecondition when a folder cannot be made or
// the file cannot be written. Errors name the watched node.
absl::StatusOr<std::string> DumpTensorToDir(const DebugWatchKey& key,
                                            const Tensor& tensor,
                                            uint64_t wall_time_us,
                                            const std::string& dump_root);

// Writes `graph` (the partition of one device) as tfdbg's graph file,
// <dump_root>/_tfdbg_device_<device>/_tfdbg_graph_hash<hash>_<wall time
// in us>: one Event whose graph_def holds the serialized GraphDef, which
// DebugDumpDir reads for the devices' nodes. The hash is FNV-1a of the
// bytes (TensorFlow's is its own Hash64; nothing reads it back). Errors as
// DumpTensorToDir's, naming the device.
absl::Status DumpGraphToDir(const std::string& device_name,
                            const GraphDef& graph, uint64_t wall_time_us,
                            const std::string& dump_root);

}  // namespace dfx::debug

#endif  // DFX_KERNELS_DEBUG_DEBUG_DUMP_H_

// tfdbg v1 dump files (debug_dump.h).
#include "kernels/debug/debug_dump.h"

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "runtime/file_policy.h"

namespace dfx::debug {
namespace fs = std::filesystem;

std::string DebugWatchKey::DebugNodeName() const {
  return absl::StrCat(node_name, ":", output_slot, ":", debug_op);
}

std::string DeviceNameToDevicePath(const std::string& device_name) {
  return absl::StrCat(
      "_tfdbg_device_",
      absl::StrReplaceAll(device_name, {{":", "_"}, {"/", ","}}));
}

namespace {

// A JSON string literal of `s`.
std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, "\\u00", (c < 0x10 ? "0" : ""),
                          absl::Hex(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace

Event MakeDebugEvent(const DebugWatchKey& key, const Tensor& tensor,
                     uint64_t wall_time_us) {
  Event event;
  event.set_wall_time(static_cast<double>(wall_time_us));
  Summary::Value* value = event.mutable_summary()->add_value();
  value->set_node_name(key.DebugNodeName());
  value->set_tag(key.node_name);
  // TensorFlow prints DebuggerEventMetadata with protobuf's JSON printer
  // (every primitive field, lowerCamelCase names, no spaces).
  SummaryMetadata::PluginData* plugin =
      value->mutable_metadata()->mutable_plugin_data();
  plugin->set_plugin_name("debugger");
  plugin->set_content(absl::StrCat("{\"device\":", JsonString(key.device_name),
                                   ",\"outputSlot\":", key.output_slot,
                                   ",\"numChunks\":1,\"chunkIndex\":0}"));
  // Strings go in string_val so that tensor_util.MakeNdarray reads them;
  // everything else in tensor_content, as TensorFlow's WrapTensorAsEvents.
  if (!tensor.IsInitialized()) {
    // No value to write: the type and shape, as tfdbg's reader expects of
    // an uninitialized tensor.
    value->mutable_tensor()->set_dtype(tensor.dtype());
    tensor.shape().AsProto(value->mutable_tensor()->mutable_tensor_shape());
  } else if (tensor.dtype() == DT_STRING) {
    tensor.AsProtoField(value->mutable_tensor());
  } else {
    tensor.AsProtoTensorContent(value->mutable_tensor());
  }
  return event;
}

absl::StatusOr<std::string> DumpTensorToDir(const DebugWatchKey& key,
                                            const Tensor& tensor,
                                            uint64_t wall_time_us,
                                            const std::string& dump_root) {
  const std::string watch = key.DebugNodeName();
  if (dump_root.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "debug watch ", watch, ": the file:// debug URL has no dump root"));
  }
  // The node's scopes become folders: each must be a plain name, so that
  // nothing is written outside the dump root.
  std::vector<std::string> parts = absl::StrSplit(key.node_name, '/');
  for (const std::string& part : parts) {
    if (part.empty() || part == "." || part == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          "debug watch ", watch, ": node name \"", key.node_name,
          "\" cannot name a dump file inside the dump root ", dump_root));
    }
  }
  // A server's --data-dir confines the dump root, as it does checkpoints.
  absl::StatusOr<std::string> root = ResolveDataPath(watch, dump_root);
  if (!root.ok()) return root.status();
  fs::path dir = fs::path(*root) / DeviceNameToDevicePath(key.device_name);
  for (size_t i = 0; i + 1 < parts.size(); ++i) dir /= parts[i];
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return absl::FailedPreconditionError(
        absl::StrCat("debug watch ", watch, ": failed to create directory ",
                     dir.string(), ": ", ec.message()));
  }
  const std::string stem =
      (dir / absl::StrCat(parts.back(), "_", key.output_slot, "_", key.debug_op,
                          "_", wall_time_us))
          .string();
  std::string path = stem;
  for (uint64_t i = 1; fs::exists(path, ec); ++i) {
    path = absl::StrCat(stem, "-", i);
  }
  std::string bytes;
  MakeDebugEvent(key, tensor, wall_time_us).SerializeToString(&bytes);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return absl::FailedPreconditionError(absl::StrCat(
        "debug watch ", watch, ": failed to write dump file ", path));
  }
  return path;
}

absl::Status DumpGraphToDir(const std::string& device_name,
                            const GraphDef& graph, uint64_t wall_time_us,
                            const std::string& dump_root) {
  if (dump_root.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "graph of ", device_name, ": the file:// debug URL has no dump root"));
  }
  Event event;
  event.set_wall_time(static_cast<double>(wall_time_us));
  graph.SerializeToString(event.mutable_graph_def());
  uint64_t hash = 14695981039346656037ull;
  for (char c : event.graph_def()) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  absl::StatusOr<std::string> root =
      ResolveDataPath(absl::StrCat("graph of ", device_name), dump_root);
  if (!root.ok()) return root.status();
  const fs::path dir = fs::path(*root) / DeviceNameToDevicePath(device_name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return absl::FailedPreconditionError(
        absl::StrCat("graph of ", device_name, ": failed to create directory ",
                     dir.string(), ": ", ec.message()));
  }
  const std::string path =
      (dir / absl::StrCat("_tfdbg_graph_hash", hash, "_", wall_time_us))
          .string();
  std::string bytes;
  event.SerializeToString(&bytes);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return absl::FailedPreconditionError(
        absl::StrCat("graph of ", device_name, ": failed to write ", path));
  }
  return absl::OkStatus();
}

}  // namespace dfx::debug

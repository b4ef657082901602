// Fuzzes what a GraphDef from outside goes through before any kernel runs,
// as `dfx run` and a master's Extend and RunStep do it: parsing (binary or
// text format), the function library, ImportGraphDef's validation, lowering
// of functional ops, placement on two tasks, the step rewrite and
// partitioning; then each partition is imported again as a worker's
// RegisterGraph does.
//
// Input: one mode byte, then the GraphDef. Mode bit 0: text format (else
// binary); bit 1: import with allow_internal_names (a worker's view).
// Every error must come back as a status; a crash, a sanitizer report, a
// leak or a timeout is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "graph/client_graph.h"
#include "graph/function_library.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "graph/op_registry.h"
#include "graph/partition.h"
#include "graph/placer.h"
#include "proto/graph.pb.h"

namespace dfx {
namespace {

// Silences the text parser's error log (it reports through the collector).
class QuietErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
};

bool ParseGraphDef(bool text, const std::string& bytes, GraphDef* def) {
  if (!text) return def->ParseFromString(bytes);
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true);  // as ReadGraphDefFile
  QuietErrors errors;
  parser.RecordErrorsTo(&errors);
  return parser.ParseFromString(bytes, def);
}

constexpr char kTask0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1/device:CPU:0";

void Run(const uint8_t* data, size_t size) {
  if (size < 1) return;
  const uint8_t mode = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  GraphDef def;
  if (!ParseGraphDef(mode & 1, bytes, &def)) return;

  absl::StatusOr<std::unique_ptr<FunctionLibrary>> library =
      FunctionLibrary::Create(ReachableFunctions(def), OpRegistry::Global());
  if (!library.ok()) return;
  ImportOptions import_options;
  import_options.allow_internal_names = (mode & 2) != 0;
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(def, (*library)->op_registry(), import_options);
  if (!graph.ok()) return;
  // Export must give a GraphDef that imports again.
  const GraphDef exported = ToGraphDef(**graph);
  DFX_CHECK(ImportGraphDef(exported, (*library)->op_registry(),
                           import_options)
                .ok());

  LowerOptions lower;
  lower.max_nodes = 1 << 14;  // keep one input's work bounded
  if (!LowerFunctionalOps(**library, graph->get(), lower).ok()) return;
  PlacerOptions placer;
  placer.devices = {{kTask0, "CPU"}, {kTask1, "CPU"}};
  if (!PlaceGraph(placer, graph->get()).ok()) return;

  // A step fetching output 0 of the first few nodes that have one, and
  // running the rest as targets.
  ClientGraphOptions step;
  step.client_device = kTask0;
  step.client_device_incarnation = 1;
  for (const Node* n : (*graph)->nodes()) {
    if (n->num_outputs() > 0 && step.fetches.size() < 4) {
      step.fetches.push_back(absl::StrCat(n->name(), ":0"));
    } else if (step.targets.size() < 4) {
      step.targets.push_back(n->name());
    }
  }
  absl::StatusOr<std::unique_ptr<Graph>> client = RewriteForStep(**graph, step);
  if (!client.ok()) return;
  for (Node* n : (*client)->nodes()) {
    if (n->assigned_device_name().empty()) {
      n->set_assigned_device_name(kTask0);
    }
  }
  PartitionOptions popts;
  popts.get_incarnation = [](const std::string& device) {
    return device == kTask0 ? uint64_t{1} : uint64_t{2};
  };
  absl::StatusOr<std::map<std::string, GraphDef>> parts =
      Partition(**client, popts);
  if (!parts.ok()) return;
  ImportOptions worker_options;
  worker_options.allow_internal_names = true;
  for (const auto& [device, part] : *parts) {
    absl::StatusOr<std::unique_ptr<FunctionLibrary>> part_library =
        FunctionLibrary::Create(ReachableFunctions(part), OpRegistry::Global());
    if (!part_library.ok()) continue;
    ImportGraphDef(part, (*part_library)->op_registry(), worker_options)
        .status()
        .IgnoreError();
  }
}

}  // namespace
}  // namespace dfx

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dfx::Run(data, size);
  return 0;
}

// Golden cases from TensorFlow 2.21: every case under tests/golden/data/
// (written by the gen_*.py generators, see golden_lib.py) runs through a
// dfx local session, and its outputs must equal TensorFlow's within the
// case's tolerance, or its error must carry TensorFlow's code.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "catch2/catch.hpp"
#include "base/logging.h"
#include "graph/graph_def_import.h"
#include "nlohmann/json.hpp"
#include "runtime/session.h"
#include "runtime/types.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tools/cli/npy.h"
#include "tests/golden/golden_util.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using golden::Compare;
using golden::kGoldenDir;
using golden::ReadJson;

// The families a generator writes; a folder not listed here fails the
// "no unknown families" case so it cannot be skipped silently.
const char* const kFamilies[] = {
    "array",        "gather",    "math",         "numerics",       "nn",
    "conv",         "linalg",    "random",       "models",         "training",
    "control_flow", "data_flow", "list",         "pool_argmax",    "unsigned",
    "dataset",      "queues",    "lookup",       "strings",        "image",
    "sparse",       "matrix",    "dataset_scan", "volumetric",     "fft",
    "misc",         "codec",     "coverage",     "dataset_window", "nn2",
    "complex",      "summary",   "text",         "rng2",           "state2",
    "dataset2",     "image2",    "readers",      "dataset3",       "legacy",
    "var_errors",   "rnn_cells", "quantized",    "staging",        "ragged2",
    "seqex",        "tmap",      "tarray",       "mutex",          "ckptv1",
    "dhash",        "debug",     "estimator",    "batching",       "csr",
    "uquant",       "itckpt",    "collective2",  "dataset4",
    "proto",        "xla2",      "qfused",       "misc2",          "conv3",
    "sess",         "xla1",      "dataset5",     "itckpt2",        "sdca",
    "readers2",     "graphfn",   "dataset6",
    "dataopt", "summarydb", "calib", "seedfor", "stats", "dtypes2",
    "dataservice", "jxl", "distsnap", "sobol", "audio", "randaccess",
    "fused"};
// Folders of golden data in other formats, each run by its own test file.
const char* const kOtherFolders[] = {
    "train_graphs",  // train_graphs_test.cc
    "collective",    // TF's collective OpDefs:
                     // tests/kernels/collective_ops_test.cc
    "tfrecord",      // TF-written input files: tests/kernels/dataset_test.cc
    "rpc",           // TF's RPC OpDefs (no cases): tests/kernels/rpc_test.cc
    "pyfunc",  // TF's PyFunc OpDefs (no cases): tests/kernels/pyfunc_test.cc
    "calib_files",  // TF-written calibration files: calib_files_test.cc
};

// Puts the nodes of `graph` alternately on CPU:0 and CPU:1, so that loops,
// conditionals and their deadness cross devices. Placeholders, NoOps,
// stacks, TensorArrays and nodes in a `_class` colocation group stay on
// CPU:0: TensorFlow colocates those, so split they would only make a
// placement error.
void Spread(GraphDef* graph) {
  const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:";
  std::set<std::string> colocated;
  for (const NodeDef& n : graph->node()) {
    auto it = n.attr().find("_class");
    if (it == n.attr().end()) continue;
    colocated.insert(n.name());
    for (const std::string& c : it->second.list().s()) {
      if (c.rfind("loc:@", 0) == 0) colocated.insert(c.substr(5));
    }
  }
  int i = 0;
  for (NodeDef& n : *graph->mutable_node()) {
    const bool pinned =
        n.op() == "Placeholder" || n.op() == "PlaceholderWithDefault" ||
        n.op() == "NoOp" || n.op().rfind("Stack", 0) == 0 ||
        n.op().rfind("TensorArray", 0) == 0 || colocated.count(n.name()) > 0;
    n.set_device(cpu + (pinned ? "0" : std::to_string(i++ % 2)));
  }
}

// What is wrong with `s` and `outputs` against a step (or case) spec that
// has "error" or "outputs"; empty when they agree.
std::string CheckResult(const fs::path& dir, const nlohmann::json& spec,
                        const std::vector<std::string>& fetches,
                        const absl::Status& s,
                        const std::vector<Tensor>& outputs) {
  if (spec.contains("error")) {
    const std::string want = spec["error"]["code"];
    if (s.ok()) return absl::StrCat("succeeded; TensorFlow failed with ", want);
    if (absl::StatusCodeToString(s.code()) != want) {
      return absl::StrCat("failed with ", s.ToString(), "; TensorFlow with ",
                          want, ": ", spec["error"]["message"].get<std::string>());
    }
    return "";
  }
  if (!s.ok()) return s.ToString();
  std::vector<std::string> problems;
  const auto& specs = spec["outputs"];
  for (size_t i = 0; i < specs.size(); ++i) {
    absl::StatusOr<Tensor> want =
        golden::ReadTensorFile(dir / specs[i]["file"].get<std::string>());
    if (!want.ok()) return want.status().ToString();
    const std::string diff =
        Compare(outputs[i], *want, specs[i]["dtype"].get<std::string>(),
                specs[i]["rtol"].get<double>(), specs[i]["atol"].get<double>());
    if (!diff.empty()) problems.push_back(absl::StrCat(fetches[i], ": ", diff));
  }
  return absl::StrJoin(problems, "; ");
}

// A multi-step case (gen_queues.py): the steps run in order in one
// session, each with its fetches and targets, and each must give
// TensorFlow's outputs or error code. Steps wait on queues and
// accumulators, so the session's operation timeout turns a step that would
// wait forever into a failure.
std::string RunSteps(const fs::path& dir, const nlohmann::json& spec,
                     const GraphDef& graph) {
  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(2);
  options.config.set_operation_timeout_in_ms(60000);
  auto session = Session::Create("local", options);
  if (!session.ok()) return session.status().ToString();
  absl::Status s = (*session)->Extend(graph);
  if (!s.ok()) return s.ToString();
  const testing::TempDir scratch("dfx_golden_");
  std::vector<std::string> problems;
  int index = 0;
  for (const auto& step : spec["steps"]) {
    std::vector<std::string> fetches = step["fetches"];
    std::vector<std::string> targets = step["targets"];
    // Feeds of the step (gen_lookup.py); a string "@CASE_DIR@/..." names a
    // file of the case's folder, "@SCRATCH_DIR@/..." a file in a fresh
    // directory of this run of the case (where it writes).
    std::vector<std::pair<std::string, Tensor>> feeds;
    if (step.contains("feeds")) {
      for (const auto& feed : step["feeds"]) {
        absl::StatusOr<Tensor> value =
            golden::ReadTensorFile(dir / feed["file"].get<std::string>());
        if (!value.ok()) return value.status().ToString();
        if (value->dtype() == DT_STRING) {
          for (std::string& v : value->span<std::string>()) {
            if (absl::StartsWith(v, "@CASE_DIR@")) {
              v = dir.string() + v.substr(std::strlen("@CASE_DIR@"));
            } else if (absl::StartsWith(v, "@SCRATCH_DIR@")) {
              v = scratch.path() + v.substr(std::strlen("@SCRATCH_DIR@"));
            }
          }
        }
        feeds.emplace_back(feed["name"].get<std::string>(), *std::move(value));
      }
    }
    std::vector<Tensor> outputs;
    s = (*session)->Run(feeds, fetches, targets, &outputs);
    const std::string problem = CheckResult(dir, step, fetches, s, outputs);
    if (!problem.empty()) {
      problems.push_back(absl::StrCat("step ", index, ": ", problem));
    }
    ++index;
  }
  (void)(*session)->Close();
  return absl::StrJoin(problems, "; ");
}

// Runs one case (split over two devices when `spread`); returns what went
// wrong, or empty.
std::string RunCase(const fs::path& dir, bool spread = false) {
  absl::StatusOr<nlohmann::json> spec = ReadJson(dir / "case.json");
  if (!spec.ok()) return spec.status().ToString();
  absl::StatusOr<GraphDef> graph = ReadGraphDefFile((dir / "graph.pb").string());
  if (!graph.ok()) return graph.status().ToString();
  if (spec->contains("steps")) return RunSteps(dir, *spec, *graph);

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& feed : (*spec)["feeds"]) {
    absl::StatusOr<Tensor> value =
        golden::ReadTensorFile(dir / feed["file"].get<std::string>());
    if (!value.ok()) return value.status().ToString();
    if (feed["dtype"] == "bfloat16") {
      // NumPy has no bfloat16: golden_lib stores such feeds as float32.
      Tensor bf16(DT_BFLOAT16, value->shape());
      for (int64_t i = 0; i < bf16.NumElements(); ++i) {
        bf16.data<Eigen::bfloat16>()[i] =
            Eigen::bfloat16(value->data<float>()[i]);
      }
      value = std::move(bf16);
    } else if (feed["dtype"] == "complex64" || feed["dtype"] == "complex128") {
      value = golden::ComplexFromPairs(
          *value, feed["dtype"] == "complex64" ? DT_COMPLEX64 : DT_COMPLEX128);
      if (!value.ok()) return value.status().ToString();
    } else if (absl::StartsWith(feed["dtype"].get<std::string>(), "qint") ||
               absl::StartsWith(feed["dtype"].get<std::string>(), "quint")) {
      // golden_lib stores quantized feeds as integers of the same width.
      DataType dtype;
      if (!DataTypeFromString(feed["dtype"].get<std::string>(), &dtype)) {
        return absl::StrCat("unknown dtype ", feed["dtype"].get<std::string>());
      }
      value = golden::QuantizedFromStorage(*value, dtype);
      if (!value.ok()) return value.status().ToString();
    }
    feeds.emplace_back(feed["name"].get<std::string>(), *std::move(value));
  }
  std::vector<std::string> fetches = (*spec)["fetches"];

  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(2);
  if (spread) {
    Spread(&*graph);
    (*options.config.mutable_device_count())["CPU"] = 2;
  }
  auto session = Session::Create("local", options);
  if (!session.ok()) return session.status().ToString();
  std::vector<Tensor> outputs;
  absl::Status s = (*session)->Extend(*graph);
  if (s.ok()) s = (*session)->Run(feeds, fetches, {}, &outputs);
  (void)(*session)->Close();
  return CheckResult(dir, *spec, fetches, s, outputs);
}

// Cases of `family` (sorted), or those matching DFX_GOLDEN_FILTER.
std::vector<fs::path> Cases(const std::string& family) {
  std::vector<fs::path> cases;
  const fs::path root = fs::path(kGoldenDir) / family;
  if (!fs::exists(root)) return cases;
  const char* filter = std::getenv("DFX_GOLDEN_FILTER");
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    if (filter != nullptr &&
        entry.path().filename().string().find(filter) == std::string::npos) {
      continue;
    }
    cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

void RunFamily(const std::string& family, bool spread = false) {
  const std::vector<fs::path> cases = Cases(family);
  if (cases.empty() && std::getenv("DFX_GOLDEN_FILTER") == nullptr) {
    WARN("no golden cases for family " << family);
  }
  int failed = 0;
  for (const fs::path& dir : cases) {
    const std::string problem = RunCase(dir, spread);
    if (!problem.empty()) {
      ++failed;
      UNSCOPED_INFO(family << "/" << dir.filename().string() << ": " << problem);
    }
  }
  INFO(failed << " of " << cases.size() << " " << family << " cases failed");
  CHECK(failed == 0);
}

TEST_CASE("golden: array ops equal TensorFlow") { RunFamily("array"); }
TEST_CASE("golden: math ops equal TensorFlow") { RunFamily("math"); }
TEST_CASE("golden: gather and scatter ops equal TensorFlow") {
  RunFamily("gather");
}
TEST_CASE("golden: nn ops equal TensorFlow") { RunFamily("nn"); }
TEST_CASE("golden: convolution and pooling ops equal TensorFlow") {
  RunFamily("conv");
}
TEST_CASE("golden: BatchMatMul and Einsum equal TensorFlow") {
  RunFamily("linalg");
}
TEST_CASE("golden: large reductions and edge cases equal TensorFlow") {
  RunFamily("numerics");
}
TEST_CASE("golden: random ops give TensorFlow's numbers") {
  RunFamily("random");
}
TEST_CASE("golden: whole models equal TensorFlow") { RunFamily("models"); }
TEST_CASE("golden: training ops equal TensorFlow") { RunFamily("training"); }
TEST_CASE("golden: control flow equals TensorFlow") {
  RunFamily("control_flow");
}
TEST_CASE("golden: control flow split over two devices equals TensorFlow") {
  // Each loop and conditional crosses devices: control loops, deadness over
  // _Send/_Recv, Enter and NextIteration values moved across before them.
  RunFamily("control_flow", /*spread=*/true);
}
TEST_CASE("golden: TensorArrays and stacks equal TensorFlow") {
  RunFamily("data_flow");
}
TEST_CASE("golden: TensorList ops equal TensorFlow") { RunFamily("list"); }
TEST_CASE("golden: tf.data pipelines yield TensorFlow's elements in order") {
  RunFamily("dataset");
}
TEST_CASE("golden: tf.data scan, reduce, unique, choose_from_datasets and "
          "their kin yield TensorFlow's elements") {
  RunFamily("dataset_scan");
}
TEST_CASE("golden: tf.data random, sample_from_datasets, window, "
          "group_by_window, sparse elements and rebatch yield TensorFlow's "
          "elements") {
  RunFamily("dataset_window");
}
TEST_CASE("golden: tf.data old op names, sliding windows and pass-through "
          "datasets yield TensorFlow's elements") {
  RunFamily("dataset2");
}
TEST_CASE("golden: queues and conditional accumulators equal TensorFlow") {
  // Multi-step cases: enqueue in one step, dequeue in later ones; closed
  // queues; accumulator means and sums, stale gradients dropped.
  RunFamily("queues");
}
TEST_CASE("golden: lookup tables equal TensorFlow") {
  // Multi-step cases: StaticHashTable, Keras StringLookup/IntegerLookup,
  // MutableHashTable insert/remove/import/export, text-file initializers.
  RunFamily("lookup");
}
TEST_CASE("golden: string ops equal TensorFlow") { RunFamily("strings"); }
TEST_CASE("golden: MaxPoolWithArgmax and its gradient equal TensorFlow") {
  RunFamily("pool_argmax");
}
TEST_CASE("golden: uint16/32/64 element-wise math equals TensorFlow") {
  RunFamily("unsigned");
}
TEST_CASE("golden: sparse tensor ops equal TensorFlow") {
  RunFamily("sparse");
}

TEST_CASE("golden: image resizing and rearrangement ops equal TensorFlow") {
  RunFamily("image");
}

TEST_CASE("golden: matrix band, diagonal and decomposition ops equal "
          "TensorFlow") {
  RunFamily("matrix");
}

TEST_CASE("golden: 3-D convolution and pooling, patches and morphology "
          "equal TensorFlow") {
  RunFamily("volumetric");
}

TEST_CASE("golden: complex numbers and FFTs equal TensorFlow") {
  RunFamily("fft");
}

TEST_CASE("golden: fake quantization and assorted ops equal TensorFlow") {
  RunFamily("misc");
}

TEST_CASE("golden: image and audio codecs equal TensorFlow") {
  RunFamily("codec");
}

TEST_CASE("golden: v1 ops, searchsorted, ReverseSequence and inverse "
          "hyperbolics equal TensorFlow") {
  RunFamily("coverage");
}

TEST_CASE("golden: quantization, truncated normals, fractional pooling "
          "and CTC beam search equal TensorFlow") {
  RunFamily("nn2");
}

TEST_CASE("golden: detection NMS, CropAndResize gradients and bounding-box "
          "drawing equal TensorFlow") {
  RunFamily("image2");
}

TEST_CASE("golden: complex products, functions and decompositions equal "
          "TensorFlow") {
  RunFamily("complex");
}

TEST_CASE("golden: summaries serialize as TensorFlow's, summary writers "
          "fail as TensorFlow's") {
  RunFamily("summary");
}

TEST_CASE("golden: text, sets, CSV and tensor parsing equal TensorFlow") {
  RunFamily("text");
}

TEST_CASE("golden: generator state ops, binomial, truncated normal and "
          "candidate samplers, bounding boxes and shuffles equal TensorFlow") {
  RunFamily("rng2");
}

TEST_CASE("golden: strided-slice and N-d scatter updates of variables, "
          "Inplace ops, CountUpTo and temporary variables equal TensorFlow") {
  // Multi-step cases: updates applied over several steps and read back,
  // CountUpTo reaching its limit.
  RunFamily("state2");
}

TEST_CASE("golden: tf.data statistics aggregators, the statistics datasets, "
          "IteratorGetModelProto and ComputeBatchSize equal TensorFlow") {
  // Summaries taken apart in the graphs (DecodeProtoV2): tags, counts and
  // byte histograms; a V2 aggregator's events read back from its file.
  RunFamily("stats");
}

TEST_CASE("golden: distsnap tf.data distributed snapshots read back") {
  RunFamily("distsnap");
}

TEST_CASE("golden: tf.CriticalSection's mutex ops, DecodePaddedRaw, "
          "IsotonicRegression and ParallelConcat equal TensorFlow") {
  // Multi-step cases: critical sections executed over several steps, two
  // executes contending in one step, a lock released as its step ends.
  RunFamily("mutex");
}

TEST_CASE("golden: V1 checkpoints (Save, SaveSlices, Restore, RestoreSlice, "
          "RestoreV2 on a V1 file) equal TensorFlow, byte for byte") {
  // Multi-step cases in the run's scratch directory: save, then restore;
  // files TensorFlow wrote, written back and restored.
  RunFamily("ckptv1");
}

TEST_CASE("golden: dense hash tables, MutableHashTableOfTensors, "
          "InitializeTableFromDataset and anonymous tables equal TensorFlow") {
  // Multi-step cases: inserts, removes, growth and imports over several
  // steps, the dense tables' bucket arrays exported bit for bit; anonymous
  // tables new in every step.
  RunFamily("dhash");
}

TEST_CASE("golden: bincount and count ops on sparse and ragged input "
          "equal TensorFlow") {
  RunFamily("ragged2");
}

TEST_CASE("golden: CSR sparse matrices (tf.linalg.experimental.sparse): "
          "conversions, products, AMD ordering and sparse Cholesky equal "
          "TensorFlow") {
  RunFamily("csr");
}

TEST_CASE("golden: TensorMap ops, RaggedGather and ragged tensors through "
          "variants, tf.map_fn and tf.data equal TensorFlow") {
  RunFamily("tmap");
}

TEST_CASE("golden: SequenceExample parsing, the sparse-tensors map of "
          "TF1 batching and DeserializeManySparse equal TensorFlow") {
  // Multi-step cases: SparseTensors added in one step, taken in the next.
  RunFamily("seqex");
}

TEST_CASE("golden: resource-variable ops on a variable never assigned, "
          "destroyed, or of another dtype fail with TensorFlow's codes") {
  // NotFound for every op but ReadVariableOp (FailedPrecondition);
  // InvalidArgument for a dtype mismatch.
  RunFamily("var_errors");
}

TEST_CASE("golden: TF1 readers fed by queues, MatchingFiles and WriteFile "
          "equal TensorFlow") {
  // Multi-step cases: a string_input_producer -> TFRecordReader ->
  // parse_single_example -> batch pipeline run step by step, and readers
  // read over several steps from files of their case's folder.
  RunFamily("readers");
}

TEST_CASE("golden: fused LSTM and GRU cells, BlockLSTM and their gradients "
          "equal TensorFlow") {
  RunFamily("rnn_cells");
}

TEST_CASE("golden: fixed-length record, CSV and matching-files datasets, "
          "TFRecordDatasetV2, thread pools and DatasetToTFRecord equal "
          "TensorFlow") {
  // Multi-step cases: an iterator made, then read element by element from
  // files of the case's folder up to TensorFlow's OutOfRange or error.
  RunFamily("dataset3");
}

TEST_CASE("golden: tf.data save and load equal TensorFlow") {
  // Multi-step cases: a save into a fresh directory, then a load of it;
  // directories TensorFlow saved (in the case's folder) loaded by dfx.
  RunFamily("dataset4");
}

TEST_CASE("golden: DecodeJSONExample, DecodeProtoV2 and EncodeProto equal "
          "TensorFlow byte for byte") {
  // Every field type and dtype, repeated fields padded with defaults,
  // hand-written wire bytes, text format, round trips; the descriptors
  // travel as bytes:// attrs or come from the local pool.
  RunFamily("proto");
}

TEST_CASE("golden: XLA reduce, reduce-window, select-and-scatter, sort and "
          "while ops equal TensorFlow's") {
  RunFamily("xla2");
}

TEST_CASE("golden: tf.data assert_next, assert_prev, auto-sharding and "
          "DatasetFingerprint equal TensorFlow") {
  // Multi-step cases: an iterator made (the assertions fail MakeIterator),
  // then read element by element.
  RunFamily("dataset5");
}

TEST_CASE("golden: SqlDataset over SQLite files and the removed LMDB ops "
          "equal TensorFlow") {
  // Multi-step cases: the database in the case folder, an iterator made,
  // then read row by row; iterator round trips; the LMDB ops' Unimplemented.
  RunFamily("readers2");
}

TEST_CASE("golden: tf.data DatasetToGraph, DatasetFromGraph, "
          "GetElementAtIndex, global_shuffle, IndexFlatMap and WeightedFlatMap "
          "equal TensorFlow") {
  // Multi-step cases: a pipeline written into a graph and made again,
  // then read element by element; graphs TensorFlow wrote, loaded; elements
  // by index; shuffled and flat-mapped pipelines; iterator saves.
  RunFamily("dataset6");
}

TEST_CASE("golden: ChooseFastestBranchDataset, MapDefun and WindowOp "
          "equal TensorFlow") {
  // Iterators over the datasets tf.data's optimizer emits (the branches'
  // elements, whichever wins; iterator saves), MapDefun in plain graphs.
  RunFamily("dataopt");
}

TEST_CASE("golden: TensorArray ops before V3 and stacks before V2 "
          "equal TensorFlow") {
  // From GraphDefs produced before the ops' deprecation: the v1 ops' Ref
  // string handles, the V2 ops' string handles, gradient arrays, an
  // unrolled dynamic_rnn body, stacks in push and pop order. Split over two
  // devices too: the arrays and stacks stay on one, their inputs come from
  // the other.
  RunFamily("tarray");
  RunFamily("tarray", /*spread=*/true);
}

TEST_CASE("golden: legacy ops: deprecated Batch matrix ops, v1 Conv3D "
          "backprops, Diag, ToBool, NextAfter, DataFormat ops and the "
          "special integrals equal TensorFlow") {
  RunFamily("legacy");
}

TEST_CASE("golden: quantized inference ops: Requantize, QuantizedMatMul, "
          "QuantizedConv2D, QuantizedBiasAdd, QuantizedRelu, QuantizedAdd, "
          "pools, concat and reshape equal TensorFlow bit for bit") {
  RunFamily("quantized");
}

TEST_CASE("golden: staging areas, staging maps and barriers equal "
          "TensorFlow across steps") {
  // Multi-step cases: Stage in one step, Unstage in later ones; map
  // entries put component by component; barrier inserts then takes.
  RunFamily("staging");
}

TEST_CASE("golden: tfdbg's Copy and Debug ops, their NaN counts and "
          "numeric summaries in every mode equal TensorFlow bit for bit") {
  // One multi-step case: a reference passed on by DebugGradientRefIdentity.
  RunFamily("debug");
}

TEST_CASE("golden: k-means sampling, vocabulary remapping and the SDCA "
          "fingerprint and L1 shrink equal TensorFlow") {
  // The samplers draw from TensorFlow's Philox stream: the same points and
  // indices bit for bit. Vocabulary files lie in the case folders;
  // SdcaShrinkL1 runs twice on reference variables read back.
  RunFamily("estimator");
}

TEST_CASE("golden: BatchFunction, Batch, Unbatch and UnbatchGrad of one "
          "request equal TensorFlow") {
  // One step, so one request per batch: padding to allowed_batch_sizes,
  // splits, bad attrs and inputs, the function's errors.
  RunFamily("batching");
}

TEST_CASE("golden: conv3 family (Conv and the fused pad and resize "
          "convolutions with ApproxTopK and RefSelect and Fact and the "
          "quantized resize and instance norm) equals TensorFlow") {
  RunFamily("conv3");
}

TEST_CASE("golden: XLA array ops (XlaDot, XlaPad, XlaGather, ...) equal "
          "TensorFlow's CPU kernels") {
  RunFamily("xla1");
}

TEST_CASE("golden: uniform quantized ops (per tensor and per axis) equal "
          "TensorFlow bit for bit") {
  RunFamily("uquant");
}

TEST_CASE("golden: fused quantized convolutions and matmuls (oneDNN's "
          "QuantizedConv2DWith*, QuantizedDepthwiseConv2D*, "
          "QuantizedMatMulWithBias*) equal TensorFlow") {
  RunFamily("qfused");
}

TEST_CASE("golden: session handles store tensors and fail as TensorFlow") {
  RunFamily("sess");
}

TEST_CASE("golden: tf.data iterators saved and restored (SerializeIterator, "
          "DeserializeIterator, a TF1 Saver checkpoint) continue as "
          "TensorFlow's") {
  // Multi-step cases: k elements, the state restored into a fresh
  // iterator (or through SaveV2/RestoreV2 in the run's scratch directory),
  // then the rest of the sequence.
  RunFamily("itckpt");
}

TEST_CASE("golden: misc2 TensorListPushBackBatch, DeviceIndex, resource "
          "handle queries, GraphDefVersion and DecodeWebP "
          "equal TensorFlow") {
  // Multi-step cases: a variable read around DisableCopyOnRead, one
  // assigned through its weak handle.
  RunFamily("misc2");
}

TEST_CASE("golden: sdca SdcaOptimizer and SdcaOptimizerV2 equal "
          "TensorFlow") {
  // Multi-step cases: a linear model trained in reference variables,
  // calls on shared weights one per step, then SdcaShrinkL1.
  RunFamily("sdca");
}

TEST_CASE("golden: graphfn SymbolicGradient of TF1 Defun functions "
          "equals TensorFlow") {
  // tf.gradients through Defun calls: math, matmul, several results,
  // nested calls, and an op without a gradient.
  RunFamily("graphfn");
}

TEST_CASE("golden: summarydb summary writers into SQLite databases "
          "write TensorFlow's rows") {
  // Multi-step cases: CreateSummaryDbWriter and the write ops, then the
  // database read back in the graph (SqlDataset), ids mapped to names.
  RunFamily("summarydb");
}

TEST_CASE("golden: seedfor For loops, FakeParam, FakeQueue, "
          "FileSystemSetConfiguration, SleepOp, DeleteRandomSeedGenerator "
          "and the Atanh gradient equal TensorFlow") {
  // Multi-step case: TF1's queue ops on a FIFOQueueV2 through FakeQueue.
  RunFamily("seedfor");
}

TEST_CASE("golden: jxl DecodeJxl and the JPEG XL path of the decode ops "
          "equal TensorFlow") {
  // Lossy, 16-bit and HDR files within 1 (gen_jxl.py: libjxl 0.7 vs 0.11).
  RunFamily("jxl");
}

TEST_CASE("golden: sobol SobolSample points of every dimension up to "
          "21200 equal TensorFlow's exactly") {
  RunFamily("sobol");
}

TEST_CASE(
    "golden: iterators of window, group_by_window, rebatch, unbatch, "
    "scan and the other tf.data datasets saved and restored continue "
    "as TensorFlow's") {
  RunFamily("itckpt2");
}

TEST_CASE("golden: calib CustomAggregator statistics and "
          "CalibrationStatisticsSaver equal TensorFlow") {
  // Multi-step cases: histograms over three steps, a saver fed by every
  // calibration method's aggregator.
  RunFamily("calib");
}

TEST_CASE("golden: audio AudioMicrofrontend features equal TensorFlow's "
          "bit for bit") {
  // Every configuration: PCAN, log, float output, contexts, strides, odd
  // rates and windows, silence and full-scale signals; TensorFlow's errors.
  RunFamily("audio");
}

TEST_CASE("golden: TensorFlow 1's collective ops (keys as attrs), "
          "CollectiveAssignGroupV2 and the communicator's V3 ops equal "
          "TensorFlow") {
  // Groups of one member; multi-step cases run one instance per step and
  // make a communicator twice.
  RunFamily("collective2");
}

TEST_CASE("golden: complex optimizers, unsigned activations, sums and "
          "fills, integer max-pooling gradients and half MatrixInverse and "
          "Qr equal TensorFlow") {
  // Multi-step cases: variables updated twice by each complex optimizer,
  // then read back.
  RunFamily("dtypes2");
}

TEST_CASE("golden: tf.data service client ops check their inputs as "
          "TensorFlow does") {
  // RegisterDataset(V2) and DataServiceDataset V1 to V4: the errors both
  // kernels raise before sending a request (no tf.data service runs here;
  // tests/interop/tf_data_service_client.py reads through TensorFlow's).
  RunFamily("dataservice");
}

TEST_CASE("golden: random access to datasets (GetElementAtIndex) and the "
          "global shuffle over it equal TensorFlow") {
  // One index per step, and iterators over global shuffles across epochs,
  // saved and restored.
  RunFamily("randaccess");
}

TEST_CASE("golden: _FusedConv2D and _FusedMatMul equal TensorFlow's CPU "
          "kernels") {
  // Every fused_ops combination TensorFlow serves, dtypes, geometry, empty
  // tensors and the errors of refused combinations.
  RunFamily("fused");
}

TEST_CASE("golden: every family folder is run by a test") {
  for (const auto& entry : fs::directory_iterator(kGoldenDir)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    INFO("family folder " << name);
    CHECK((std::find(std::begin(kFamilies), std::end(kFamilies), name) !=
               std::end(kFamilies) ||
           std::find(std::begin(kOtherFolders), std::end(kOtherFolders),
                     name) != std::end(kOtherFolders)));
  }
}

}  // namespace
}  // namespace dfx

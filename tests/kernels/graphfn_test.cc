// The graphfn family (tests/golden/gen_graphfn.py): TensorFlow 2.21's
// signatures, and what the golden cases cannot show: a lowered
// SymbolicGradient leaves no functional node and imports with the standard
// ops alone, its errors name the node (an op without a gradient, a call
// whose types do not fit the function's gradient); a CompositeTensorVariant
// travels as TensorFlow's VariantTensorData and decodes from it; RecordInput
// (whose file pattern is an attr, which golden cases cannot point at their
// folder) gives TensorFlow's records in TensorFlow's order, step after step.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/logging.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/function_library.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "graph/node_def_util.h"
#include "kernels/kernels.h"
#include "kernels/data/record_file.h"
#include "runtime/variant.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;

TEST_CASE("Every graphfn op has TensorFlow 2.21's signature and CPU kernels",
          "[graphfn]") {
  testing::CheckSignaturesWithTensorFlow("graphfn", 4);
}

// A CompositeTensorVariantMetadata whose TypeSpecProto's class is `c`.
std::string Metadata(char c) { return std::string("\x0a\x02\x08") + c; }

TEST_CASE(
    "A CompositeTensorVariant encodes as TensorFlow's VariantTensorData and "
    "unpacks after a round trip through the wire",
    "[graphfn]") {
  const std::string md = Metadata(3);  // RAGGED_TENSOR_SPEC
  Tensor values = Tensor::FromVector<float>({1.5f, 2.5f, -1.0f});
  Tensor splits = Tensor::FromVector<int64_t>({0, 1, 3});
  NodeDef from = testing::TestNodeBuilder(
                     "from", "CompositeTensorVariantFromComponents", 2)
                     .Attr("metadata", md.c_str())
                     .Attr("Tcomponents", DataTypeVector{DT_FLOAT, DT_INT64})
                     .Build();
  absl::StatusOr<std::vector<Tensor>> out =
      testing::RunKernel(from, {values, splits});
  REQUIRE_THAT(out.status(), IsOk());
  REQUIRE((*out)[0].dims() == 0);
  VariantTensorDataProto proto;
  (*out)[0].data<Variant>()[0].Encode(&proto);
  CHECK(proto.type_name() == "CompositeTensorVariant");
  CHECK(proto.metadata() == md);
  REQUIRE(proto.tensors_size() == 2);
  CHECK(proto.tensors(1).dtype() == DT_INT64);

  // As a TensorFlow client's feed arrives: decoded from the proto.
  absl::StatusOr<Variant> decoded = Variant::Decode(proto);
  REQUIRE_THAT(decoded.status(), IsOk());
  Tensor fed(DT_VARIANT, TensorShape({}));
  fed.data<Variant>()[0] = *decoded;
  NodeDef to =
      testing::TestNodeBuilder("to", "CompositeTensorVariantToComponents", 1)
          .Attr("metadata", md.c_str())
          .Attr("Tcomponents", DataTypeVector{DT_FLOAT, DT_INT64})
          .Build();
  out = testing::RunKernel(to, {fed});
  REQUIRE_THAT(out.status(), IsOk());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].data<float>()[2] == -1.0f);
  CHECK((*out)[1].data<int64_t>()[2] == 3);

  // Another TypeSpec class is refused, naming both.
  NodeDef sparse = to;
  (*sparse.mutable_attr())["metadata"].set_s(Metadata(1));
  out = testing::RunKernel(sparse, {fed});
  CHECK_THAT(out.status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Expected a SPARSE_TENSOR_SPEC (based on `type_spec`), "
                      "but `encoded` contains a RAGGED_TENSOR_SPEC"));
  // A variant of another kind.
  Tensor empty(DT_VARIANT, TensorShape({}));
  out = testing::RunKernel(to, {empty});
  CHECK_THAT(out.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "not a valid CompositeTensorVariant"));
}

// f(x) = <op>(x) * x, float; its gradient called as node "grad" with
// Tout `tout`.
std::string GradGraph(const std::string& op, const std::string& tout) {
  // clang-format off
  return absl::StrCat(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "grad"
      op: "SymbolicGradient"
      input: "x"
      input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: )pb", tout, R"pb( } } }
      attr { key: "f" value { func { name: "F" } } }
    }
    library {
      function {
        signature {
          name: "F"
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        node_def {
          name: "g"
          op: ")pb", op, R"pb("
          input: "x"
          attr { key: "T" value { type: DT_FLOAT } }
        }
        node_def {
          name: "mul"
          op: "Mul"
          input: "g:y:0"
          input: "x"
          attr { key: "T" value { type: DT_FLOAT } }
        }
        ret { key: "y" value: "mul:z:0" }
      }
    })pb");
  // clang-format on
}

struct Lowered {
  std::unique_ptr<FunctionLibrary> library;
  std::unique_ptr<Graph> graph;
  absl::Status status;
};

Lowered Lower(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  Lowered out;
  auto lib = FunctionLibrary::Create(def.library(), OpRegistry::Global());
  DFX_CHECK_OK(lib.status());
  out.library = *std::move(lib);
  auto graph = ImportGraphDef(def, out.library->op_registry());
  DFX_CHECK_OK(graph.status());
  out.graph = *std::move(graph);
  out.status = LowerFunctionalOps(*out.library, out.graph.get());
  return out;
}

TEST_CASE("SymbolicGradient lowers into the gradient function's nodes",
          "[graphfn]") {
  Lowered l = Lower(GradGraph("Sin", "DT_FLOAT"));
  REQUIRE_THAT(l.status, IsOk());
  int grad_nodes = 0;
  for (const Node* n : l.graph->nodes()) {
    INFO(n->name() << " " << n->type_string());
    CHECK_FALSE(IsFunctionalNode(*l.library, *n));
    grad_nodes += n->name().rfind("grad/gradients/", 0) == 0;
  }
  CHECK(grad_nodes > 0);
  // The call's name stays fetchable, and its result is dx.
  const Node* named = l.graph->FindNode("grad");
  REQUIRE(named != nullptr);
  CHECK(named->output_types() == DataTypeVector{DT_FLOAT});
  ImportOptions options;
  options.allow_internal_names = true;
  CHECK_THAT(ImportGraphDef(ToGraphDef(*l.graph), OpRegistry::Global(), options)
                 .status(),
             IsOk());
}

TEST_CASE("SymbolicGradient through an op without a gradient is NotFound",
          "[graphfn]") {
  Lowered l = Lower(GradGraph("Lgamma", "DT_FLOAT"));
  CHECK_THAT(l.status, StatusIs(absl::StatusCode::kNotFound,
                                "No gradient defined for op: Lgamma"));
  CHECK_THAT(l.status, StatusIs(absl::StatusCode::kNotFound, "'grad'"));
}

TEST_CASE("SymbolicGradient with Tout other than f's argument types fails",
          "[graphfn]") {
  Lowered l = Lower(GradGraph("Sin", "DT_DOUBLE"));
  CHECK_THAT(l.status,
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'grad'"));
}

// One RecordInput kernel run step after step (its buffer lives in the
// kernel, as in a session).
class RecordInputRunner {
 public:
  explicit RecordInputRunner(NodeDef node) {
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(node.op());
    DFX_CHECK(op != nullptr);
    AddDefaultAttrs(op->op_def, &node);
    auto kernel = StandardKernelRegistry()->CreateKernel(
        node, op->op_def, testing::TestCpuDevice());
    status_ = kernel.status();
    if (kernel.ok()) kernel_ = *std::move(kernel);
  }
  const absl::Status& status() const { return status_; }

  absl::StatusOr<std::vector<std::string>> Step() {
    OpKernelContext::Params params;
    params.step_id = 1;
    params.op_kernel = kernel_.get();
    params.device = testing::TestCpuDevice();
    OpKernelContext ctx(&params);
    kernel_->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    const Tensor& out = (*ctx.mutable_outputs())[0];
    return std::vector<std::string>(
        out.data<std::string>(), out.data<std::string>() + out.NumElements());
  }

 private:
  absl::Status status_;
  std::unique_ptr<OpKernel> kernel_;
};

void WriteRecords(const std::string& path, int from, int to) {
  auto w = data::RecordWriter::Create("test", path, data::Compression::kNone);
  DFX_CHECK_OK(w.status());
  for (int i = from; i < to; ++i) {
    DFX_CHECK_OK((*w)->Write(absl::StrCat("r", i)));
  }
  DFX_CHECK_OK((*w)->Close());
}

NodeDef RecordInputNode(const std::string& pattern, int64_t parallelism,
                        int64_t buffer, int64_t batch) {
  NodeDef n = testing::TestNodeBuilder("records", "RecordInput", 0)
                  .Attr("file_pattern", pattern.c_str())
                  .Attr("file_random_seed", int64_t{7})
                  .Attr("file_parallelism", parallelism)
                  .Attr("file_buffer_size", buffer)
                  .Attr("batch_size", batch)
                  .Build();
  return n;
}

TEST_CASE(
    "RecordInput with one shard and a buffer that holds an epoch gives "
    "TensorFlow's records in TensorFlow's order",
    "[graphfn]") {
  testing::TempDir dir;
  WriteRecords(dir.path() + "/data-0.tfrecord", 0, 40);
  RecordInputRunner r(
      RecordInputNode(dir.path() + "/data-*.tfrecord", 1, 100, 15));
  REQUIRE_THAT(r.status(), IsOk());
  // TensorFlow 2.21's four batches of this file (written with the same
  // records, seed 7, file_parallelism 1, file_buffer_size 100): an epoch of
  // 40 records, then the second epoch's first 20.
  const std::vector<std::vector<std::string>> want = {
      {"r0", "r25", "r35", "r19", "r26", "r31", "r39", "r2", "r6", "r37", "r8",
       "r13", "r1", "r22", "r38"},
      {"r17", "r10", "r30", "r28", "r16", "r7", "r32", "r4", "r11", "r33",
       "r36", "r27", "r20", "r9", "r14"},
      {"r29", "r5", "r24", "r18", "r34", "r15", "r3", "r12", "r23", "r21",
       "r24", "r9", "r27", "r11", "r25"},
      {"r26", "r12", "r5", "r29", "r14", "r7", "r8", "r17", "r1", "r32", "r18",
       "r22", "r20", "r23", "r35"}};
  for (size_t step = 0; step < want.size(); ++step) {
    INFO("step " << step);
    absl::StatusOr<std::vector<std::string>> got = r.Step();
    REQUIRE_THAT(got.status(), IsOk());
    CHECK(*got == want[step]);
  }
}

TEST_CASE(
    "RecordInput reads every record of every file once per epoch with "
    "several shards and a small buffer",
    "[graphfn]") {
  testing::TempDir dir;
  WriteRecords(dir.path() + "/a.tfrecord", 0, 30);
  WriteRecords(dir.path() + "/b.tfrecord", 30, 45);
  WriteRecords(dir.path() + "/c.tfrecord", 45, 50);
  RecordInputRunner r(RecordInputNode(
      dir.path() + "/a.tfrecord," + dir.path() + "/[bc].tfrecord", 2, 8, 25));
  REQUIRE_THAT(r.status(), IsOk());
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::string> all;
    for (int step = 0; step < 2; ++step) {
      absl::StatusOr<std::vector<std::string>> got = r.Step();
      REQUIRE_THAT(got.status(), IsOk());
      all.insert(all.end(), got->begin(), got->end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::string> want;
    for (int i = 0; i < 50; ++i) want.push_back(absl::StrCat("r", i));
    std::sort(want.begin(), want.end());
    CHECK(all == want);
  }
}

TEST_CASE("RecordInput's errors", "[graphfn]") {
  testing::TempDir dir;
  {
    RecordInputRunner r(RecordInputNode(dir.path() + "/none*", 1, 10, 2));
    REQUIRE_THAT(r.status(), IsOk());
    CHECK_THAT(r.Step().status(),
               StatusIs(absl::StatusCode::kNotFound, "Found no files at"));
    // Sticky, as TensorFlow's yielder.
    CHECK_THAT(r.Step().status(), StatusIs(absl::StatusCode::kNotFound));
  }
  // TensorFlow waits forever on these; dfx refuses them.
  CHECK_THAT(RecordInputRunner(RecordInputNode("x", 0, 10, 2)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "file_parallelism"));
  CHECK_THAT(RecordInputRunner(RecordInputNode("x", 1, 0, 2)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "file_buffer_size"));
  CHECK_THAT(RecordInputRunner(RecordInputNode("x", 1, 10, -1)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "batch_size"));
  WriteRecords(dir.path() + "/empty.tfrecord", 0, 0);
  RecordInputRunner empty(
      RecordInputNode(dir.path() + "/empty.tfrecord", 1, 10, 1));
  CHECK_THAT(empty.Step().status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "no record"));
}

}  // namespace
}  // namespace dfx

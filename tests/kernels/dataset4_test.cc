// The dataset4 family (graph/ops/dataset4_ops.cc, kernels/data/
// dataset4_kernels.cc): TensorFlow 2.21's signatures, the shape checks a
// graph meets at import, and what the golden cases (tests/golden/
// gen_dataset4.py) cannot show: save and load confined to the server's
// --data-dir; a save or load node whose function is missing from the
// graph's library fails when its kernel is built; a compressed element
// that crossed tasks (encoded, decoded) uncompresses.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/data/record_file.h"
#include "kernels/data/save_format.h"
#include "kernels/kernels.h"
#include "proto/graph.pb.h"
#include "runtime/file_policy.h"
#include "runtime/variant.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

namespace fs = std::filesystem;

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }
Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

// The graph of golden case `name` (its nodes and function library).
GraphDef GoldenGraph(const std::string& name) {
  GraphDef g;
  std::ifstream in(std::string(DFX_TEST_DATA_DIR) +
                       "/../golden/data/dataset4/" + name + "/graph.pb",
                   std::ios::binary);
  REQUIRE(g.ParseFromIstream(&in));
  return g;
}

// Runs the first node of op `op` in `graph`, its functions from the
// graph's library, on `inputs`.
absl::StatusOr<std::vector<Tensor>> RunGraphNode(
    const GraphDef& graph, const std::string& op,
    const std::vector<Tensor>& inputs) {
  const NodeDef* found = nullptr;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == op) found = &n;
  }
  if (found == nullptr) return absl::NotFoundError(op);
  NodeDef node = *found;
  node.clear_input();
  DFX_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                       OpRegistry::Global()->LookUpOrError(op));
  AddDefaultAttrs(reg->op_def, &node);
  DFX_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      StandardKernelRegistry()->CreateKernel(
          node, reg->op_def, testing::TestCpuDevice(), &graph.library()));
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = testing::TestCpuDevice();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  DFX_RETURN_IF_ERROR(ctx.status());
  return std::vector<Tensor>(ctx.mutable_outputs()->begin(),
                             ctx.mutable_outputs()->end());
}

// The int64 scalars a one-component dataset yields, or the first error.
absl::StatusOr<std::vector<int64_t>> Int64Elements(const Tensor& ds) {
  DFX_ASSIGN_OR_RETURN(
      std::vector<Tensor> it,
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {}));
  DFX_RETURN_IF_ERROR(
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(), {ds, it[0]})
          .status());
  std::vector<int64_t> out;
  while (true) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", DataTypeVector{DT_INT64})
                      .Build(),
                  {it[0]});
    if (absl::IsOutOfRange(e.status())) return out;
    if (!e.ok()) return e.status();
    out.push_back((*e)[0].data<int64_t>()[0]);
  }
}

TEST_CASE("Save and load stay inside the server's --data-dir", "[dataset4]") {
  const testing::TempDir data_tmp;
  const testing::TempDir outside_tmp;
  const fs::path data = data_tmp.path();
  const fs::path outside = outside_tmp.path();
  // The no_shard_func case: SaveDataset of one int64 per element, and a
  // LoadDataset whose reader_func reads the shards in order.
  const GraphDef graph = GoldenGraph("no_shard_func");
  absl::StatusOr<std::vector<Tensor>> range =
      RunKernel(TestNodeBuilder("r", "RangeDataset", 3)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {I64(41), I64(43), I64(1)});
  REQUIRE(range.ok());
  REQUIRE(SetDataDir(data.string()).ok());
  CHECK_THAT(RunGraphNode(graph, "SaveDataset",
                          {(*range)[0], Str((outside / "saved").string())})
                 .status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_THAT(RunGraphNode(graph, "SaveDataset",
                          {(*range)[0],
                           Str("../" + outside.filename().string() + "/saved")})
                 .status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK(fs::is_empty(outside));
  // A relative path is under the data directory.
  absl::Status saved =
      RunGraphNode(graph, "SaveDataset", {(*range)[0], Str("saved")}).status();
  CHECK(saved.ok());
  CHECK(fs::exists(data / "saved" / "snapshot.metadata"));
  CHECK_THAT(
      RunGraphNode(graph, "LoadDataset", {Str((outside / "saved").string())})
          .status(),
      StatusIs(absl::StatusCode::kPermissionDenied));
  absl::StatusOr<std::vector<Tensor>> loaded =
      RunGraphNode(graph, "LoadDataset", {Str("saved")});
  // The shards are read (under the data directory) while iterating.
  absl::StatusOr<std::vector<int64_t>> elements =
      loaded.ok() ? Int64Elements((*loaded)[0])
                  : absl::StatusOr<std::vector<int64_t>>(loaded.status());
  REQUIRE(SetDataDir("").ok());
  REQUIRE(elements.ok());
  CHECK(*elements == std::vector<int64_t>{41, 42});

  // A shard whose record claims 2^40 elements in a few bytes is DataLoss,
  // not an allocation of 8 TiB.
  TensorProto huge;
  huge.set_dtype(DT_INT64);
  huge.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  huge.set_tensor_content(std::string(8, '\0'));
  for (const auto& run : fs::directory_iterator(data / "saved")) {
    if (!run.is_directory()) continue;
    for (const auto& shard : fs::directory_iterator(run.path())) {
      absl::StatusOr<std::unique_ptr<data::RecordWriter>> w =
          data::RecordWriter::Create(
              "test", (shard.path() / "00000000.snapshot").string(),
              data::Compression::kNone);
      REQUIRE(w.ok());
      REQUIRE((*w)->Write(huge.SerializeAsString()).ok());
      REQUIRE((*w)->Close().ok());
    }
  }
  REQUIRE(SetDataDir(data.string()).ok());
  elements = Int64Elements((*loaded)[0]);
  REQUIRE(SetDataDir("").ok());
  CHECK_THAT(elements.status(), StatusIs(absl::StatusCode::kDataLoss));
}

TEST_CASE("A stored component is read back, checked against its record's size",
          "[dataset4]") {
  // Strings are stored in string_val (TensorFlow's AsProtoTensorContent),
  // so the record, not tensor_content, bounds the element count.
  TensorProto strings;
  Tensor::FromVector<std::string>({"ab", "", "cde"})
      .AsProtoTensorContent(&strings);
  absl::StatusOr<Tensor> t =
      data::StoredComponent(strings.SerializeAsString(), DT_STRING, 0,
                            "a saved element", "element spec says");
  REQUIRE(t.ok());
  CHECK(t->shape() == TensorShape({3}));
  CHECK(t->data<std::string>()[2] == "cde");
  CHECK_THAT(data::StoredComponent(strings.SerializeAsString(), DT_INT64, 1,
                                   "a saved element", "element spec says")
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "component 1 of a saved element is string, but the "
                      "dataset's element spec says int64"));
  // A shape that claims more elements than the record holds.
  TensorProto huge;
  huge.set_dtype(DT_STRING);
  huge.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  huge.add_string_val("x");
  CHECK_THAT(data::StoredComponent(huge.SerializeAsString(), DT_STRING, 0,
                                   "a snapshot element", "output_types say")
                 .status(),
             StatusIs(absl::StatusCode::kDataLoss,
                      "Unable to parse tensor from stored proto."));
  CHECK_THAT(data::StoredComponent("\xff\xff", DT_STRING, 0,
                                   "a snapshot element", "output_types say")
                 .status(),
             StatusIs(absl::StatusCode::kDataLoss));
  // An empty tensor needs no bytes.
  TensorProto empty;
  empty.set_dtype(DT_FLOAT);
  empty.mutable_tensor_shape()->add_dim()->set_size(0);
  empty.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  t = data::StoredComponent(empty.SerializeAsString(), DT_FLOAT, 0,
                            "a saved element", "element spec says");
  REQUIRE(t.ok());
  CHECK(t->NumElements() == 0);
}

TEST_CASE("Every dataset4 op has TensorFlow 2.21's signature and CPU types",
          "[dataset4]") {
  testing::CheckSignaturesWithTensorFlow("dataset4", 12);
}

TEST_CASE("Save and load take a scalar path", "[dataset4]") {
  const PartialShape scalar = PartialShape::Known({});
  const PartialShape vector = PartialShape::Known({2});
  const NodeDef save = TestNodeBuilder("s", "SaveDataset", 2)
                           .Attr("Tshard_func_args", DataTypeVector{})
                           .Build();
  CHECK(testing::InferShapes(save, {scalar, scalar}).ok());
  CHECK_THAT(testing::InferShapes(save, {scalar, vector}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef save2 = TestNodeBuilder("s2", "SaveDatasetV2", 2)
                            .Attr("Tshard_func_args", DataTypeVector{})
                            .Attr("output_types", DataTypeVector{DT_INT64})
                            .Build();
  absl::StatusOr<PartialShape> handle = InferShape(save2, {scalar, scalar});
  REQUIRE(handle.ok());
  CHECK(handle->DebugString() == scalar.DebugString());
  CHECK_THAT(InferShape(save2, {scalar, vector}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef load = TestNodeBuilder("l", "LoadDataset", 1)
                           .Attr("Treader_func_args", DataTypeVector{})
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build();
  handle = InferShape(load, {scalar});
  REQUIRE(handle.ok());
  CHECK(handle->DebugString() == scalar.DebugString());
  CHECK_THAT(InferShape(load, {vector}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("A save or load node without its function's definition fails",
          "[dataset4]") {
  NameAttrList f;
  f.set_name("no_such_function");
  AttrValue func;
  *func.mutable_func() = f;
  NodeDef load = TestNodeBuilder("l", "LoadDataset", 1)
                     .Attr("Treader_func_args", DataTypeVector{})
                     .Attr("output_types", DataTypeVector{DT_INT64})
                     .Build();
  (*load.mutable_attr())["reader_func"] = func;
  CHECK_THAT(
      RunKernel(load, {Tensor::Scalar<std::string>("/nowhere")}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "no_such_function"));
}

TEST_CASE("A compressed element uncompresses after crossing tasks",
          "[dataset4]") {
  const Tensor ints = Tensor::FromVector<int64_t>({4, 5, 6});
  const Tensor str = Tensor::Scalar<std::string>("x");
  absl::StatusOr<std::vector<Tensor>> c =
      RunKernel(TestNodeBuilder("c", "CompressElement", 2)
                    .Attr("input_types", DataTypeVector{DT_INT64, DT_STRING})
                    .Build(),
                {ints, str});
  REQUIRE(c.ok());
  // What a receiving task decodes: an opaque value of the same type name.
  VariantTensorDataProto proto;
  (*c)[0].data<Variant>()[0].Encode(&proto);
  absl::StatusOr<Variant> decoded = Variant::Decode(proto);
  REQUIRE(decoded.ok());
  Tensor received(DT_VARIANT, TensorShape({}));
  received.data<Variant>()[0] = *decoded;
  const NodeDef u =
      TestNodeBuilder("u", "UncompressElement", 1)
          .Attr("output_types", DataTypeVector{DT_INT64, DT_STRING})
          .Build();
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(u, {received});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].NumElements() == 3);
  CHECK((*out)[0].data<int64_t>()[2] == 6);
  CHECK((*out)[1].data<std::string>()[0] == "x");
  // An empty variant is no compressed element.
  CHECK_THAT(RunKernel(u, {Tensor(DT_VARIANT, TensorShape({}))}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "does not contain a compressed element"));
}

}  // namespace
}  // namespace dfx

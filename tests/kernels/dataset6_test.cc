// The dataset6 family (graph/ops/dataset6_ops.cc, kernels/data/
// dataset6_kernels.cc): TensorFlow 2.21's signatures, and what the golden
// cases (tests/golden/gen_dataset6.py) cannot show: the GraphDef
// DatasetToGraphV2 writes has TensorFlow's layout, a dataset without a node
// record fails naming it, and DatasetFromGraph refuses graphs that do not
// return one dataset.
#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/op_registry.h"
#include "kernels/data/dataset.h"
#include "kernels/kernels.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

// As a graph makes it: with output_shapes, which a graph written from its
// record must carry to import.
Tensor Range(int64_t n) {
  NodeDef node = TestNodeBuilder("range", "RangeDataset", 3)
                     .Attr("output_types", DataTypeVector{DT_INT64})
                     .Build();
  (*node.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  return Run1(node, {I64(0), I64(n), I64(1)});
}

absl::StatusOr<Tensor> ToGraph(const Tensor& dataset, int64_t policy = 0) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("to_graph", "DatasetToGraphV2", 1)
                    .Attr("external_state_policy", policy)
                    .Build(),
                {dataset});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

absl::StatusOr<Tensor> FromGraph(const std::string& bytes) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("from_graph", "DatasetFromGraph", 1).Build(),
                {Tensor::Scalar<std::string>(bytes)});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// The int64 elements of `ds`, or the first error other than the end.
absl::StatusOr<std::vector<int64_t>> Elements(const Tensor& ds) {
  const DataTypeVector types = {DT_INT64};
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", types)
                    .Build(),
                {});
  if (!it.ok()) return it.status();
  absl::Status made =
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                {ds, (*it)[0]})
          .status();
  if (!made.ok()) return made;
  std::vector<int64_t> out;
  while (true) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", types)
                      .Build(),
                  {(*it)[0]});
    if (!e.ok()) {
      if (absl::IsOutOfRange(e.status())) return out;
      return e.status();
    }
    out.push_back((*e)[0].data<int64_t>()[0]);
  }
}

// A dataset made by no node (as dfx makes some inside other datasets).
class UnrecordedDataset final : public data::DatasetBase {
 public:
  UnrecordedDataset() : DatasetBase({DT_INT64}) {}
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> MakeIterator(
      data::IteratorContext* ctx) const override {
    return absl::UnimplementedError("not iterated here");
  }
  std::string DebugString() const override { return "UnrecordedDataset()"; }
};

TEST_CASE("Every dataset6 op has TensorFlow 2.21's signature and CPU types",
          "[dataset6]") {
  testing::CheckSignaturesWithTensorFlow("dataset6", 7);
}

TEST_CASE("The dataset6 ops output scalars", "[dataset6]") {
  for (const char* op :
       {"DatasetToGraph", "DatasetToGraphV2", "DatasetFromGraph"}) {
    CHECK(testing::ShapesString(
              testing::InferShapes(TestNodeBuilder("n", op, 1).Build(),
                                   {PartialShape::Known({})})) == "[]");
  }
}

TEST_CASE("DatasetToGraphV2 lays the graph out as TensorFlow does",
          "[dataset6]") {
  // TensorFlow 2.21 writes range(0, 5, 1) as Const/_0, Const/_1, Const/_2,
  // RangeDataset/_3 over them, and the _Retval "dataset" (index 0).
  absl::StatusOr<Tensor> bytes = ToGraph(Range(5));
  REQUIRE(bytes.ok());
  GraphDef g;
  REQUIRE(g.ParseFromString(bytes->data<std::string>()[0]));
  REQUIRE(g.node_size() == 5);
  for (int i = 0; i < 3; ++i) {
    CHECK(g.node(i).name() == "Const/_" + std::to_string(i));
    CHECK(g.node(i).op() == "Const");
    CHECK(g.node(i).attr().at("dtype").type() == DT_INT64);
  }
  CHECK(g.node(2).attr().at("value").tensor().dtype() == DT_INT64);
  CHECK(g.node(3).name() == "RangeDataset/_3");
  CHECK(g.node(3).op() == "RangeDataset");
  REQUIRE(g.node(3).input_size() == 3);
  CHECK(g.node(3).input(2) == "Const/_2");
  CHECK(g.node(3).device().empty());
  CHECK(g.node(4).name() == "dataset");
  CHECK(g.node(4).op() == "_Retval");
  CHECK(g.node(4).input(0) == "RangeDataset/_3");
  CHECK(g.node(4).attr().at("index").i() == 0);
  CHECK(g.node(4).attr().at("T").type() == DT_VARIANT);
  CHECK(g.versions().producer() == 2474);

  // And it loads again.
  absl::StatusOr<Tensor> ds = FromGraph(bytes->data<std::string>()[0]);
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  absl::StatusOr<std::vector<int64_t>> got = Elements(*ds);
  REQUIRE(got.ok());
  CHECK(*got == std::vector<int64_t>{0, 1, 2, 3, 4});
}

TEST_CASE("A dataset shared by two inputs is written once", "[dataset6]") {
  const Tensor r = Range(3);
  const Tensor zip =
      Run1(TestNodeBuilder("zip", "ZipDataset", 2)
               .Attr("N", int64_t{2})
               .Attr("output_types", DataTypeVector{DT_INT64, DT_INT64})
               .Build(),
           {r, r});
  absl::StatusOr<Tensor> bytes = ToGraph(zip);
  REQUIRE(bytes.ok());
  GraphDef g;
  REQUIRE(g.ParseFromString(bytes->data<std::string>()[0]));
  int ranges = 0;
  for (const NodeDef& n : g.node()) ranges += n.op() == "RangeDataset";
  CHECK(ranges == 1);
}

TEST_CASE("A dataset without a node record cannot be written, naming it",
          "[dataset6]") {
  Tensor t(DT_VARIANT, TensorShape({}));
  t.data<Variant>()[0] = Variant::Make<data::DatasetVariant>(
      std::make_shared<UnrecordedDataset>());
  CHECK_THAT(
      ToGraph(t).status(),
      StatusIs(absl::StatusCode::kFailedPrecondition, "UnrecordedDataset()"));
  // Below a recorded dataset too.
  const Tensor take = Run1(TestNodeBuilder("take", "TakeDataset", 2)
                               .Attr("output_types", DataTypeVector{DT_INT64})
                               .Build(),
                           {t, I64(2)});
  CHECK_THAT(
      ToGraph(take).status(),
      StatusIs(absl::StatusCode::kFailedPrecondition, "UnrecordedDataset()"));
}

TEST_CASE("DatasetFromGraph refuses graphs that do not return one dataset",
          "[dataset6]") {
  absl::StatusOr<Tensor> bytes = ToGraph(Range(2));
  REQUIRE(bytes.ok());
  GraphDef good;
  REQUIRE(good.ParseFromString(bytes->data<std::string>()[0]));

  // The _Retval returns an int64, not a dataset.
  GraphDef g = good;
  g.mutable_node(4)->set_input(0, "Const/_1");
  (*g.mutable_node(4)->mutable_attr())["T"].set_type(DT_INT64);
  CHECK_THAT(FromGraph(g.SerializeAsString()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // Two return values.
  g = good;
  *g.add_node() = good.node(4);
  g.mutable_node(5)->set_name("dataset2");
  CHECK_THAT(FromGraph(g.SerializeAsString()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // An op dfx does not know.
  g = good;
  g.mutable_node(3)->set_op("NoSuchDatasetOp");
  CHECK(!FromGraph(g.SerializeAsString()).ok());
  // A node that fails: range with step 0.
  g = good;
  g.mutable_node(2)
      ->mutable_attr()
      ->at("value")
      .mutable_tensor()
      ->clear_tensor_content();
  (*g.mutable_node(2)->mutable_attr())["value"].mutable_tensor()->add_int64_val(
      0);
  CHECK_THAT(FromGraph(g.SerializeAsString()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // A cycle (no node can run): an error, not a wait.
  g = good;
  g.mutable_node(3)->set_input(0, "dataset_cycle");
  NodeDef* cycle = g.add_node();
  cycle->set_name("dataset_cycle");
  cycle->set_op("Identity");
  cycle->add_input("RangeDataset/_3");
  (*cycle->mutable_attr())["T"].set_type(DT_INT64);
  CHECK(!FromGraph(g.SerializeAsString()).ok());
  // A function attr naming no function of the graph's library.
  g = good;
  (*g.mutable_node(3)->mutable_attr())["f"].mutable_func()->set_name("nope");
  CHECK(!FromGraph(g.SerializeAsString()).ok());
  // A string tensor that is not a scalar.
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("from_graph", "DatasetFromGraph", 1).Build(),
                {Tensor::FromVector<std::string>({"a", "b"})});
  CHECK_THAT(out.status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("IndexFlatMapDataset fails on an offset past map_func's rows",
          "[dataset6]") {
  // The ifm_fill golden graph: range(3), map_func fill([3], 10x),
  // index_map_func (i // 3, i % 3). With fill([2], ...) offset 2 is past
  // the rows: TensorFlow aborts, dfx fails with InvalidArgument.
  GraphDef g;
  std::ifstream in(std::string(DFX_TEST_DATA_DIR) +
                       "/../golden/data/dataset6/ifm_fill/graph.pb",
                   std::ios::binary);
  REQUIRE(g.ParseFromIstream(&in));
  bool edited = false;
  for (FunctionDef& f : *g.mutable_library()->mutable_function()) {
    for (NodeDef& n : *f.mutable_node_def()) {
      if (n.name() == "Fill/dims") {
        TensorProto* t = (*n.mutable_attr())["value"].mutable_tensor();
        REQUIRE(t->int_val_size() == 1);
        t->set_int_val(0, 2);
        edited = true;
      }
    }
  }
  REQUIRE(edited);
  const NodeDef* found = nullptr;
  for (const NodeDef& n : g.node()) {
    if (n.op() == "IndexFlatMapDataset") found = &n;
  }
  REQUIRE(found != nullptr);
  NodeDef node = *found;
  node.clear_input();
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
  REQUIRE(reg != nullptr);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      StandardKernelRegistry()->CreateKernel(
          node, reg->op_def, testing::TestCpuDevice(), &g.library());
  REQUIRE(kernel.ok());
  OpKernelContext::Params params;
  params.op_kernel = kernel->get();
  params.device = testing::TestCpuDevice();
  const std::vector<Tensor> inputs = {Range(3), I64(9)};
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  REQUIRE(ctx.status().ok());
  CHECK_THAT(Elements((*ctx.mutable_outputs())[0]).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "offset 2"));
}

}  // namespace
}  // namespace dfx

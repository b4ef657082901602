#include "graph/graph_def_import.h"

#include <string>

#include "absl/strings/match.h"
#include "base/logging.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/node_def_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// Small ops of this test's own, so that import is tested without the
// standard op library.
absl::Status ConstShape(InferenceContext* c) {
  const AttrValue* v = FindNodeAttr(c->node_def(), "value");
  c->set_output(0, PartialShape::FromProto(v->tensor().tensor_shape()));
  return absl::OkStatus();
}

absl::Status PlaceholderShape(InferenceContext* c) {
  const AttrValue* v = FindNodeAttr(c->node_def(), "shape");
  c->set_output(0, PartialShape::FromProto(v->shape()));
  return absl::OkStatus();
}

// Output 0 takes its dims from the int32 values of input 1 when they are
// known (a Const), else its shape is unknown.
absl::Status ReshapeShape(InferenceContext* c) {
  const TensorProto* t = c->input_tensor(1);
  if (t == nullptr) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  c->set_output(0, PartialShape::Known({t->int_val().begin(),
                                        t->int_val().end()}));
  return absl::OkStatus();
}

// [m,k] x [k,n] -> [m,n].
absl::Status MatMulShape(InferenceContext* c) {
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  if (absl::Status s = c->WithRank(a, 2); !s.ok()) return s;
  if (absl::Status s = c->WithRank(b, 2); !s.ok()) return s;
  if (!a.RankKnown() || !b.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  int64_t k;
  if (absl::Status s = c->MergeDim(a.dims[1], b.dims[0], &k); !s.ok()) {
    return s;
  }
  c->set_output(0, PartialShape::Known({a.dims[0], b.dims[1]}));
  return absl::OkStatus();
}

const OpRegistry* TestOps() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    auto reg = [r](const OpDefBuilder& b) { DFX_CHECK_OK(r->Register(b)); };
    reg(OpDefBuilder("Const")
            .Output("output: dtype")
            .Attr("value: tensor")
            .Attr("dtype: type")
            .SetShapeFn(ConstShape));
    reg(OpDefBuilder("Placeholder")
            .Output("output: dtype")
            .Attr("dtype: type")
            .Attr("shape: shape")
            .SetShapeFn(PlaceholderShape));
    reg(OpDefBuilder("Add2")
            .Input("x: T")
            .Input("y: T")
            .Output("z: T")
            .Attr("T: {float, int32}")
            .SetShapeFn(shape_fn::BroadcastBinaryOp));
    reg(OpDefBuilder("Split2")
            .Input("x: T")
            .Output("a: T")
            .Output("b: T")
            .Attr("T: type = DT_FLOAT"));
    reg(OpDefBuilder("Concat")
            .Input("values: N * T")
            .Output("output: T")
            .Attr("N: int >= 2")
            .Attr("T: type"));
    reg(OpDefBuilder("Pad")
            .Input("x: float")
            .Output("y: float")
            .Attr("mode: {'REFLECT', 'SYMMETRIC'} = 'REFLECT'"));
    {
      // Removed at GraphDef version 8, as TensorFlow's RandomCrop.
      auto old_op = OpDefBuilder("OldOp").Output("y: float").Finalize();
      DFX_CHECK_OK(old_op.status());
      old_op->op_def.mutable_deprecation()->set_version(8);
      old_op->op_def.mutable_deprecation()->set_explanation("Use NewOp");
      DFX_CHECK_OK(r->Register(*std::move(old_op)));
    }
    reg(OpDefBuilder("Dims")
            .Output("y: float")
            .Attr("dims: list(int) >= 2")
            .Attr("flag: bool = false"));
    reg(OpDefBuilder("RefSrc").Output("ref: Ref(T)").Attr("T: type"));
    reg(OpDefBuilder("RefSink").Input("ref: Ref(T)").Attr("T: type"));
    reg(OpDefBuilder("FloatSink").Input("x: float"));
    reg(OpDefBuilder("Reshape")
            .Input("tensor: T")
            .Input("shape: int32")
            .Output("output: T")
            .Attr("T: type")
            .SetShapeFn(ReshapeShape));
    reg(OpDefBuilder("MatMul")
            .Input("a: T")
            .Input("b: T")
            .Output("product: T")
            .Attr("T: {float, double}")
            .Attr("transpose_a: bool = false")
            .SetShapeFn(MatMulShape));
    reg(OpDefBuilder("NoOp"));
    reg(OpDefBuilder("Merge")
            .Input("inputs: N * T")
            .Output("output: T")
            .Output("value_index: int32")
            .Attr("T: type")
            .Attr("N: int >= 1"));
    reg(OpDefBuilder("NextIteration")
            .Input("data: T")
            .Output("output: T")
            .Attr("T: type"));
    return r;
  }();
  return registry;
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

absl::Status Import(const std::string& text, ImportOptions options = {}) {
  return ImportGraphDef(Parse(text), TestOps(), options).status();
}

// A float placeholder named `name` with shape [2,3].
std::string Ph(const std::string& name, const std::string& dims = "dim { size: 2 } dim { size: 3 }") {
  return "node { name: '" + name +
         "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
         "attr { key: 'shape' value { shape { " + dims + " } } } }\n";
}

std::string FloatT() { return "attr { key: 'T' value { type: DT_FLOAT } }"; }

TEST_CASE("ImportGraphDef builds nodes and edges, in any node order") {
  // The consumer comes before its producers.
  const GraphDef def = Parse(
      "node { name: 'sum' op: 'Add2' input: 'a' input: 's:1' input: '^n' " +
      FloatT() + " }\n" + Ph("a") +
      "node { name: 's' op: 'Split2' input: 'a' }\n"
      "node { name: 'n' op: 'NoOp' }\n"
      "versions { producer: 1087 min_consumer: 12 }\n"
      "library { gradient { function_name: 'f' gradient_func: 'g' } }\n");
  auto graph = ImportGraphDef(def, TestOps());
  REQUIRE_OK(graph);
  Graph& g = **graph;
  REQUIRE(g.num_nodes() == 4);
  Node* sum = g.FindNode("sum");
  REQUIRE(sum != nullptr);
  REQUIRE(sum->id() == 0);  // ids follow GraphDef order
  REQUIRE(sum->input_edge(0)->src->name() == "a");
  REQUIRE(sum->input_edge(0)->src_output == 0);
  REQUIRE(sum->input_edge(1)->src->name() == "s");
  REQUIRE(sum->input_edge(1)->src_output == 1);
  int control = 0;
  for (const Edge* e : sum->in_edges()) {
    if (e->IsControlEdge()) {
      ++control;
      REQUIRE(e->src->name() == "n");
    }
  }
  REQUIRE(control == 1);
  // The default attr of Split2 was added.
  DataType t;
  REQUIRE_OK(GetNodeAttr(g.FindNode("s")->def(), "T", &t));
  REQUIRE(t == DT_FLOAT);
  REQUIRE(g.versions().producer() == 1087);
  REQUIRE(g.versions().min_consumer() == 12);
  REQUIRE(g.library().gradient(0).gradient_func() == "g");
}

TEST_CASE("ImportGraphDef rejects an unknown op") {
  REQUIRE_THAT(Import("node { name: 'a' op: 'Frobnicate' }"),
               StatusIs(kInvalid, "Op type not registered: 'Frobnicate' "
                                  "(node 'a')"));
}

TEST_CASE("ImportGraphDef names every unknown op at once") {
  const std::string text = Ph("x") +
                           "node { name: 'b' op: 'Zap' input: 'x' }"
                           "node { name: 'a' op: 'Frobnicate' input: 'x' }"
                           "node { name: 'c' op: 'Zap' input: 'b' }"
                           "node { name: 'd' op: 'Zap' input: 'c' }";
  REQUIRE_THAT(Import(text),
               StatusIs(kInvalid, "Op types not registered: 'Frobnicate' "
                                  "(node 'a'), 'Zap' (node 'b' and 2 more)"));
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  const std::vector<MissingOp> missing =
      FindMissingOps(def, *TestOps());
  REQUIRE(missing.size() == 2);
  CHECK(missing[1].op == "Zap");
  CHECK(missing[1].nodes == std::vector<std::string>{"b", "c", "d"});
}

TEST_CASE("ImportGraphDef refuses an op removed at the graph's version, as "
          "TensorFlow does, and takes it in an older graph") {
  const std::string node = "node { name: 'o' op: 'OldOp' }";
  REQUIRE_OK(ImportGraphDef(Parse(node + "versions { producer: 7 }"),
                            TestOps()));
  // No versions: producer 0, as in TensorFlow.
  REQUIRE_OK(ImportGraphDef(Parse(node), TestOps()));
  REQUIRE_THAT(
      ImportGraphDef(Parse(node + "versions { producer: 8 }"), TestOps())
          .status(),
      StatusIs(absl::StatusCode::kUnimplemented,
               "node 'o' (op OldOp): Op OldOp is not available in GraphDef "
               "version 8. It has been removed in version 8. Use NewOp."));
}

TEST_CASE("ImportGraphDef rejects a duplicate node name") {
  REQUIRE_THAT(Import(Ph("a") + Ph("b") + Ph("a")),
               StatusIs(kInvalid, "node 'a' (op Placeholder): duplicate node name"));
}

TEST_CASE("ImportGraphDef rejects an empty node name") {
  REQUIRE_THAT(Import("node { name: '' op: 'NoOp' }"),
               StatusIs(kInvalid, "empty name (op NoOp)"));
}

TEST_CASE("ImportGraphDef rejects names TensorFlow disallows") {
  for (const char* bad : {"has space", "semi;colon", "-lead", "/lead", "x:0",
                          "_internal", "^x"}) {
    INFO(bad);
    REQUIRE_THAT(Import(std::string("node { name: '") + bad + "' op: 'NoOp' }"),
                 StatusIs(kInvalid, std::string("node '") + bad +
                                        "' (op NoOp): node name is not valid"));
  }
  for (const char* good : {"a", "layer1/dense/MatMul", ".hidden", "9lives",
                           "a-b_c.d>e"}) {
    INFO(good);
    REQUIRE_THAT(Import(std::string("node { name: '") + good + "' op: 'NoOp' }"),
                 IsOk());
  }
  ImportOptions internal;
  internal.allow_internal_names = true;
  REQUIRE_THAT(Import("node { name: '_recv_x_0' op: 'NoOp' }", internal), IsOk());
}

TEST_CASE("ImportGraphDef rejects a malformed input string") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'b' op: 'FloatSink' input: 'a:x' }"),
               StatusIs(kInvalid, "node 'b' (op FloatSink): malformed input 'a:x'"));
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'b' op: 'FloatSink' input: 'a' "
                                "input: '^a:0' }"),
               StatusIs(kInvalid, "node 'b' (op FloatSink): malformed input '^a:0'"));
}

TEST_CASE("ImportGraphDef rejects an input naming a missing node") {
  REQUIRE_THAT(Import("node { name: 'b' op: 'FloatSink' input: 'ghost' }"),
               StatusIs(kInvalid, "node 'b' (op FloatSink): input 'ghost' names "
                                  "node 'ghost', which is not in the graph"));
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'b' op: 'FloatSink' input: 'a' "
                                "input: '^ghost' }"),
               StatusIs(kInvalid, "node 'b' (op FloatSink): input '^ghost'"));
}

TEST_CASE("ImportGraphDef rejects an input naming a missing output index") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'b' op: 'FloatSink' input: 'a:1' }"),
               StatusIs(kInvalid, "node 'b' (op FloatSink): input 'a:1' names "
                                  "output 1 of node 'a', which has 1 output(s)"));
}

TEST_CASE("ImportGraphDef rejects a control input before a data input") {
  REQUIRE_THAT(Import(Ph("a") + Ph("c") +
                      "node { name: 'b' op: 'FloatSink' input: '^c' input: 'a' }"),
               StatusIs(kInvalid, "node 'b' (op FloatSink): data input 'a' "
                                  "comes after a control input"));
}

TEST_CASE("ImportGraphDef rejects the wrong number of data inputs") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'sum' op: 'Add2' input: 'a' " +
                      FloatT() + " }"),
               StatusIs(kInvalid, "node 'sum' (op Add2): expects 2 data "
                                  "input(s) but has 1"));
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'sum' op: 'Add2' input: 'a' "
                                "input: 'a' input: 'a' " + FloatT() + " }"),
               StatusIs(kInvalid, "node 'sum' (op Add2): expects 2 data "
                                  "input(s) but has 3"));
  // Control inputs do not count.
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'sum' op: 'Add2' input: 'a' "
                                "input: '^a' " + FloatT() + " }"),
               StatusIs(kInvalid, "but has 1"));
}

TEST_CASE("ImportGraphDef rejects a missing required attr") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'sum' op: 'Add2' input: 'a' "
                                "input: 'a' }"),
               StatusIs(kInvalid, "node 'sum' (op Add2): missing required "
                                  "attr 'T'"));
}

TEST_CASE("ImportGraphDef rejects an attr of the wrong kind") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'sum' op: 'Add2' input: 'a' "
                                "input: 'a' attr { key: 'T' value { i: 1 } } }"),
               StatusIs(kInvalid, "node 'sum' (op Add2): attr 'T' should be "
                                  "type but is int"));
  // A list of ints where a list of types is due.
  REQUIRE_THAT(Import("node { name: 'd' op: 'Dims' attr { key: 'dims' value { "
                      "list { type: DT_FLOAT type: DT_FLOAT } } } }"),
               StatusIs(kInvalid, "node 'd' (op Dims): attr 'dims' should be "
                                  "list(int) but is list(type)"));
}

TEST_CASE("ImportGraphDef rejects a type outside the allowed list") {
  REQUIRE_THAT(
      Import("node { name: 's' op: 'Placeholder' attr { key: 'dtype' value { "
             "type: DT_STRING } } attr { key: 'shape' value { shape { } } } }\n"
             "node { name: 'sum' op: 'Add2' input: 's' input: 's' attr { key: "
             "'T' value { type: DT_STRING } } }"),
      StatusIs(kInvalid, "node 'sum' (op Add2): attr 'T' value string is not "
                         "in the list of allowed values: float, int32"));
}

TEST_CASE("ImportGraphDef rejects a string outside the allowed list") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'p' op: 'Pad' input: 'a' attr { "
                                "key: 'mode' value { s: 'CONSTANT' } } }"),
               StatusIs(kInvalid, "node 'p' (op Pad): attr 'mode' value "
                                  "\"CONSTANT\" is not in the list of allowed "
                                  "values: \"REFLECT\", \"SYMMETRIC\""));
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'p' op: 'Pad' input: 'a' attr { "
                                "key: 'mode' value { s: 'SYMMETRIC' } } }"),
               IsOk());
}

TEST_CASE("ImportGraphDef rejects an int attr below its minimum") {
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'c' op: 'Concat' input: 'a' "
                                "attr { key: 'N' value { i: 1 } } " +
                      FloatT() + " }"),
               StatusIs(kInvalid, "node 'c' (op Concat): attr 'N' value 1 is "
                                  "below its minimum 2"));
}

TEST_CASE("ImportGraphDef rejects a list shorter than its minimum") {
  REQUIRE_THAT(Import("node { name: 'd' op: 'Dims' attr { key: 'dims' value { "
                      "list { i: 4 } } } }"),
               StatusIs(kInvalid, "node 'd' (op Dims): attr 'dims' has 1 "
                                  "values, below its minimum length 2"));
  REQUIRE_THAT(Import("node { name: 'd' op: 'Dims' attr { key: 'dims' value { "
                      "list { i: 4 i: 5 } } } }"),
               IsOk());
}

TEST_CASE("ImportGraphDef rejects an attr the op does not declare") {
  REQUIRE_THAT(Import("node { name: 'n' op: 'NoOp' attr { key: 'color' value "
                      "{ s: 'red' } } }"),
               StatusIs(kInvalid, "node 'n' (op NoOp): attr 'color' is not "
                                  "declared by op NoOp"));
  // Internal attrs (as TensorFlow writes _output_shapes, _class) are fine.
  REQUIRE_THAT(Import("node { name: 'n' op: 'NoOp' attr { key: '_class' value "
                      "{ list { s: 'loc:@x' } } } }"),
               IsOk());
}

TEST_CASE("ImportGraphDef rejects a dtype mismatch on an edge") {
  REQUIRE_THAT(
      Import("node { name: 'i' op: 'Placeholder' attr { key: 'dtype' value { "
             "type: DT_INT32 } } attr { key: 'shape' value { shape { } } } }\n"
             "node { name: 'b' op: 'FloatSink' input: 'i' }"),
      StatusIs(kInvalid, "node 'b' (op FloatSink): input 0 ('i') is int32 but "
                         "the op expects float"));
}

TEST_CASE("ImportGraphDef lets a ref output feed a non-ref input, not back") {
  const std::string ref =
      "node { name: 'v' op: 'RefSrc' " + FloatT() + " }\n";
  REQUIRE_THAT(Import(ref + "node { name: 'b' op: 'FloatSink' input: 'v' }"),
               IsOk());
  REQUIRE_THAT(Import(ref + "node { name: 'r' op: 'RefSink' input: 'v' " +
                      FloatT() + " }"),
               IsOk());
  REQUIRE_THAT(Import(Ph("a") + "node { name: 'r' op: 'RefSink' input: 'a' " +
                      FloatT() + " }"),
               StatusIs(kInvalid, "node 'r' (op RefSink): input 0 ('a') is "
                                  "float but the op expects float_ref"));
}

TEST_CASE("ImportGraphDef rejects a cycle and prints its path") {
  // a -> b -> c -> a, with d hanging off the cycle.
  const std::string text =
      "node { name: 'd' op: 'FloatSink' input: 'c' }\n"
      "node { name: 'a' op: 'Add2' input: 'c' input: 'c' " + FloatT() + " }\n"
      "node { name: 'b' op: 'Add2' input: 'a' input: 'a' " + FloatT() + " }\n"
      "node { name: 'c' op: 'Add2' input: 'b' input: 'b' " + FloatT() + " }\n";
  const absl::Status s = Import(text);
  REQUIRE_THAT(s, StatusIs(kInvalid, "node is in a cycle: "));
  // The reported node is on the cycle (not d), and the path goes around it.
  const std::string msg(s.message());
  CHECK((absl::StrContains(msg, "a -> b -> c -> a") ||
         absl::StrContains(msg, "b -> c -> a -> b") ||
         absl::StrContains(msg, "c -> a -> b -> c")));
  CHECK(!absl::StrContains(msg, "'d'"));

  REQUIRE_THAT(Import("node { name: 'self' op: 'NoOp' input: '^self' }"),
               StatusIs(kInvalid, "node 'self' (op NoOp): node is in a cycle: "
                                  "self -> self"));
}

TEST_CASE("ImportGraphDef accepts a while loop's NextIteration -> Merge edge") {
  REQUIRE_THAT(
      Import(Ph("x") +
             "node { name: 'm' op: 'Merge' input: 'x' input: 'next' " +
             FloatT() + " attr { key: 'N' value { i: 2 } } }\n"
             "node { name: 'body' op: 'Add2' input: 'm' input: 'm' " +
             FloatT() + " }\n"
             "node { name: 'next' op: 'NextIteration' input: 'body' " +
             FloatT() + " }\n"),
      IsOk());
}

TEST_CASE("ImportGraphDef runs shape functions and names the failing node") {
  const std::string text =
      Ph("a", "dim { size: 2 } dim { size: 3 }") +
      Ph("b", "dim { size: 4 } dim { size: 5 }") +
      "node { name: 'mm' op: 'MatMul' input: 'a' input: 'b' " + FloatT() + " }";
  REQUIRE_THAT(Import(text), StatusIs(kInvalid, "node 'mm' (op MatMul): "
                                                "dimensions must be equal, "
                                                "but are 3 and 4"));
  ImportOptions no_shapes;
  no_shapes.validate_shapes = false;
  REQUIRE_THAT(Import(text, no_shapes), IsOk());

  // Shapes flow through the graph: sum is [2,3], so sum x b fails too.
  REQUIRE_THAT(
      Import(Ph("a") + Ph("b", "dim { size: 4 } dim { size: 5 }") +
             "node { name: 'sum' op: 'Add2' input: 'a' input: 'a' " + FloatT() +
             " }\nnode { name: 'mm2' op: 'MatMul' input: 'sum' input: 'b' " +
             FloatT() + " }"),
      StatusIs(kInvalid, "node 'mm2' (op MatMul)"));
  REQUIRE_THAT(
      Import(Ph("a") + Ph("b", "dim { size: 3 } dim { size: 5 }") +
             "node { name: 'sum' op: 'Add2' input: 'a' input: 'a' " + FloatT() +
             " }\nnode { name: 'mm2' op: 'MatMul' input: 'sum' input: 'b' " +
             FloatT() + " }"),
      IsOk());
}

TEST_CASE("ImportGraphDef hands a Const input's value to the shape function") {
  // r = Reshape(x, [3, 2]) is [3,2] only if the shape function sees the
  // Const's value; then r x b ([3,5]) is a mismatch (2 vs 3).
  auto text = [](const std::string& b_dims) {
    return Ph("x", "dim { size: 6 }") + Ph("b", b_dims) +
           "node { name: 'dims' op: 'Const' attr { key: 'dtype' value { type: "
           "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
           "tensor_shape { dim { size: 2 } } int_val: 3 int_val: 2 } } } }\n"
           "node { name: 'r' op: 'Reshape' input: 'x' input: 'dims' " +
           FloatT() + " }\n"
           "node { name: 'mm' op: 'MatMul' input: 'r' input: 'b' " + FloatT() +
           " }";
  };
  REQUIRE_THAT(Import(text("dim { size: 3 } dim { size: 5 }")),
               StatusIs(kInvalid, "node 'mm' (op MatMul): dimensions must be "
                                  "equal, but are 2 and 3"));
  REQUIRE_THAT(Import(text("dim { size: 2 } dim { size: 5 }")), IsOk());
}

TEST_CASE("ToGraphDef writes back what was imported") {
  const GraphDef def = Parse(
      Ph("a") +
      "node { name: 's' op: 'Split2' input: 'a' device: '/job:w/task:1/device:CPU:0' "
      "attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: '_class' value { list { s: 'loc:@a' } } } }\n"
      "node { name: 'n' op: 'NoOp' }\n"
      "node { name: 'sum' op: 'Add2' input: 's:1' input: 's' input: '^n' "
      "input: '^a' " + FloatT() + " }\n"
      "versions { producer: 1087 }\n"
      "library { gradient { function_name: 'f' gradient_func: 'g' } }\n");
  auto graph = ImportGraphDef(def, TestOps());
  REQUIRE_OK(graph);
  const GraphDef out = ToGraphDef(**graph);
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  INFO(diff);
  REQUIRE(differ.Compare(def, out));
  REQUIRE(out.node(3).input(0) == "s:1");
  REQUIRE(out.node(3).input(1) == "s");
  REQUIRE(out.node(3).input(2) == "^n");
  REQUIRE(out.node(1).device() == "/job:w/task:1/device:CPU:0");

  // And the export imports again to the same thing.
  auto again = ImportGraphDef(out, TestOps());
  REQUIRE_OK(again);
  REQUIRE(differ.Compare(out, ToGraphDef(**again)));
}

TEST_CASE("ToGraphDef adds the defaults import filled in") {
  const GraphDef def = Parse(Ph("a") + "node { name: 's' op: 'Split2' input: 'a' }");
  auto graph = ImportGraphDef(def, TestOps());
  REQUIRE_OK(graph);
  const GraphDef out = ToGraphDef(**graph);
  REQUIRE(out.node(1).attr().at("T").type() == DT_FLOAT);
  REQUIRE(out.node(1).input_size() == 1);
  REQUIRE(out.node(1).input(0) == "a");
}

TEST_CASE("ValidateNodeAttrs accepts an empty list for any list kind") {
  NodeDef node;
  node.set_name("d");
  node.set_op("Dims");
  (*node.mutable_attr())["dims"].mutable_list();
  const OpDef& op = TestOps()->LookUp("Dims")->op_def;
  // Empty is the right kind but below the minimum of 2.
  REQUIRE_THAT(ValidateNodeAttrs(node, op),
               StatusIs(kInvalid, "attr 'dims' has 0 values"));
}

}  // namespace
}  // namespace dfx

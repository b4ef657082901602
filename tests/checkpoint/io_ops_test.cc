// SaveV2, RestoreV2, MergeV2Checkpoints and the string ops of Saver graphs,
// run as a user runs them: GraphDefs in a local session (one device, or
// two as a sharded Saver uses).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "checkpoint/tensor_bundle.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "tests/checkpoint/checkpoint_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::BoolAttr;
using ::dfx::testing::GraphBuilder;
using ::dfx::testing::IntAttr;
using ::dfx::testing::IsOk;
using ::dfx::testing::PatternTensor;
using ::dfx::testing::RunGraph;
using ::dfx::testing::SameTensor;
using ::dfx::testing::SavableDtypes;
using ::dfx::testing::StatusIs;
using ::dfx::testing::StringAttr;
using ::dfx::testing::TempDir;
using ::dfx::testing::TypeAttr;
using ::dfx::testing::TypeListAttr;

// A SaveV2 node saving `values` under `names` to `prefix`.
std::string AddSave(GraphBuilder* g, const std::string& name,
                    const std::string& prefix_input,
                    const std::vector<std::string>& names,
                    const std::vector<Tensor>& values,
                    const std::string& device = "") {
  std::vector<std::string> inputs = {
      prefix_input, g->StringConst(name + "/tensor_names", names, device),
      g->StringConst(name + "/shape_and_slices",
                     std::vector<std::string>(names.size()), device)};
  std::vector<DataType> dtypes;
  for (size_t i = 0; i < values.size(); ++i) {
    inputs.push_back(
        g->Const(absl::StrCat(name, "/value", i), values[i], device));
    dtypes.push_back(values[i].dtype());
  }
  return g->Node(name, "SaveV2", inputs, {{"dtypes", TypeListAttr(dtypes)}},
                 device);
}

std::string AddRestore(GraphBuilder* g, const std::string& name,
                       const std::string& prefix,
                       const std::vector<std::string>& names,
                       const std::vector<DataType>& dtypes,
                       std::vector<std::string> specs = {}) {
  if (specs.empty()) specs.resize(names.size());
  return g->Node(name, "RestoreV2",
                 {g->ScalarString(name + "/prefix", prefix),
                  g->StringConst(name + "/tensor_names", names),
                  g->StringConst(name + "/shape_and_slices", specs)},
                 {{"dtypes", TypeListAttr(dtypes)}});
}

std::vector<std::string> Outputs(const std::string& node, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(absl::StrCat(node, ":", i));
  return out;
}

TEST_CASE("io ops: signatures equal TensorFlow 2.21's") {
  // TensorFlow's OpDefs (op_def_registry.get(name), text format).
  const char* const kTfOpDefs[] = {
      R"pb(name: "SaveV2"
           input_arg { name: "prefix" type: DT_STRING }
           input_arg { name: "tensor_names" type: DT_STRING }
           input_arg { name: "shape_and_slices" type: DT_STRING }
           input_arg { name: "tensors" type_list_attr: "dtypes" }
           attr {
             name: "dtypes"
             type: "list(type)"
             has_minimum: true
             minimum: 1
           }
           is_stateful: true)pb",
      R"pb(name: "RestoreV2"
           input_arg { name: "prefix" type: DT_STRING }
           input_arg { name: "tensor_names" type: DT_STRING }
           input_arg { name: "shape_and_slices" type: DT_STRING }
           output_arg { name: "tensors" type_list_attr: "dtypes" }
           attr {
             name: "dtypes"
             type: "list(type)"
             has_minimum: true
             minimum: 1
           }
           is_stateful: true)pb",
      R"pb(name: "MergeV2Checkpoints"
           input_arg { name: "checkpoint_prefixes" type: DT_STRING }
           input_arg { name: "destination_prefix" type: DT_STRING }
           attr {
             name: "delete_old_dirs"
             type: "bool"
             default_value { b: true }
           }
           attr {
             name: "allow_missing_files"
             type: "bool"
             default_value { b: false }
           }
           is_stateful: true)pb",
      R"pb(name: "ShardedFilename"
           input_arg { name: "basename" type: DT_STRING }
           input_arg { name: "shard" type: DT_INT32 }
           input_arg { name: "num_shards" type: DT_INT32 }
           output_arg { name: "filename" type: DT_STRING })pb",
      R"pb(name: "ShardedFilespec"
           input_arg { name: "basename" type: DT_STRING }
           input_arg { name: "num_shards" type: DT_INT32 }
           output_arg { name: "filename" type: DT_STRING })pb",
      R"pb(name: "StringJoin"
           input_arg { name: "inputs" type: DT_STRING number_attr: "N" }
           output_arg { name: "output" type: DT_STRING }
           attr { name: "N" type: "int" has_minimum: true }
           attr {
             name: "separator"
             type: "string"
             default_value { s: "" }
           })pb",
      R"pb(name: "StaticRegexFullMatch"
           input_arg { name: "input" type: DT_STRING }
           output_arg { name: "output" type: DT_BOOL }
           attr { name: "pattern" type: "string" })pb",
  };
  for (const char* text : kTfOpDefs) {
    OpDef want;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
    INFO(want.name());
    const OpRegistrationData* got = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(got != nullptr);
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    const bool equal = differencer.Compare(got->op_def, want);
    INFO(diff);
    CHECK(equal);
  }
}

TEST_CASE("io ops: SaveV2 then RestoreV2 round-trips every dtype") {
  TempDir dir;
  const std::string prefix = dir / "model.ckpt";
  std::vector<std::string> names;
  std::vector<Tensor> values;
  std::vector<DataType> dtypes;
  uint32_t seed = 0;
  for (DataType dtype : SavableDtypes()) {
    names.push_back(absl::StrCat("v/", DataTypeString(dtype)));
    values.push_back(PatternTensor(dtype, TensorShape({2, 3}), seed++));
    dtypes.push_back(dtype);
  }
  names.push_back("scalar");
  values.push_back(Tensor::Scalar<double>(2.5));
  dtypes.push_back(DT_DOUBLE);
  names.push_back("empty");
  values.push_back(Tensor(DT_FLOAT, TensorShape({0, 4})));
  dtypes.push_back(DT_FLOAT);

  GraphBuilder save;
  AddSave(&save, "save", save.ScalarString("prefix", prefix), names, values);
  REQUIRE_THAT(RunGraph(save.graph(), {}, {"save"}).status(), IsOk());

  // Restore in another order than saved.
  std::reverse(names.begin(), names.end());
  std::reverse(values.begin(), values.end());
  std::reverse(dtypes.begin(), dtypes.end());
  GraphBuilder restore;
  AddRestore(&restore, "restore", prefix, names, dtypes);
  auto got = RunGraph(restore.graph(), Outputs("restore", names.size()));
  REQUIRE_THAT(got.status(), IsOk());
  for (size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(SameTensor((*got)[i], values[i]));
  }
}

TEST_CASE("io ops: RestoreV2 errors carry TensorFlow's codes") {
  TempDir dir;
  const std::string prefix = dir / "m";
  GraphBuilder save;
  AddSave(&save, "save", save.ScalarString("prefix", prefix), {"w"},
          {Tensor::FromVector<float>({1, 2, 3})});
  REQUIRE_THAT(RunGraph(save.graph(), {}, {"save"}).status(), IsOk());

  auto restore = [&](const std::string& p, const std::string& name,
                     DataType dtype, const std::string& spec = "") {
    GraphBuilder g;
    AddRestore(&g, "r", p, {name}, {dtype}, {spec});
    return RunGraph(g.graph(), {"r:0"}).status();
  };
  CHECK_THAT(restore(prefix, "w", DT_FLOAT), IsOk());
  CHECK_THAT(restore(dir / "nope", "w", DT_FLOAT),
             StatusIs(absl::StatusCode::kNotFound, dir / "nope"));
  CHECK_THAT(
      restore(prefix, "y", DT_FLOAT),
      StatusIs(absl::StatusCode::kNotFound, "Key y not found in checkpoint"));
  CHECK_THAT(restore(prefix, "w", DT_INT32),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "tensor_name = w; expected dtype int32 does not equal "
                      "original dtype float"));
  CHECK_THAT(
      restore(prefix, "w", DT_FLOAT, "3 0,2"),
      StatusIs(absl::StatusCode::kUnimplemented, "shape_and_slices '3 0,2'"));
}

TEST_CASE("io ops: SaveV2 input errors") {
  TempDir dir;
  SECTION("a slice spec") {
    GraphBuilder g;
    g.Node("save", "SaveV2",
           {g.ScalarString("p", dir / "m"), g.StringConst("n", {"w"}),
            g.StringConst("s", {"2 0,1"}),
            g.Const("v", Tensor::FromVector<float>({1}))},
           {{"dtypes", TypeListAttr({DT_FLOAT})}});
    CHECK_THAT(RunGraph(g.graph(), {}, {"save"}).status(),
               StatusIs(absl::StatusCode::kUnimplemented, "whole tensors"));
    CHECK(dir.Files().empty());
  }
  SECTION("names and tensors disagree: caught when the graph is imported") {
    GraphBuilder g;
    g.Node("save", "SaveV2",
           {g.ScalarString("p", dir / "m"), g.StringConst("n", {"a", "b"}),
            g.StringConst("s", {"", ""}),
            g.Const("v", Tensor::FromVector<float>({1}))},
           {{"dtypes", TypeListAttr({DT_FLOAT})}});
    CHECK_THAT(RunGraph(g.graph(), {}, {"save"}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "tensor_names"));
  }
  SECTION("names fed at run time") {
    GraphBuilder g;
    g.Node("save", "SaveV2",
           {g.ScalarString("p", dir / "m"), g.Placeholder("n", DT_STRING),
            g.StringConst("s", {""}),
            g.Const("v", Tensor::FromVector<float>({1}))},
           {{"dtypes", TypeListAttr({DT_FLOAT})}});
    const Tensor two_names = Tensor::FromVector<std::string>({"a", "b"});
    CHECK_THAT(RunGraph(g.graph(), {}, {"save"}, {{"n", two_names}}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "tensor_names and shape_and_slices have different "
                        "number of elements: 2 vs. 1"));
    const Tensor dup = Tensor::FromVector<std::string>({"a"});
    CHECK_THAT(RunGraph(g.graph(), {}, {"save"}, {{"n", dup}}).status(),
               IsOk());
  }
  SECTION("a prefix of two elements") {
    GraphBuilder g;
    g.Node("save", "SaveV2",
           {g.Placeholder("p", DT_STRING), g.StringConst("n", {"w"}),
            g.StringConst("s", {""}),
            g.Const("v", Tensor::FromVector<float>({1}))},
           {{"dtypes", TypeListAttr({DT_FLOAT})}});
    const Tensor prefixes = Tensor::FromVector<std::string>({"a", "b"});
    CHECK_THAT(RunGraph(g.graph(), {}, {"save"}, {{"p", prefixes}}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input prefix should have a single element, got 2"));
  }
}

// The graph tf.compat.v1.train.Saver(sharded=True) builds for variables on
// two devices, with constants in place of the variables: each device saves
// its shard under "<prefix>_temp/part-0000i-of-00002", then
// MergeV2Checkpoints joins them under <prefix> and removes the _temp
// directory.
TEST_CASE("io ops: a sharded save over two devices, merged, restores") {
  TempDir dir;
  const std::string prefix = dir / "model.ckpt";
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  const Tensor a = PatternTensor(DT_FLOAT, TensorShape({4}), 1);
  const Tensor s = PatternTensor(DT_STRING, TensorShape({3}), 2);
  const Tensor b = PatternTensor(DT_INT32, TensorShape({1, 2}), 3);

  GraphBuilder g;
  g.ScalarString("save/Const", prefix);
  g.Node("save/StaticRegexFullMatch", "StaticRegexFullMatch", {"save/Const"},
         {{"pattern", StringAttr("^s3://.*")}}, cpu0);
  g.ScalarString("save/Const_1", ".part", cpu0);
  g.ScalarString("save/Const_2", "_temp/part", cpu0);
  g.Node("save/Select", "Select",
         {"save/StaticRegexFullMatch", "save/Const_1", "save/Const_2"},
         {{"T", TypeAttr(DT_STRING)}}, cpu0);
  g.Node("save/StringJoin", "StringJoin", {"save/Const", "save/Select"},
         {{"N", IntAttr(2)}, {"separator", StringAttr("")}}, cpu0);
  g.Const("save/num_shards", Tensor::Scalar<int32_t>(2));
  std::vector<std::string> shard_names;
  for (int shard = 0; shard < 2; ++shard) {
    const std::string device = shard == 0 ? cpu0 : cpu1;
    const std::string fname = absl::StrCat("save/ShardedFilename_", shard);
    g.Const(fname + "/shard", Tensor::Scalar<int32_t>(shard), device);
    g.Node(fname, "ShardedFilename",
           {"save/StringJoin", fname + "/shard", "save/num_shards"}, {},
           device);
    const std::string save = absl::StrCat("save/SaveV2_", shard);
    if (shard == 0) {
      AddSave(&g, save, fname, {"a", "s"}, {a, s}, device);
    } else {
      AddSave(&g, save, fname, {"b"}, {b}, device);
    }
    g.Node(absl::StrCat("save/control_dependency_", shard), "Identity",
           {fname, "^" + save}, {{"T", TypeAttr(DT_STRING)}}, device);
    shard_names.push_back(fname);
  }
  g.Node("save/MergeV2Checkpoints/checkpoint_prefixes", "Pack",
         {shard_names[0], shard_names[1], "^save/control_dependency_0",
          "^save/control_dependency_1"},
         {{"T", TypeAttr(DT_STRING)}, {"N", IntAttr(2)}, {"axis", IntAttr(0)}},
         cpu0);
  g.Node("save/MergeV2Checkpoints", "MergeV2Checkpoints",
         {"save/MergeV2Checkpoints/checkpoint_prefixes", "save/Const"},
         {{"delete_old_dirs", BoolAttr(true)},
          {"allow_missing_files", BoolAttr(false)}},
         cpu0);
  g.Node("save/Identity", "Identity",
         {"save/Const", "^save/MergeV2Checkpoints"},
         {{"T", TypeAttr(DT_STRING)}}, cpu0);

  auto saved = RunGraph(g.graph(), {"save/Identity:0"}, {}, {}, /*cpus=*/2);
  REQUIRE_THAT(saved.status(), IsOk());
  CHECK((*saved)[0].scalar<std::string>() == prefix);
  CHECK(dir.Files() ==
        std::vector<std::string>{"model.ckpt.data-00000-of-00002",
                                 "model.ckpt.data-00001-of-00002",
                                 "model.ckpt.index"});

  GraphBuilder r;
  AddRestore(&r, "restore", prefix, {"b", "a", "s"},
             {DT_INT32, DT_FLOAT, DT_STRING});
  auto got = RunGraph(r.graph(), Outputs("restore", 3));
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(SameTensor((*got)[0], b));
  CHECK(SameTensor((*got)[1], a));
  CHECK(SameTensor((*got)[2], s));
}

TEST_CASE("io ops: MergeV2Checkpoints input errors") {
  TempDir dir;
  GraphBuilder g;
  g.Node(
      "merge", "MergeV2Checkpoints",
      {g.Placeholder("prefixes", DT_STRING), g.Placeholder("dest", DT_STRING)},
      {});
  auto run = [&](const Tensor& prefixes, const Tensor& dest) {
    return RunGraph(g.graph(), {}, {"merge"},
                    {{"prefixes", prefixes}, {"dest", dest}})
        .status();
  };
  const Tensor one = Tensor::FromVector<std::string>({dir / "p"});
  CHECK_THAT(run(Tensor::Scalar<std::string>("x"),
                 Tensor::Scalar<std::string>(dir / "d")),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input checkpoint_prefixes should be an 1-D tensor"));
  CHECK_THAT(run(one, one),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input destination_prefix should be a scalar tensor"));
  CHECK_THAT(run(one, Tensor::Scalar<std::string>(dir / "d")),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "allow_missing_files was set to false"));
}

TEST_CASE("io ops: ShardedFilename, ShardedFilespec") {
  GraphBuilder g;
  g.ScalarString("base", "a/b");
  g.Const("shard", Tensor::Scalar<int32_t>(3));
  g.Const("n", Tensor::Scalar<int32_t>(10));
  g.Const("minus", Tensor::Scalar<int32_t>(-1));
  g.Const("big", Tensor::Scalar<int32_t>(123456));
  g.Node("name", "ShardedFilename", {"base", "shard", "n"});
  g.Node("spec", "ShardedFilespec", {"base", "n"});
  // TensorFlow's printf formatting, even for odd numbers.
  g.Node("odd", "ShardedFilename", {"base", "minus", "big"});
  auto got = RunGraph(g.graph(), {"name", "spec", "odd"});
  REQUIRE_THAT(got.status(), IsOk());
  CHECK((*got)[0].scalar<std::string>() == "a/b-00003-of-00010");
  CHECK((*got)[1].scalar<std::string>() == "a/b-\?\?\?\?\?-of-00010");
  CHECK((*got)[2].scalar<std::string>() == "a/b--0001-of-123456");

  GraphBuilder bad;
  bad.Node("name", "ShardedFilename",
           {bad.Placeholder("base", DT_STRING),
            bad.Const("shard", Tensor::Scalar<int32_t>(0)),
            bad.Const("n", Tensor::Scalar<int32_t>(1))});
  CHECK_THAT(RunGraph(bad.graph(), {"name"}, {},
                      {{"base", Tensor::FromVector<std::string>({"a", "b"})}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "basename must be a scalar, got shape [2]"));
}

TEST_CASE("io ops: StringJoin broadcasts scalars") {
  GraphBuilder g;
  g.StringConst("v", {"a", "b"});
  g.ScalarString("x", "x");
  g.StringConst("w", {"1", "2"});
  g.Node("join", "StringJoin", {"v", "x", "w"},
         {{"N", IntAttr(3)}, {"separator", StringAttr("-")}});
  g.Node("scalars", "StringJoin", {"x", "x"},
         {{"N", IntAttr(2)}, {"separator", StringAttr(",")}});
  g.Node("none", "StringJoin", {}, {{"N", IntAttr(0)}});
  auto got = RunGraph(g.graph(), {"join", "scalars", "none"});
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(SameTensor((*got)[0],
                   Tensor::FromVector<std::string>({"a-x-1", "b-x-2"})));
  CHECK(SameTensor((*got)[1], Tensor::Scalar<std::string>("x,x")));
  CHECK(SameTensor((*got)[2], Tensor::Scalar<std::string>("")));

  GraphBuilder bad;
  bad.Node("join", "StringJoin",
           {bad.StringConst("v", {"a", "b"}), bad.StringConst("w", {"c"})},
           {{"N", IntAttr(2)}});
  CHECK_THAT(RunGraph(bad.graph(), {"join"}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  GraphBuilder fed;
  fed.Node("join", "StringJoin",
           {fed.Placeholder("v", DT_STRING), fed.StringConst("w", {"c"})},
           {{"N", IntAttr(2)}});
  CHECK_THAT(RunGraph(fed.graph(), {"join"}, {},
                      {{"v", Tensor::FromVector<std::string>({"a", "b"})}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input shapes do not match: [2] vs. [1]"));
}

TEST_CASE("io ops: StaticRegexFullMatch") {
  GraphBuilder g;
  g.StringConst("in", {"s3://bucket/x", "/tmp/s3://", "", "s3://"});
  g.Node("m", "StaticRegexFullMatch", {"in"},
         {{"pattern", StringAttr("^s3://.*")}});
  auto got = RunGraph(g.graph(), {"m"});
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(SameTensor((*got)[0],
                   Tensor::FromVector<bool>({true, false, false, true})));

  GraphBuilder bad;
  bad.Node("m", "StaticRegexFullMatch", {bad.StringConst("in", {"x"})},
           {{"pattern", StringAttr("(unclosed")}});
  CHECK_THAT(RunGraph(bad.graph(), {"m"}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid pattern: (unclosed"));
}

}  // namespace
}  // namespace dfx

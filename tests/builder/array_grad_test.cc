// Tests graph/builder/grad/array_grad.cc: every gradient function against
// central differences, run in a local session.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/grad_test_util.h"

namespace dfx {
namespace {

using testing::Ph;
using testing::Rand;
using testing::RequireGradient;

// y = f(x) of a double placeholder fed with a random tensor of `shape`.
template <typename F>
void CheckOne(const TensorShape& shape, F&& f) {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  RequireGradient(root, {x}, {Rand(DT_DOUBLE, shape, 9)}, {f(root, x)});
}

TEST_CASE("gradient: Reshape, ExpandDims, Squeeze") {
  SECTION("Reshape") {
    CheckOne({2, 3}, [](const Scope& s, const Output& x) {
      return ops::Reshape(s, x, ops::Const(s, {3, -1}));
    });
  }
  SECTION("Reshape int64 shape") {
    CheckOne({2, 3}, [](const Scope& s, const Output& x) {
      return ops::Reshape(s, x, ops::Const(s, std::vector<int64_t>{6}));
    });
  }
  SECTION("ExpandDims negative axis") {
    CheckOne({2, 3}, [](const Scope& s, const Output& x) {
      return ops::ExpandDims(s, x, ops::Const(s, -1));
    });
  }
  SECTION("Squeeze") {
    CheckOne({2, 1, 3, 1}, [](const Scope& s, const Output& x) {
      return ops::Squeeze(s, x, {1});
    });
  }
  SECTION("Squeeze every size-1 dim") {
    CheckOne({1, 3, 1}, [](const Scope& s, const Output& x) {
      return ops::Squeeze(s, x);
    });
  }
}

TEST_CASE("gradient: Transpose") {
  SECTION("2-D") {
    CheckOne({2, 3}, [](const Scope& s, const Output& x) {
      return ops::Transpose(s, x, ops::Const(s, {1, 0}));
    });
  }
  SECTION("3-D, int64 perm") {
    CheckOne({2, 3, 4}, [](const Scope& s, const Output& x) {
      return ops::Transpose(s, x, ops::Const(s, std::vector<int64_t>{2, 0, 1}));
    });
  }
}

TEST_CASE("gradient: ConcatV2") {
  for (int axis : {0, 1, -1, -2}) {
    SECTION("axis " + std::to_string(axis)) {
      Scope root = Scope::NewRootScope();
      const Output a = Ph(root, "a", DT_DOUBLE);
      const Output b = Ph(root, "b", DT_DOUBLE);
      const Output c = Ph(root, "c", DT_DOUBLE);
      const bool rows = axis == 0 || axis == -2;
      const TensorShape sb = rows ? TensorShape{1, 3} : TensorShape{2, 1};
      const TensorShape sc = rows ? TensorShape{3, 3} : TensorShape{2, 4};
      RequireGradient(root, {a, b, c},
                      {Rand(DT_DOUBLE, {2, 3}, 1), Rand(DT_DOUBLE, sb, 2),
                       Rand(DT_DOUBLE, sc, 3)},
                      {ops::ConcatV2(root, {a, b, c}, ops::Const(root, axis))});
    }
  }
  SECTION("int64 axis, one value twice") {
    Scope root = Scope::NewRootScope();
    const Output a = Ph(root, "a", DT_DOUBLE);
    RequireGradient(root, {a}, {Rand(DT_DOUBLE, {2, 2}, 1)},
                    {ops::ConcatV2(root, {a, ops::Square(root, a)},
                                   ops::Const(root, int64_t{1}))});
  }
  SECTION("an empty piece") {
    Scope root = Scope::NewRootScope();
    const Output a = Ph(root, "a", DT_DOUBLE);
    const Output b = Ph(root, "b", DT_DOUBLE);
    RequireGradient(root, {a, b},
                    {Rand(DT_DOUBLE, {2, 0}, 1), Rand(DT_DOUBLE, {2, 3}, 2)},
                    {ops::ConcatV2(root, {a, b}, ops::Const(root, 1))});
  }
}

TEST_CASE("gradient: Pack and Unpack") {
  for (int axis : {0, 1, -1}) {
    SECTION("Pack axis " + std::to_string(axis)) {
      Scope root = Scope::NewRootScope();
      const Output a = Ph(root, "a", DT_DOUBLE);
      const Output b = Ph(root, "b", DT_DOUBLE);
      RequireGradient(root, {a, b},
                      {Rand(DT_DOUBLE, {2, 3}, 1), Rand(DT_DOUBLE, {2, 3}, 2)},
                      {ops::Pack(root, {a, b}, axis)});
    }
    SECTION("Unpack axis " + std::to_string(axis)) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      const TensorShape shape =
          axis == 0 ? TensorShape{3, 2, 2}
                    : (axis == 1 ? TensorShape{2, 3, 2} : TensorShape{2, 2, 3});
      std::vector<Output> pieces = ops::Unpack(root, x, 3, axis);
      REQUIRE(pieces.size() == 3);
      RequireGradient(root, {x}, {Rand(DT_DOUBLE, shape, 1)}, pieces);
    }
  }
  SECTION("Unpack with one piece unused") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    std::vector<Output> pieces = ops::Unpack(root, x, 3, 0);
    REQUIRE(pieces.size() == 3);
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {3, 2}, 1)},
                    {ops::Mul(root, pieces[0], pieces[2])});
  }
}

TEST_CASE("gradient: Slice and StridedSlice") {
  SECTION("Slice") {
    CheckOne({3, 4}, [](const Scope& s, const Output& x) {
      return ops::Slice(s, x, ops::Const(s, {1, 1}), ops::Const(s, {2, -1}));
    });
  }
  SECTION("Slice int64") {
    CheckOne({3, 4}, [](const Scope& s, const Output& x) {
      return ops::Slice(s, x, ops::Const(s, std::vector<int64_t>{0, 2}),
                        ops::Const(s, std::vector<int64_t>{2, 2}));
    });
  }
  SECTION("StridedSlice with strides and negative indices") {
    CheckOne({4, 5}, [](const Scope& s, const Output& x) {
      return ops::StridedSlice(s, x, ops::Const(s, {0, -1}),
                               ops::Const(s, {4, 0}), ops::Const(s, {2, -2}));
    });
  }
  SECTION("StridedSlice with masks") {
    CheckOne({3, 4, 2}, [](const Scope& s, const Output& x) {
      // x[1, ..., tf.newaxis, 1:] : shrink, ellipsis, new axis, begin mask.
      return ops::StridedSlice(s, x, ops::Const(s, {1, 0, 0, 1}),
                               ops::Const(s, {2, 0, 0, 0}),
                               ops::Const(s, {1, 1, 1, 1}),
                               {.end_mask = 8,
                                .ellipsis_mask = 2,
                                .new_axis_mask = 4,
                                .shrink_axis_mask = 1});
    });
  }
  SECTION("StridedSlice int64") {
    CheckOne({5}, [](const Scope& s, const Output& x) {
      return ops::StridedSlice(s, x, ops::Const(s, std::vector<int64_t>{1}),
                               ops::Const(s, std::vector<int64_t>{5}),
                               ops::Const(s, std::vector<int64_t>{2}));
    });
  }
}

TEST_CASE("gradient: Tile and Pad") {
  SECTION("Tile") {
    CheckOne({2, 3}, [](const Scope& s, const Output& x) {
      return ops::Tile(s, x, ops::Const(s, {2, 3}));
    });
  }
  SECTION("Tile int64 multiples, rank 3") {
    CheckOne({2, 1, 2}, [](const Scope& s, const Output& x) {
      return ops::Tile(s, x, ops::Const(s, std::vector<int64_t>{1, 3, 2}));
    });
  }
  SECTION("Pad") {
    CheckOne({2, 3}, [](const Scope& s, const Output& x) {
      return ops::Pad(s, x, ops::Const(s, {{1, 0}, {2, 1}}));
    });
  }
  SECTION("Pad int64") {
    CheckOne({3}, [](const Scope& s, const Output& x) {
      return ops::Pad(s, x, ops::Const(s, std::vector<int64_t>{2, 1}, {1, 2}));
    });
  }
}

TEST_CASE("gradient: GatherV2") {
  SECTION("axis 0, repeated indices") {
    CheckOne({4, 3}, [](const Scope& s, const Output& x) {
      return ops::GatherV2(s, x, ops::Const(s, {2, 0, 2}), ops::Const(s, 0));
    });
  }
  SECTION("axis 0, 2-D int64 indices") {
    CheckOne({5, 2}, [](const Scope& s, const Output& x) {
      return ops::GatherV2(
          s, x, ops::Const(s, std::vector<int64_t>{1, 4, 4, 0}, {2, 2}),
          ops::Const(s, 0));
    });
  }
  SECTION("axis 1") {
    CheckOne({2, 4, 3}, [](const Scope& s, const Output& x) {
      return ops::GatherV2(s, x, ops::Const(s, {3, 1, 3}), ops::Const(s, 1));
    });
  }
  SECTION("axis -1, 2-D indices") {
    CheckOne({2, 3, 4}, [](const Scope& s, const Output& x) {
      return ops::GatherV2(s, x, ops::Const(s, {0, 3, 3, 2}, {2, 2}),
                           ops::Const(s, int64_t{-1}));
    });
  }
  SECTION("scalar index, params rank 1") {
    CheckOne({4}, [](const Scope& s, const Output& x) {
      return ops::GatherV2(s, x, ops::Const(s, 2), ops::Const(s, 0));
    });
  }
  SECTION("axis from a placeholder") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    const Output axis = ops::Placeholder(root.WithOpName("axis"), DT_INT32);
    const Output y = ops::GatherV2(root, x, ops::Const(root, {1, 0}), axis);
    std::vector<Output> grads;
    REQUIRE_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
    auto out = testing::RunScope(
        root,
        {{x, testing::MakeTensor(DT_DOUBLE, {2, 2}, {1, 2, 3, 4})},
         {axis, Tensor::Scalar<int32_t>(1)}},
        grads);
    REQUIRE_OK(out);
    for (int i = 0; i < 4; ++i)
      CHECK(testing::GetAsDouble((*out)[0], i) == 1.0);
  }
  SECTION("batch_dims other than 0 is Unimplemented") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    const Output y = ops::GatherV2(root, x, ops::Const(root, {{0}, {1}}),
                                   ops::Const(root, 1), /*batch_dims=*/1);
    std::vector<Output> grads;
    CHECK_THAT(
        AddSymbolicGradients(root, {y}, {x}, &grads),
        testing::StatusIs(absl::StatusCode::kUnimplemented, "batch_dims 1"));
  }
}

TEST_CASE("gradient: Select and SelectV2") {
  SECTION("Select, same shapes") {
    Scope root = Scope::NewRootScope();
    const Output t = Ph(root, "t", DT_DOUBLE);
    const Output e = Ph(root, "e", DT_DOUBLE);
    const Output c =
        ops::Const(root, std::vector<bool>{true, false, false, true}, {2, 2});
    RequireGradient(root, {t, e},
                    {Rand(DT_DOUBLE, {2, 2}, 1), Rand(DT_DOUBLE, {2, 2}, 2)},
                    {ops::Select(root, c, t, e)});
  }
  SECTION("Select, vector condition") {
    Scope root = Scope::NewRootScope();
    const Output t = Ph(root, "t", DT_DOUBLE);
    const Output e = Ph(root, "e", DT_DOUBLE);
    const Output c = ops::Const(root, std::vector<bool>{false, true});
    RequireGradient(root, {t, e},
                    {Rand(DT_DOUBLE, {2, 3}, 1), Rand(DT_DOUBLE, {2, 3}, 2)},
                    {ops::Select(root, c, t, e)});
  }
  SECTION("SelectV2 with broadcasting") {
    Scope root = Scope::NewRootScope();
    const Output t = Ph(root, "t", DT_DOUBLE);
    const Output e = Ph(root, "e", DT_DOUBLE);
    const Output c =
        ops::Const(root, std::vector<bool>{true, false, true}, {1, 3});
    RequireGradient(root, {t, e},
                    {Rand(DT_DOUBLE, {2, 1}, 1), Rand(DT_DOUBLE, {2, 3}, 2)},
                    {ops::SelectV2(root, c, t, e)});
  }
}

TEST_CASE("gradient: Fill and BroadcastTo") {
  SECTION("Fill") {
    CheckOne({}, [](const Scope& s, const Output& x) {
      return ops::Fill(s, ops::Const(s, {2, 3}), x);
    });
  }
  SECTION("BroadcastTo") {
    CheckOne({3, 1}, [](const Scope& s, const Output& x) {
      return ops::BroadcastTo(s, x, ops::Const(s, {2, 3, 4}));
    });
  }
}

TEST_CASE("gradient: SplitV") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  std::vector<Output> pieces =
      ops::SplitV(root, x, ops::Const(root, {1, 3}), ops::Const(root, -1), 2);
  REQUIRE(pieces.size() == 2);
  SECTION("both pieces") {
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 4}, 1)}, pieces);
  }
  SECTION("one piece") {
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 4}, 1)}, {pieces[1]});
  }
}

// A node of an op the builder has no wrapper for: `inputs` as given, attrs
// `types` (type attrs) and `ints` (int attrs), an unknown `shape` where the
// op needs one; defaults fill in the rest.
Output RawNode(const Scope& scope, const std::string& op,
               const std::vector<Output>& inputs,
               const std::vector<std::pair<std::string, DataType>>& types,
               const std::vector<std::pair<std::string, int64_t>>& ints = {},
               int output = 0) {
  NodeDef def;
  def.set_name(scope.GetUniqueNameForOp(op));
  def.set_op(op);
  for (const Output& in : inputs) def.add_input(in.ToString());
  for (const auto& [name, type] : types) {
    (*def.mutable_attr())[name].set_type(type);
  }
  for (const auto& [name, value] : ints)
    (*def.mutable_attr())[name].set_i(value);
  if (op == "PlaceholderWithDefault" || op == "EnsureShape") {
    (*def.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
  }
  REQUIRE_OK(scope.AddNode(def));
  return Output(def.name(), output, DT_DOUBLE);
}

TEST_CASE("gradient: ops without a builder wrapper") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  const Tensor value = Rand(DT_DOUBLE, {4, 2}, 5);
  SECTION("Split") {
    const Output dim = ops::Const(root, 0);
    const Output a = RawNode(root, "Split", {dim, x}, {{"T", DT_DOUBLE}},
                             {{"num_split", 2}}, 0);
    const Output b(a.node_name(), 1, DT_DOUBLE);
    RequireGradient(root, {x}, {value}, {ops::Mul(root, a, b)});
  }
  SECTION("Split, one piece used") {
    RawNode(root.WithOpName("split"), "Split", {ops::Const(root, 1), x},
            {{"T", DT_DOUBLE}}, {{"num_split", 2}});
    RequireGradient(root, {x}, {value}, {Output("split", 1, DT_DOUBLE)});
  }
  SECTION("Gather") {
    const Output y = RawNode(root, "Gather", {x, ops::Const(root, {3, 0, 3})},
                             {{"Tparams", DT_DOUBLE}, {"Tindices", DT_INT32}});
    RequireGradient(root, {x}, {value}, {y});
  }
  SECTION("PadV2") {
    const Output y =
        RawNode(root, "PadV2",
                {x, ops::Const(root, {{0, 1}, {2, 0}}), ops::Const(root, 0.5)},
                {{"T", DT_DOUBLE}, {"Tpaddings", DT_INT32}});
    RequireGradient(root, {x}, {value}, {y});
  }
  SECTION("BiasAddV1") {
    const Output b = Ph(root, "b", DT_DOUBLE);
    const Output y = RawNode(root, "BiasAddV1", {x, b}, {{"T", DT_DOUBLE}});
    RequireGradient(root, {x, b}, {value, Rand(DT_DOUBLE, {2}, 6)}, {y});
  }
  SECTION("Snapshot, PlaceholderWithDefault, EnsureShape pass it through") {
    const Output s = RawNode(root, "Snapshot", {x}, {{"T", DT_DOUBLE}});
    const Output p =
        RawNode(root, "PlaceholderWithDefault", {s}, {{"dtype", DT_DOUBLE}});
    const Output e = RawNode(root, "EnsureShape", {ops::Square(root, p)},
                             {{"T", DT_DOUBLE}});
    RequireGradient(root, {x}, {value}, {e});
  }
}

}  // namespace
}  // namespace dfx

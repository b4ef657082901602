// Gradients of TensorArray and TensorList element ops (graph/builder/grad/
// data_flow_grad.cc) against finite differences: TensorArray writes, reads
// and gathers, a scatter read back by a concat, a split read back by reads,
// a TensorArray written in a while loop and stacked after it (the shape of
// tf.compat.v1's dynamic_rnn), whose gradient runs in the backprop loop,
// also against tf.gradients of the same tf.while_loop (v1 control flow);
// TensorList items read from a list made from a tensor, set into a reserved
// list and stacked, and overwritten.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/control_flow.h"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/grad_test_util.h"
#include "tests/builder/npy.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::Ph;
using ::dfx::testing::Rand;
using ::dfx::testing::RequireGradient;

AttrValue TypeValue(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

// A node of `op` (no builder wrapper for TensorArrays); returns its name.
std::string Node(const Scope& s, const std::string& op,
                 const std::vector<Output>& inputs,
                 std::vector<std::pair<std::string, AttrValue>> attrs) {
  NodeDef node;
  node.set_name(s.GetUniqueNameForOp(op));
  node.set_op(op);
  for (const Output& in : inputs) node.add_input(in.ToString());
  for (auto& [k, v] : attrs) (*node.mutable_attr())[k] = std::move(v);
  const std::string name = node.name();
  REQUIRE_THAT(s.AddNode(std::move(node)), IsOk());
  return name;
}

struct Ta {
  Output handle, flow;
};

Ta NewTa(const Scope& s, int size, DataType t) {
  const std::string ta =
      Node(s, "TensorArrayV3", {ops::Const(s, size)}, {{"dtype", TypeValue(t)}});
  return {Output(ta, 0, DT_RESOURCE), Output(ta, 1, DT_FLOAT)};
}
Output Write(const Scope& s, const Ta& ta, const Output& index,
             const Output& value, const Output& flow) {
  return Output(Node(s, "TensorArrayWriteV3", {ta.handle, index, value, flow},
                     {{"T", TypeValue(value.dtype())}}),
                0, DT_FLOAT);
}
Output Read(const Scope& s, const Ta& ta, int index, const Output& flow,
            DataType t) {
  return Output(Node(s, "TensorArrayReadV3",
                     {ta.handle, ops::Const(s, index), flow},
                     {{"dtype", TypeValue(t)}}),
                0, t);
}
Output Gather(const Scope& s, const Ta& ta, const Output& indices,
              const Output& flow, DataType t) {
  return Output(Node(s, "TensorArrayGatherV3", {ta.handle, indices, flow},
                     {{"dtype", TypeValue(t)}}),
                0, t);
}

TEST_CASE("TensorArray write, read and gather gradients") {
  Scope root = Scope::NewRootScope();
  Output x0 = Ph(root, "x0", DT_DOUBLE), x1 = Ph(root, "x1", DT_DOUBLE),
         x2 = Ph(root, "x2", DT_DOUBLE);
  const Ta ta = NewTa(root, 3, DT_DOUBLE);
  Output flow = Write(root, ta, ops::Const(root, 0), x0, ta.flow);
  flow = Write(root, ta, ops::Const(root, 1), x1, flow);
  flow = Write(root, ta, ops::Const(root, 2), x2, flow);
  // Element 1 read alone, elements 2 and 0 gathered (each read once: the
  // array clears an element once read).
  Output r1 = Read(root, ta, 1, flow, DT_DOUBLE);
  Output g = Gather(root, ta, ops::Const(root, {2, 0}), flow, DT_DOUBLE);
  Output y = ops::AddV2(root, ops::Mul(root, r1, r1),
                        ops::Sum(root, ops::Sin(root, g), ops::Const(root, 0)));
  RequireGradient(root, {x0, x1, x2},
                  {Rand(DT_DOUBLE, TensorShape({2}), 1),
                   Rand(DT_DOUBLE, TensorShape({2}), 2),
                   Rand(DT_DOUBLE, TensorShape({2}), 3)},
                  {y});
}

TEST_CASE("TensorArray scatter, concat and split gradients") {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, "x", DT_DOUBLE);
  SECTION("scattered rows read back by a concat") {
    const Ta ta = NewTa(root, 3, DT_DOUBLE);
    Output flow(Node(root, "TensorArrayScatterV3",
                     {ta.handle, ops::Const(root, {2, 0, 1}), x, ta.flow},
                     {{"T", TypeValue(DT_DOUBLE)}}),
                0, DT_FLOAT);
    Output c(Node(root, "TensorArrayConcatV3", {ta.handle, flow},
                  {{"dtype", TypeValue(DT_DOUBLE)}}),
             0, DT_DOUBLE);
    Output y = ops::Mul(root, c, ops::Sin(root, c));
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, TensorShape({3, 2}), 4)},
                    {y});
  }
  SECTION("a split read back element by element") {
    const Ta ta = NewTa(root, 2, DT_DOUBLE);
    Output flow(Node(root, "TensorArraySplitV3",
                     {ta.handle, x, ops::Const(root, {int64_t{1}, int64_t{3}}),
                      ta.flow},
                     {{"T", TypeValue(DT_DOUBLE)}}),
                0, DT_FLOAT);
    Output a = Read(root, ta, 0, flow, DT_DOUBLE);
    Output b = Read(root, ta, 1, flow, DT_DOUBLE);
    Output y = ops::AddV2(root, ops::Sum(root, ops::Mul(root, a, a),
                                         ops::Const(root, 0)),
                          ops::Sum(root, ops::Sin(root, b), ops::Const(root, 0)));
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, TensorShape({4}), 5)}, {y});
  }
}

// for i in 0..3: h = tanh(h * w); out[i] = h. Returns stack(out).
Output TensorArrayLoop(const Scope& root, const Output& h0, const Output& w) {
  const Ta ta = NewTa(root, 3, h0.dtype());
  std::vector<Output> outs;
  REQUIRE_THAT(
      ops::WhileLoop(
          root, {ops::Const(root, 0), h0, ta.flow},
          [](const Scope& c, const std::vector<Output>& in, Output* pred) {
            *pred = ops::Less(c, in[0], ops::Const(c, 3));
            return c.status();
          },
          [&](const Scope& b, const std::vector<Output>& in,
              std::vector<Output>* next) {
            Output h = ops::Tanh(b, ops::Mul(b, in[1], w));
            next->push_back(ops::AddV2(b, in[0], ops::Const(b, 1)));
            next->push_back(h);
            next->push_back(Write(b, ta, in[0], h, in[2]));
            return b.status();
          },
          &outs),
      IsOk());
  return Gather(root, ta, ops::Const(root, {0, 1, 2}), outs[2], h0.dtype());
}

TEST_CASE("a TensorArray written in a while loop and stacked after it") {
  Scope root = Scope::NewRootScope();
  Output h0 = Ph(root, "h0", DT_DOUBLE), w = Ph(root, "w", DT_DOUBLE);
  Output stacked = TensorArrayLoop(root, h0, w);
  RequireGradient(root, {h0, w},
                  {Rand(DT_DOUBLE, TensorShape({2}), 6),
                   Rand(DT_DOUBLE, TensorShape({2}), 7)},
                  {stacked});
}

TEST_CASE("a TensorArray loop's gradients equal TensorFlow's tf.gradients") {
  // tests/golden/gen_builder_grads.py, WHILE_CASES["while_tensor_array"]:
  // the same loop as tf.compat.v1.while_loop over a tf.TensorArray.
  const std::string dir =
      DFX_TEST_DATA_DIR "/../builder/data/while_grads/while_tensor_array/";
  auto load = [&dir](const std::string& file) {
    absl::StatusOr<Tensor> t = testing::ReadNpy(dir + file + ".npy");
    REQUIRE_OK(t);
    return *t;
  };
  Scope root = Scope::NewRootScope();
  Output h0 = ops::Const(root.WithOpName("h0"), load("x0"));
  Output w = ops::Const(root.WithOpName("w"), load("x1"));
  Output stacked = TensorArrayLoop(root, h0, w);
  Output dy = ops::Const(root.WithOpName("dy"), load("dy0"));
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {stacked}, {h0, w}, {dy}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  for (int i = 0; i < 2; ++i) {
    const Tensor want = load("grad_x" + std::to_string(i));
    const Tensor& got = (*out)[i];
    REQUIRE(got.shape() == want.shape());
    for (int64_t e = 0; e < want.NumElements(); ++e) {
      const double g = testing::GetAsDouble(got, e);
      const double v = testing::GetAsDouble(want, e);
      INFO("x" << i << " element " << e << ": dfx " << g << ", TensorFlow "
                << v);
      CHECK(std::fabs(g - v) <= 1e-5 * (1 + std::fabs(v)));
    }
  }
}

Output IntConst(const Scope& s, std::vector<int32_t> v) {
  return ops::Const(s, v);
}

Output ListOut(const std::string& name) {
  return Output(name, 0, DT_VARIANT);
}
Output GetItem(const Scope& s, const Output& list, int index) {
  return Output(Node(s, "TensorListGetItem",
                     {list, ops::Const(s, index), IntConst(s, {2})},
                     {{"element_dtype", TypeValue(DT_DOUBLE)}}),
                0, DT_DOUBLE);
}
Output SetItem(const Scope& s, const Output& list, int index,
               const Output& item) {
  return ListOut(Node(s, "TensorListSetItem",
                      {list, ops::Const(s, index), item},
                      {{"element_dtype", TypeValue(DT_DOUBLE)}}));
}
Output StackList(const Scope& s, const Output& list) {
  return Output(Node(s, "TensorListStack", {list, IntConst(s, {2})},
                     {{"element_dtype", TypeValue(DT_DOUBLE)}}),
                0, DT_DOUBLE);
}
Output FromTensor(const Scope& s, const Output& t) {
  return ListOut(Node(s, "TensorListFromTensor", {t, IntConst(s, {2})},
                      {{"element_dtype", TypeValue(DT_DOUBLE)},
                       {"shape_type", TypeValue(DT_INT32)}}));
}

TEST_CASE("TensorList item, stack and from-tensor gradients") {
  Scope root = Scope::NewRootScope();
  SECTION("two items of a list made from a tensor") {
    Output x = Ph(root, "x", DT_DOUBLE);
    Output list = FromTensor(root, x);
    Output a = GetItem(root, list, 1), b = GetItem(root, list, 2);
    Output y = ops::AddV2(root, ops::Mul(root, a, a), ops::Sin(root, b));
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, TensorShape({3, 2}), 8)},
                    {y});
  }
  SECTION("items set into a reserved list, then stacked") {
    Output x0 = Ph(root, "x0", DT_DOUBLE), x1 = Ph(root, "x1", DT_DOUBLE);
    Output list = ListOut(Node(
        root, "TensorListReserve", {IntConst(root, {2}), ops::Const(root, 3)},
        {{"element_dtype", TypeValue(DT_DOUBLE)},
         {"shape_type", TypeValue(DT_INT32)}}));
    list = SetItem(root, list, 0, x0);
    list = SetItem(root, list, 1, ops::Mul(root, x1, x0));
    list = SetItem(root, list, 2, x1);
    Output st = StackList(root, list);
    Output y = ops::Mul(root, st, ops::Sin(root, st));
    RequireGradient(root, {x0, x1},
                    {Rand(DT_DOUBLE, TensorShape({2}), 9),
                     Rand(DT_DOUBLE, TensorShape({2}), 10)},
                    {y});
  }
  SECTION("an item overwritten: the old value gets no gradient there") {
    Output x = Ph(root, "x", DT_DOUBLE), z = Ph(root, "z", DT_DOUBLE);
    Output st = StackList(root, SetItem(root, FromTensor(root, x), 1, z));
    Output y = ops::Mul(root, st, st);
    RequireGradient(root, {x, z},
                    {Rand(DT_DOUBLE, TensorShape({3, 2}), 11),
                     Rand(DT_DOUBLE, TensorShape({2}), 12)},
                    {y});
  }
}

}  // namespace
}  // namespace dfx

// Single-op gradients against TensorFlow's tf.gradients: for each case of
// tests/golden/gen_builder_grads.py (OP_CASES), the same op built with the
// builder on the same inputs, its gradients added with AddSymbolicGradients
// seeded with the same upstream gradient, compared at 1e-5 (relative).
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/gradient_checker.h"
#include "tests/builder/npy.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

const std::string kDataDir = DFX_TEST_DATA_DIR "/../builder/data/op_grads/";

Tensor Load(const std::string& name, const std::string& file) {
  absl::StatusOr<Tensor> t =
      testing::ReadNpy(kDataDir + name + "/" + file + ".npy");
  REQUIRE_OK(t);
  return *t;
}

using OpFn = std::function<Output(const Scope&, const std::vector<Output>&)>;

struct OpCase {
  const char* name;
  int num_inputs;
  OpFn fn;
};

ops::PoolAttrs Pool(int64_t k, const std::string& padding) {
  ops::PoolAttrs attrs;
  attrs.ksize = {1, k, k, 1};
  attrs.strides = {1, 2, 2, 1};
  attrs.padding = padding;
  return attrs;
}

// MaxPoolGradGrad (no builder wrapper).
Output MaxPoolGradGrad(const Scope& s, const Output& x, const Output& y,
                       const Output& grad, const ops::PoolAttrs& attrs) {
  NodeDef node;
  node.set_name(s.GetUniqueNameForOp("MaxPoolGradGrad"));
  node.set_op("MaxPoolGradGrad");
  for (const Output& in : {x, y, grad}) node.add_input(in.ToString());
  auto& a = *node.mutable_attr();
  for (int64_t v : attrs.ksize) a["ksize"].mutable_list()->add_i(v);
  for (int64_t v : attrs.strides) a["strides"].mutable_list()->add_i(v);
  a["padding"].set_s(attrs.padding);
  a["T"].set_type(x.dtype());
  const std::string name = node.name();
  REQUIRE_OK(s.AddNode(std::move(node)));
  return Output(name, 0, x.dtype());
}

// A unary op of x's type that has no builder wrapper (Asinh, ...).
OpFn UnaryOp(const char* op) {
  return [op](const Scope& s, const std::vector<Output>& x) {
    NodeDef node;
    node.set_name(s.GetUniqueNameForOp(op));
    node.set_op(op);
    node.add_input(x[0].ToString());
    (*node.mutable_attr())["T"].set_type(x[0].dtype());
    const std::string name = node.name();
    REQUIRE_OK(s.AddNode(std::move(node)));
    return Output(name, 0, x[0].dtype());
  };
}

// Keep in step with OP_CASES in tests/golden/gen_builder_grads.py.
std::vector<OpCase> Cases() {
  auto einsum = [](const char* equation) {
    return [equation](const Scope& s, const std::vector<Output>& x) {
      return ops::Einsum(s, x, equation);
    };
  };
  ops::Conv2DAttrs conv;
  conv.strides = {1, 2, 2, 1};
  conv.padding = "SAME";
  return {
      {"einsum_matmul", 2, einsum("ij,jk->ik")},
      {"einsum_batch_broadcast", 2, einsum("...ij,...jk->...ik")},
      {"einsum_summed_label", 2, einsum("ij,jk->i")},
      {"einsum_transpose", 1, einsum("ij->ji")},
      {"cumsum_exclusive_reverse", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::Cumsum(s, x[0], ops::Const(s, 1),
                            {.exclusive = true, .reverse = true});
       }},
      {"cumprod_exclusive", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::Cumprod(s, x[0], ops::Const(s, 0), {.exclusive = true});
       }},
      {"prod_axes_0_2", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::Prod(s, x[0], ops::Const(s, {0, 2}));
       }},
      {"euclidean_norm_axis_1", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::EuclideanNorm(s, x[0], ops::Const(s, {1}), true);
       }},
      {"top_k", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::TopKV2(s, x[0], ops::Const(s, 2)).values;
       }},
      {"depthwise_conv2d", 2,
       [conv](const Scope& s, const std::vector<Output>& x) {
         return ops::DepthwiseConv2dNative(s, x[0], x[1], conv);
       }},
      {"conv2d_backprop_input", 2,
       [conv](const Scope& s, const std::vector<Output>& x) {
         return ops::Conv2DBackpropInput(s, ops::Const(s, {1, 5, 5, 2}), x[0],
                                         x[1], conv);
       }},
      {"mirror_pad_reflect", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::MirrorPad(s, x[0], ops::Const(s, {{1, 2}, {2, 1}}),
                               "REFLECT");
       }},
      {"segment_mean", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::SegmentMean(s, x[0], ops::Const(s, {0, 0, 1, 3, 3}));
       }},
      {"unsorted_segment_max", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::UnsortedSegmentMax(
             s, x[0], ops::Const(s, {2, 0, -1, 2, 0}), ops::Const(s, 4));
       }},
      {"unsorted_segment_prod", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::UnsortedSegmentProd(
             s, x[0], ops::Const(s, {2, 0, -1, 2, 0}), ops::Const(s, 4));
       }},
      {"gather_nd", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::GatherNd(s, x[0],
                              ops::Const(s, {{0, 1}, {2, 3}, {0, 1}}));
       }},
      {"tensor_scatter_update", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::TensorScatterUpdate(
             s, x[0], ops::Const(s, {{0, 1}, {2, 0}}), x[1]);
       }},
      {"reverse_v2", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::ReverseV2(s, x[0], ops::Const(s, {0, -1}));
       }},
      {"atan2", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::Atan2(s, x[0], x[1]);
       }},
      {"xlogy", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::Xlogy(s, x[0], x[1]);
       }},
      {"erf", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::Erf(s, x[0]);
       }},
      {"clip_by_value", 1,
       [](const Scope& s, const std::vector<Output>& x) {
         return ops::ClipByValue(s, x[0], ops::Const(s, -0.4f),
                                 ops::Const(s, 0.5f));
       }},
      {"max_pool_grad", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         const ops::PoolAttrs p = Pool(2, "VALID");
         return ops::MaxPoolGrad(s, x[0], ops::MaxPool(s, x[0], p), x[1], p);
       }},
      {"max_pool_grad_grad", 2,
       [](const Scope& s, const std::vector<Output>& x) {
         const ops::PoolAttrs p = Pool(3, "SAME");
         return MaxPoolGradGrad(s, x[0], ops::MaxPool(s, x[0], p), x[1], p);
       }},
      {"asinh", 1, UnaryOp("Asinh")},
      {"acosh", 1, UnaryOp("Acosh")},
      {"atanh", 1, UnaryOp("Atanh")},
  };
}

TEST_CASE("single-op gradients equal TensorFlow's tf.gradients") {
  for (const OpCase& c : Cases()) {
    SECTION(c.name) {
      Scope root = Scope::NewRootScope();
      std::vector<Output> xs;
      for (int i = 0; i < c.num_inputs; ++i) {
        const std::string x = "x" + std::to_string(i);
        xs.push_back(ops::Const(root.WithOpName(x), Load(c.name, x)));
      }
      const Output y = c.fn(root, xs);
      const Output dy = ops::Const(root.WithOpName("dy"), Load(c.name, "dy"));
      std::vector<Output> grads;
      REQUIRE_OK(AddSymbolicGradients(root, {y}, xs, {dy}, &grads));
      auto out = testing::RunScope(root, {}, grads);
      REQUIRE_OK(out);
      for (int i = 0; i < c.num_inputs; ++i) {
        const Tensor want = Load(c.name, "grad_x" + std::to_string(i));
        const Tensor& got = (*out)[i];
        INFO("gradient of x" << i << ": dfx shape "
                             << got.shape().DebugString()
                             << ", TensorFlow shape "
                             << want.shape().DebugString());
        REQUIRE(got.shape() == want.shape());
        for (int64_t e = 0; e < want.NumElements(); ++e) {
          const double g = testing::GetAsDouble(got, e);
          const double w = testing::GetAsDouble(want, e);
          INFO("element " << e << ": dfx " << g << ", TensorFlow " << w);
          CHECK(std::fabs(g - w) <= 1e-5 * (1 + std::fabs(w)));
        }
      }
    }
  }
}

}  // namespace
}  // namespace dfx

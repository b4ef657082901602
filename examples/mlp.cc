// A dense layer with softmax, built with the C++ API and run on a local
// session: probs = softmax(relu(x * W + b)).
//
// Build: tools/build; run: build/bin/example_mlp
#include <cstdio>
#include <string>
#include <vector>

#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "runtime/session.h"

namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "example_mlp: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  using namespace dfx;  // NOLINT: an example reads better without prefixes

  // 1. Build the graph.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              PartialShape::Known({-1, 3}));
  Scope layer = root.NewSubScope("dense");
  Output w = ops::Const(layer.WithOpName("weights"),
                        {{0.5f, -1.0f}, {0.25f, 0.75f}, {-0.5f, 1.5f}});
  Output b = ops::Const(layer.WithOpName("bias"), {0.1f, -0.2f});
  Output logits = ops::BiasAdd(layer.WithOpName("logits"),
                               ops::MatMul(layer.WithOpName("matmul"), x, w),
                               b);
  Output probs = ops::Softmax(root.WithOpName("probs"),
                              ops::Relu(layer.WithOpName("relu"), logits));
  GraphDef graph;
  if (absl::Status s = root.ToGraphDef(&graph); !s.ok()) return Fail(s);

  // 2. Open a local session and give it the graph.
  auto session = Session::Create("local");
  if (!session.ok()) return Fail(session.status());
  if (absl::Status s = (*session)->Extend(graph); !s.ok()) return Fail(s);

  // 3. Run it on a batch of two rows.
  Tensor batch = Tensor::FromVector<float>({1, 2, 3, -1, 0.5, 2},
                                           TensorShape({2, 3}));
  std::vector<Tensor> outputs;
  if (absl::Status s =
          (*session)->Run({{"x", batch}}, {"probs", "dense/logits"}, {},
                          &outputs);
      !s.ok()) {
    return Fail(s);
  }
  std::printf("logits = %s\n", outputs[1].SummarizeValue(100).c_str());
  std::printf("probs  = %s\n", outputs[0].SummarizeValue(100).c_str());
  return (*session)->Close().ok() ? 0 : 1;
}

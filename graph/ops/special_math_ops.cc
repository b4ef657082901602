// Special functions: Lgamma, Digamma, Erfinv, Ndtri (unary), Igamma,
// Igammac, Zeta, Polygamma, IgammaGradA, RandomGammaGrad (broadcasting
// binary) and Betainc (scalars
// broadcast against one shared shape). Signatures follow TensorFlow 2.21's
// math_ops.cc.
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kFloatTypes[] = "T: {bfloat16, half, float, double}";

// a, b and x are each a scalar or of one shared shape.
absl::Status BetaincShape(InferenceContext* c) {
  PartialShape out = PartialShape::Scalar();
  bool unknown = false;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.RankKnown()) {
      unknown = true;
      continue;
    }
    if (s.rank() == 0) continue;
    if (out.rank() == 0) {
      out = s;
      continue;
    }
    PartialShape merged;
    DFX_RETURN_IF_ERROR(c->Merge(out, s, &merged));
    out = std::move(merged);
  }
  c->set_output(0, unknown ? PartialShape::Unknown() : out);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSpecialMathOps(OpRegistry* r) {
  for (const char* name : {"Lgamma", "Digamma", "Erfinv", "Ndtri"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("x: T")
                                        .Output("y: T")
                                        .Attr(kFloatTypes)
                                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  // The gradients of Igamma with respect to a, and of a gamma sample with
  // respect to its alpha.
  for (const auto& [name, a, x, z] :
       {std::tuple{"IgammaGradA", "a: T", "x: T", "z: T"},
        std::tuple{"RandomGammaGrad", "alpha: T", "sample: T", "output: T"}}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input(a)
                        .Input(x)
                        .Output(z)
                        .Attr("T: {float, double}")
                        .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  }
  for (const char* name : {"Igamma", "Igammac"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("a: T")
                        .Input("x: T")
                        .Output("z: T")
                        .Attr(kFloatTypes)
                        .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Zeta")
                      .Input("x: T")
                      .Input("q: T")
                      .Output("z: T")
                      .Attr("T: {float, double}")
                      .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Polygamma")
                      .Input("a: T")
                      .Input("x: T")
                      .Output("z: T")
                      .Attr("T: {float, double}")
                      .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Betainc")
                                      .Input("a: T")
                                      .Input("b: T")
                                      .Input("x: T")
                                      .Output("z: T")
                                      .Attr("T: {float, double}")
                                      .SetShapeFn(BetaincShape)));
  return absl::OkStatus();
}

}  // namespace dfx

// The TF1 control-flow primitives (Yu et al., EuroSys 2018): Switch and
// Merge route a value by a predicate and join the branches, Enter/Exit move
// a value into and out of a loop frame, NextIteration carries it to the next
// iteration, LoopCond marks a loop's predicate. The executor gives them their
// meaning (runtime/executor.cc); their kernels only forward values.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Output `i` has the shape of input 0, for every output.
absl::Status ForwardShapeToAll(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return absl::OkStatus();
}

// Merge: the shape every input agrees on, else unknown; a scalar index.
absl::Status MergeShape(InferenceContext* c) {
  PartialShape out = c->input(0);
  for (int i = 1; i < c->num_inputs() && !out.unknown_rank; ++i) {
    const PartialShape& in = c->input(i);
    if (in.unknown_rank || in.dims.size() != out.dims.size()) {
      out = PartialShape::Unknown();
      break;
    }
    for (size_t d = 0; d < out.dims.size(); ++d) {
      if (out.dims[d] != in.dims[d]) out.dims[d] = -1;
    }
  }
  c->set_output(0, std::move(out));
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterControlFlowOps(OpRegistry* r) {
  // Switch: `data` goes to output_true when `pred` holds, to output_false
  // otherwise; the other output is dead.
  for (const char* name : {"Switch", "RefSwitch"}) {
    const bool ref = name[0] == 'R';
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input(ref ? "data: Ref(T)" : "data: T")
            .Input("pred: bool")
            .Output(ref ? "output_false: Ref(T)" : "output_false: T")
            .Output(ref ? "output_true: Ref(T)" : "output_true: T")
            .Attr("T: type")
            .SetAllowsUninitializedInput()
            .SetShapeFn(ForwardShapeToAll)));
  }
  // _SwitchN: `data` goes to output `output_index` (the last output when
  // the index is out of range); the other outputs are dead. Lowered Case.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("_SwitchN")
                                      .Input("data: T")
                                      .Input("output_index: int32")
                                      .Output("outputs: num_outs * T")
                                      .Attr("num_outs: int >= 1")
                                      .Attr("T: type")
                                      .SetShapeFn(ForwardShapeToAll)));
  // Merge: forwards the first of its inputs that is alive, with its index.
  for (const char* name : {"Merge", "RefMerge"}) {
    const bool ref = name[0] == 'R';
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input(ref ? "inputs: Ref(N * T)" : "inputs: N * T")
            .Output(ref ? "output: Ref(T)" : "output: T")
            .Output("value_index: int32")
            .Attr("T: type")
            .Attr("N: int >= 1")
            .SetAllowsUninitializedInput()
            .SetShapeFn(MergeShape)));
  }
  // Enter: `data` enters the child frame `frame_name`; a constant Enter is
  // seen by every iteration.
  for (const char* name : {"Enter", "RefEnter"}) {
    const bool ref = name[0] == 'R';
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input(ref ? "data: Ref(T)" : "data: T")
            .Output(ref ? "output: Ref(T)" : "output: T")
            .Attr("T: type")
            .Attr("frame_name: string")
            .Attr("is_constant: bool = false")
            .Attr("parallel_iterations: int = 10")
            .SetAllowsUninitializedInput()
            .SetShapeFn(shape_fn::UnchangedShape)));
  }
  for (const char* name : {"Exit", "RefExit", "NextIteration",
                           "RefNextIteration"}) {
    const bool ref = name[0] == 'R';
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input(ref ? "data: Ref(T)" : "data: T")
            .Output(ref ? "output: Ref(T)" : "output: T")
            .Attr("T: type")
            .SetAllowsUninitializedInput()
            .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LoopCond")
                                      .Input("input: bool")
                                      .Output("output: bool")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  // Runs when its control inputs are done, dead or alive.
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ControlTrigger").SetShapeFn(shape_fn::Unknown)));
  // Assert: fails the step with InvalidArgument, showing `data`, unless
  // `condition` holds (tf.debugging.Assert; guards in loops and conds).
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Assert")
                                      .Input("condition: bool")
                                      .Input("data: T")
                                      .Attr("T: list(type)")
                                      .Attr("summarize: int = 3")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx

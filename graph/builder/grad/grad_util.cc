#include "graph/builder/grad/grad_util.h"

#include <cstring>
#include <string>

#include "graph/builder/ops.h"
#include "graph/node_def_util.h"
#include "proto/tensor.pb.h"

namespace dfx::grad {

Output ScalarOfType(const Scope& scope, DataType dtype, double value) {
  switch (BaseType(dtype)) {
    case DT_FLOAT:
      return ops::Const(scope, static_cast<float>(value));
    case DT_DOUBLE:
      return ops::Const(scope, value);
    default:
      return ops::Cast(scope, ops::Const(scope, static_cast<float>(value)),
                       BaseType(dtype));
  }
}

Output GradOrZeros(const Scope& scope, const GradOp& op,
                   absl::Span<const Output> dy, int i) {
  return dy[i].valid() ? dy[i] : ops::ZerosLike(scope, op.output(i));
}

void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, const Output& gx,
                              const Output& gy, std::vector<Output>* dx) {
  const Output sx = ops::Shape(scope, x);
  const Output sy = ops::Shape(scope, y);
  const ops::BroadcastGradientArgsOutputs r =
      ops::BroadcastGradientArgs(scope, sx, sy);
  dx->push_back(gx.valid() ? ops::Reshape(scope, ops::Sum(scope, gx, r.r0), sx)
                           : NoGradient());
  dx->push_back(gy.valid() ? ops::Reshape(scope, ops::Sum(scope, gy, r.r1), sy)
                           : NoGradient());
}

Output ToInt32(const Scope& scope, const Output& x) {
  return BaseType(x.dtype()) == DT_INT32 ? x : ops::Cast(scope, x, DT_INT32);
}

Output ReducedShape(const Scope& scope, const Output& input_shape,
                    const Output& axes) {
  // DynamicStitch([0..rank), axes mod rank) of (input_shape, ones): the
  // reduced positions, written last, become 1.
  const Output rank = ops::Size(scope, input_shape);
  const Output axes_mod =
      ops::Reshape(scope, ops::FloorMod(scope, ToInt32(scope, axes), rank),
                   ops::Const(scope, {-1}));
  const Output all =
      ops::Range(scope, ops::Const(scope, 0), rank, ops::Const(scope, 1));
  const Output ones =
      ops::Fill(scope, ops::Shape(scope, axes_mod), ops::Const(scope, 1));
  return ops::DynamicStitch(scope, {all, axes_mod}, {input_shape, ones});
}

bool ConstInts(const NodeDef& node, std::vector<int64_t>* values) {
  if (node.op() != "Const") return false;
  TensorProto proto;
  if (!GetNodeAttr(node, "value", &proto).ok()) return false;
  if (proto.tensor_shape().dim_size() > 1) return false;
  const int64_t n = proto.tensor_shape().dim_size() == 0
                        ? 1
                        : proto.tensor_shape().dim(0).size();
  values->clear();
  if (proto.dtype() == DT_INT32) {
    if (!proto.tensor_content().empty()) {
      if (static_cast<int64_t>(proto.tensor_content().size()) != n * 4) {
        return false;
      }
      for (int64_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, proto.tensor_content().data() + 4 * i, 4);
        values->push_back(v);
      }
      return true;
    }
    if (proto.int_val_size() == 0) return n == 0;
    for (int64_t i = 0; i < n; ++i) {
      values->push_back(proto.int_val(
          static_cast<int>(std::min<int64_t>(i, proto.int_val_size() - 1))));
    }
    return true;
  }
  if (proto.dtype() == DT_INT64) {
    if (!proto.tensor_content().empty()) {
      if (static_cast<int64_t>(proto.tensor_content().size()) != n * 8) {
        return false;
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, proto.tensor_content().data() + 8 * i, 8);
        values->push_back(v);
      }
      return true;
    }
    if (proto.int64_val_size() == 0) return n == 0;
    for (int64_t i = 0; i < n; ++i) {
      values->push_back(proto.int64_val(
          static_cast<int>(std::min<int64_t>(i, proto.int64_val_size() - 1))));
    }
    return true;
  }
  return false;
}

absl::Status Attr(const GradOp& op, absl::string_view name, bool* value) {
  return GetNodeAttr(op.node(), name, value);
}
absl::Status Attr(const GradOp& op, absl::string_view name, float* value) {
  return GetNodeAttr(op.node(), name, value);
}
absl::Status Attr(const GradOp& op, absl::string_view name, int64_t* value) {
  return GetNodeAttr(op.node(), name, value);
}
absl::Status Attr(const GradOp& op, absl::string_view name,
                  std::string* value) {
  return GetNodeAttr(op.node(), name, value);
}
absl::Status Attr(const GradOp& op, absl::string_view name,
                  std::vector<int64_t>* value) {
  return GetNodeAttr(op.node(), name, value);
}
absl::Status Attr(const GradOp& op, absl::string_view name, DataType* value) {
  return GetNodeAttr(op.node(), name, value);
}

}  // namespace dfx::grad

#include "tests/kernels/kernel_test_util.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "google/protobuf/text_format.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"

namespace dfx::testing {

TestNodeBuilder::TestNodeBuilder(std::string name, std::string op,
                                 int num_inputs) {
  def_.set_name(std::move(name));
  def_.set_op(std::move(op));
  for (int i = 0; i < num_inputs; ++i) {
    def_.add_input("in" + std::to_string(i));
  }
}

TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name, DataType v) {
  (*def_.mutable_attr())[name].set_type(v);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name, bool v) {
  (*def_.mutable_attr())[name].set_b(v);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name, int64_t v) {
  (*def_.mutable_attr())[name].set_i(v);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name, float v) {
  (*def_.mutable_attr())[name].set_f(v);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name,
                                       const char* v) {
  (*def_.mutable_attr())[name].set_s(v);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name,
                                       const std::vector<int64_t>& v) {
  auto* list = (*def_.mutable_attr())[name].mutable_list();
  for (int64_t x : v) list->add_i(x);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name,
                                       const DataTypeVector& v) {
  auto* list = (*def_.mutable_attr())[name].mutable_list();
  for (DataType t : v) list->add_type(t);
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name,
                                       const Tensor& v) {
  v.AsProtoTensorContent((*def_.mutable_attr())[name].mutable_tensor());
  return *this;
}
TestNodeBuilder& TestNodeBuilder::Attr(const std::string& name,
                                       const TensorShapeProto& v) {
  *(*def_.mutable_attr())[name].mutable_shape() = v;
  return *this;
}

Device* TestCpuDevice() {
  static DeviceMgr* mgr = [] {
    CpuDeviceOptions options;
    options.intra_op_threads = 2;
    return DeviceMgr::NewCpu(options).value().release();
  }();
  return mgr->ListDevices()[0];
}

absl::StatusOr<std::vector<Tensor>> RunKernel(
    const NodeDef& node_in, const std::vector<Tensor>& inputs) {
  DFX_ASSIGN_OR_RETURN(const OpRegistrationData* op,
                       OpRegistry::Global()->LookUpOrError(node_in.op()));
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  DFX_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      StandardKernelRegistry()->CreateKernel(node, op->op_def,
                                             TestCpuDevice()));
  if (static_cast<int>(inputs.size()) != kernel->num_inputs()) {
    return absl::InvalidArgumentError("wrong number of inputs for the test");
  }
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = TestCpuDevice();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  if (AsyncOpKernel* async = kernel->AsAsync()) {
    absl::Notification done;
    async->ComputeAsync(&ctx, [&done] { done.Notify(); });
    if (!done.WaitForNotificationWithTimeout(absl::Seconds(30))) {
      return absl::DeadlineExceededError("async kernel did not finish");
    }
  } else {
    kernel->Compute(&ctx);
  }
  DFX_RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> outputs(ctx.mutable_outputs()->begin(),
                              ctx.mutable_outputs()->end());
  return outputs;
}

absl::StatusOr<std::string> DiffOpDefsWithTensorFlow(
    const std::string& pbtxt_path, int* count) {
  std::ifstream in(pbtxt_path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", pbtxt_path));
  std::stringstream text;
  text << in.rdbuf();
  OpList tf_ops;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &tf_ops)) {
    return absl::InvalidArgumentError(
        absl::StrCat(pbtxt_path, " is not a text OpList"));
  }
  *count = tf_ops.op_size();
  std::string diff;
  for (const OpDef& want : tf_ops.op()) {
    const OpRegistrationData* got = OpRegistry::Global()->LookUp(want.name());
    if (got == nullptr) {
      absl::StrAppend(&diff, want.name(), ": not registered\n");
      continue;
    }
    std::string want_bytes, got_bytes;
    want.SerializeToString(&want_bytes);
    got->op_def.SerializeToString(&got_bytes);
    if (got_bytes != want_bytes) {
      absl::StrAppend(&diff, want.name(), " differs.\ndfx:\n",
                      got->op_def.DebugString(), "TensorFlow:\n",
                      want.DebugString());
    }
  }
  return diff;
}

}  // namespace dfx::testing

#include "tests/kernels/kernel_test_util.h"

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
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

namespace {

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The types the file leaves out (golden_lib.write_op_defs): quantized,
// resource, variant, and the float8, int4 and int2 types.
bool Listed(DataType t) {
  if (t >= DT_FLOAT8_E5M2 && t <= DT_UINT2) return false;
  switch (t) {
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32:
    case DT_RESOURCE:
    case DT_VARIANT:
      return false;
    default:
      return true;
  }
}

// What dfx's CPU kernels of `op` serve for `attr`, in the file's words:
// sorted DataType numbers, or "*".
std::string DfxCpuTypes(const OpDef& op, const std::string& attr) {
  const OpDef::AttrDef* def = nullptr;
  for (const OpDef::AttrDef& a : op.attr()) {
    if (a.name() == attr) def = &a;
  }
  std::set<int> types;
  bool unconstrained = false;
  for (const KernelDefBuilder& k : StandardKernelRegistry()->KernelDefsOf(
           op.name())) {
    if (k.device_type() != "CPU") continue;
    bool constrained = false;
    for (const auto& c : k.constraints()) {
      if (c.attr != attr) continue;
      constrained = true;
      for (DataType t : c.allowed) types.insert(static_cast<int>(t));
    }
    unconstrained |= !constrained;
  }
  const bool limited =
      def != nullptr && def->allowed_values().list().type_size() > 0;
  if (unconstrained) {
    if (!limited) return "*";
    for (int t : def->allowed_values().list().type()) types.insert(t);
  }
  std::vector<int> out;
  for (int t : types) {
    const bool allowed =
        !limited || absl::c_linear_search(def->allowed_values().list().type(),
                                          t);
    if (allowed && Listed(static_cast<DataType>(t))) out.push_back(t);
  }
  return absl::StrJoin(out, " ");
}

}  // namespace

absl::StatusOr<std::string> DiffOpDefsWithTensorFlow(
    const std::string& pbtxt_path, int* count) {
  absl::StatusOr<std::string> text = ReadTextFile(pbtxt_path);
  if (!text.ok()) return text.status();
  OpList tf_ops;
  if (!google::protobuf::TextFormat::ParseFromString(*text, &tf_ops)) {
    return absl::InvalidArgumentError(
        absl::StrCat(pbtxt_path, " is not a text OpList"));
  }
  *count = tf_ops.op_size();
  std::string diff;
  for (OpDef& want : *tf_ops.mutable_op()) {
    // dfx keeps no documentation strings.
    want.clear_summary();
    want.clear_description();
    for (auto& a : *want.mutable_input_arg()) a.clear_description();
    for (auto& a : *want.mutable_output_arg()) a.clear_description();
    for (auto& a : *want.mutable_attr()) a.clear_description();
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

absl::StatusOr<std::string> DiffCpuKernelTypesWithTensorFlow(
    const std::string& path, int* count) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  *count = 0;
  std::string diff;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    const std::string& name = words[0];
    ++*count;
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(name);
    if (op == nullptr) {
      absl::StrAppend(&diff, name, ": not registered\n");
      continue;
    }
    if (words.size() == 1) {
      bool any = false;
      for (const KernelDefBuilder& k :
           StandardKernelRegistry()->KernelDefsOf(name)) {
        any |= k.device_type() == "CPU";
      }
      if (!any) absl::StrAppend(&diff, name, ": no CPU kernel\n");
      continue;
    }
    std::vector<int> want_types;
    bool any_type = false;
    for (size_t i = 2; i < words.size(); ++i) {
      int t = 0;
      if (words[i] == "*") {
        any_type = true;
      } else if (absl::SimpleAtoi(words[i], &t)) {
        want_types.push_back(t);
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": bad type '", words[i], "' for ", name));
      }
    }
    absl::c_sort(want_types);
    const std::string want =
        any_type ? "*" : absl::StrJoin(want_types, " ");
    const std::string got = DfxCpuTypes(op->op_def, words[1]);
    if (got != want) {
      absl::StrAppend(&diff, name, " ", words[1], ": dfx serves [", got,
                      "], TensorFlow [", want, "]\n");
    }
  }
  return diff;
}

void CheckSignaturesWithTensorFlow(const std::string& family, int num_ops) {
  const std::string dir =
      absl::StrCat(DFX_TEST_DATA_DIR, "/../golden/data/", family, "/");
  int count = 0;
  absl::StatusOr<std::string> diff =
      DiffOpDefsWithTensorFlow(dir + "tf_op_defs.pbtxt", &count);
  INFO(family);
  REQUIRE(diff.ok());
  CHECK(count == num_ops);
  CHECK(*diff == "");
  diff = DiffCpuKernelTypesWithTensorFlow(dir + "tf_cpu_kernels.txt", &count);
  REQUIRE(diff.ok());
  CHECK(count == num_ops);
  CHECK(*diff == "");
}

}  // namespace dfx::testing

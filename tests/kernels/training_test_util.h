// Helpers for the optimizer kernel tests (training_*_test.cc): reference
// variables, resource variables in the test device's ResourceMgr, and a
// kernel runner that feeds reference inputs.
#ifndef DFX_TESTS_KERNELS_TRAINING_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_TRAINING_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"

namespace dfx::testing {

// A reference variable as VariableV2 holds it: a tensor and its mutex.
struct RefVariable {
  explicit RefVariable(Tensor value = Tensor()) : tensor(std::move(value)) {}
  Tensor tensor;
  absl::Mutex mu;
  TensorRef ref() { return TensorRef{&tensor, &mu}; }
};

// What one kernel call gave.
struct TrainingRun {
  absl::Status status;
  std::vector<Tensor> outputs;
  std::vector<TensorRef> output_refs;  // empty unless an output is a ref
};

// Builds the kernel of `node` (default attrs added) on `device` and runs it
// once. Input i is refs[i] when the op's input i is of a reference type
// (refs is then num_inputs long), else inputs[i].
inline TrainingRun RunTraining(const NodeDef& node_in,
                               const std::vector<Tensor>& inputs,
                               const std::vector<TensorRef>& refs = {},
                               Device* device = TestCpuDevice()) {
  TrainingRun run;
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) {
    run.status = absl::NotFoundError(node_in.op());
    return run;
  }
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      StandardKernelRegistry()->CreateKernel(node, op->op_def, device);
  if (!kernel.ok()) {
    run.status = kernel.status();
    return run;
  }
  OpKernelContext::Params params;
  params.op_kernel = kernel->get();
  params.device = device;
  params.inputs = inputs;
  params.input_refs = refs;
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  run.status = ctx.status();
  run.outputs.assign(ctx.mutable_outputs()->begin(),
                     ctx.mutable_outputs()->end());
  run.output_refs.assign(ctx.output_refs().begin(), ctx.output_refs().end());
  return run;
}

// A scalar DT_RESOURCE tensor naming variable `name` on `device`.
inline Tensor VariableHandle(const std::string& name,
                             Device* device = TestCpuDevice()) {
  Tensor handle(DT_RESOURCE, TensorShape());
  ResourceHandle& h = handle.scalar<ResourceHandle>();
  h.set_device(device->name());
  h.set_container(device->resource_manager()->default_container());
  h.set_name(name);
  h.set_maybe_type_name(Var::kTypeName);
  return handle;
}

// Creates (or replaces) resource variable `name` holding a copy of `value`;
// returns its handle.
inline Tensor MakeVariable(const std::string& name, const Tensor& value,
                           Device* device = TestCpuDevice()) {
  ResourceMgr* rm = device->resource_manager();
  (void)rm->Delete(rm->default_container(), name, Var::kTypeName);
  auto var = std::make_shared<Var>(value.dtype());
  {
    absl::MutexLock lock(var->mu());
    Tensor copy(value.dtype(), value.shape());
    if (value.TotalBytes() > 0) {
      std::memcpy(copy.raw_data(), value.raw_data(), value.TotalBytes());
    }
    *var->tensor() = std::move(copy);
    var->set_initialized();
  }
  DFX_CHECK_OK(rm->Create(rm->default_container(), name, var));
  return VariableHandle(name, device);
}

// The value of resource variable `name` (a snapshot).
inline Tensor ReadVariable(const std::string& name,
                           Device* device = TestCpuDevice()) {
  ResourceMgr* rm = device->resource_manager();
  std::shared_ptr<Var> var =
      rm->Lookup<Var>(rm->default_container(), name).value();
  absl::ReaderMutexLock lock(var->mu());
  return *var->tensor();
}

// --- A reference model of every optimizer, one element at a time, in
// double: TensorFlow's update rules written out plainly.

using Hyper = std::map<std::string, double>;
using Attrs = std::map<std::string, bool>;

inline double Sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

// Updates one element: s holds var and the slots (in input order), g the
// gradient. `name` is the optimizer ("Adam"), without the form's prefix.
inline void ReferenceStep(const std::string& name, std::vector<double>& s,
                          double g, const Hyper& h, const Attrs& attrs) {
  auto attr = [&](const char* a, bool dflt) {
    auto it = attrs.find(a);
    return it == attrs.end() ? dflt : it->second;
  };
  auto p = [&](const char* k) { return h.at(k); };
  double& var = s[0];
  if (name == "GradientDescent") {
    var -= p("alpha") * g;
  } else if (name == "ProximalGradientDescent") {
    const double lr = p("alpha");
    const double prox = var - lr * g;
    var = (p("l1") > 0
               ? Sign(prox) * std::max(std::fabs(prox) - lr * p("l1"), 0.0)
               : prox) /
          (1 + lr * p("l2"));
  } else if (name == "Momentum") {
    double& a = s[1];
    a = a * p("momentum") + g;
    var -= attr("use_nesterov", false)
               ? g * p("lr") + a * p("momentum") * p("lr")
               : a * p("lr");
  } else if (name == "KerasMomentum") {
    double& a = s[1];
    a = a * p("momentum") - g * p("lr");
    var += attr("use_nesterov", false) ? a * p("momentum") - g * p("lr") : a;
  } else if (name == "Adam" || name == "AdamWithAmsgrad") {
    double& m = s[1];
    double& v = s[2];
    const double lr_t =
        p("lr") * std::sqrt(1 - p("beta2_power")) / (1 - p("beta1_power"));
    m += (g - m) * (1 - p("beta1"));
    v += (g * g - v) * (1 - p("beta2"));
    double denom = std::sqrt(v) + p("epsilon");
    if (name == "AdamWithAmsgrad") {
      s[3] = std::max(s[3], v);
      denom = std::sqrt(s[3]) + p("epsilon");
    }
    var -= attr("use_nesterov", false)
               ? lr_t * (g * (1 - p("beta1")) + p("beta1") * m) / denom
               : lr_t * m / denom;
  } else if (name == "AdaMax") {
    double& m = s[1];
    double& v = s[2];
    m += (g - m) * (1 - p("beta1"));
    v = std::max(p("beta2") * v, std::fabs(g));
    var -= p("lr") / (1 - p("beta1_power")) * (m / (v + p("epsilon")));
  } else if (name == "Adagrad" || name == "AdagradV2") {
    double& a = s[1];
    if (attr("update_slots", true)) a += g * g;
    var -= name == "Adagrad" ? p("lr") * g / std::sqrt(a)
                             : p("lr") * g / (std::sqrt(a) + p("epsilon"));
  } else if (name == "ProximalAdagrad") {
    double& a = s[1];
    a += g * g;
    const double rate = p("lr") / std::sqrt(a);
    const double prox = var - rate * g;
    var = (p("l1") > 0
               ? Sign(prox) * std::max(std::fabs(prox) - rate * p("l1"), 0.0)
               : prox) /
          (1 + rate * p("l2"));
  } else if (name == "AdagradDA") {
    double& ga = s[1];
    double& gg = s[2];
    ga += g;
    gg += g * g;
    const double step = p("global_step");
    const double denom = p("l2") * step * p("lr") + std::sqrt(gg);
    var = p("l1") > 0
              ? -Sign(ga) * p("lr") *
                    std::max(std::fabs(ga) - step * p("l1"), 0.0) / denom
              : -p("lr") * ga / denom;
  } else if (name == "Adadelta") {
    double& a = s[1];
    double& au = s[2];
    const double rho = p("rho");
    const double eps = p("epsilon");
    a = a * rho + g * g * (1 - rho);
    const double update = std::sqrt(au + eps) / std::sqrt(a + eps) * g;
    var -= p("lr") * update;
    au = au * rho + update * update * (1 - rho);
  } else if (name == "RMSProp") {
    double& ms = s[1];
    double& mom = s[2];
    ms += (g * g - ms) * (1 - p("rho"));
    mom = mom * p("momentum") + p("lr") * g / std::sqrt(ms + p("epsilon"));
    var -= mom;
  } else if (name == "CenteredRMSProp") {
    double& mg = s[1];
    double& ms = s[2];
    double& mom = s[3];
    ms += (g * g - ms) * (1 - p("rho"));
    mg += (g - mg) * (1 - p("rho"));
    mom = mom * p("momentum") +
          p("lr") * g / std::sqrt(ms - mg * mg + p("epsilon"));
    var -= mom;
  } else if (name == "Ftrl" || name == "FtrlV2") {
    double& a = s[1];
    double& linear = s[2];
    const double lr = p("lr");
    const double power = -p("lr_power");
    const bool multiply = attr("multiply_linear_by_lr", false);
    const double shrunk =
        name == "FtrlV2" ? g + 2 * p("l2_shrinkage") * var : g;
    const double na = a + g * g;
    const double sigma = std::pow(na, power) - std::pow(a, power);
    const double l1 = multiply ? p("l1") * lr : p("l1");
    if (multiply) {
      linear += shrunk * lr - sigma * var;
      var = std::fabs(linear) > l1
                ? (Sign(linear) * l1 - linear) /
                      (std::pow(na, power) + 2 * p("l2") * lr)
                : 0.0;
    } else {
      linear += shrunk - sigma / lr * var;
      var = std::fabs(linear) > l1
                ? (Sign(linear) * l1 - linear) /
                      (std::pow(na, power) / lr + 2 * p("l2"))
                : 0.0;
    }
    a = na;
  } else if (name == "AddSign" || name == "PowerSign") {
    double& m = s[1];
    m = m * p("beta") + g * (1 - p("beta"));
    const double agree = Sign(g) * Sign(m);
    var -= name == "AddSign"
               ? p("lr") * (p("alpha") + p("sign_decay") * agree) * g
               : p("lr") * std::exp(p("logbase") * p("sign_decay") * agree) * g;
  } else {
    DFX_CHECK_MSG(false, "no reference for " + name);
  }
}

// Tensors of a float type from doubles, and back.
inline Tensor FloatTensor(DataType dtype, const std::vector<int64_t>& shape,
                          const std::vector<double>& values) {
  Tensor t(dtype, TensorShape::Build(shape).value());
  DFX_CHECK(static_cast<int64_t>(values.size()) == t.NumElements());
  for (size_t i = 0; i < values.size(); ++i) {
    switch (dtype) {
      case DT_FLOAT:
        t.data<float>()[i] = static_cast<float>(values[i]);
        break;
      case DT_DOUBLE:
        t.data<double>()[i] = values[i];
        break;
      case DT_HALF:
        t.data<Eigen::half>()[i] = Eigen::half(static_cast<float>(values[i]));
        break;
      case DT_BFLOAT16:
        t.data<Eigen::bfloat16>()[i] =
            Eigen::bfloat16(static_cast<float>(values[i]));
        break;
      default:
        DFX_CHECK(false);
    }
  }
  return t;
}

inline std::vector<double> Doubles(const Tensor& t) {
  if (!t.IsInitialized()) return {};
  std::vector<double> out(t.NumElements());
  for (size_t i = 0; i < out.size(); ++i) {
    switch (t.dtype()) {
      case DT_FLOAT:
        out[i] = t.data<float>()[i];
        break;
      case DT_DOUBLE:
        out[i] = t.data<double>()[i];
        break;
      case DT_HALF:
        out[i] = static_cast<float>(t.data<Eigen::half>()[i]);
        break;
      case DT_BFLOAT16:
        out[i] = static_cast<float>(t.data<Eigen::bfloat16>()[i]);
        break;
      default:
        DFX_CHECK(false);
    }
  }
  return out;
}

// x as a `dtype` holds it.
inline double RoundScalar(DataType dtype, double x) {
  switch (dtype) {
    case DT_FLOAT:
      return static_cast<float>(x);
    case DT_HALF:
      return static_cast<float>(Eigen::half(static_cast<float>(x)));
    case DT_BFLOAT16:
      return static_cast<float>(Eigen::bfloat16(static_cast<float>(x)));
    default:
      return x;
  }
}

// One call of a training op through RunTraining. The variables (var, then
// the slots, in input order) are resource variables for Resource* ops and
// reference variables otherwise; every other input is taken by name: the
// gradient ("grad" or "delta"), "indices", "global_step" (int64) and the
// scalar hyper-parameters.
struct Update {
  std::string op;
  DataType dtype = DT_DOUBLE;
  std::vector<int64_t> shape;
  std::vector<std::vector<double>> vars;
  Hyper hyper;
  Attrs attrs;
  std::vector<int64_t> grad_shape;  // the var's shape when empty
  std::vector<double> grad;
  std::vector<int64_t> indices;
  DataType index_type = DT_INT32;
  // Replaces an input (by name) with a tensor of the test's choosing.
  std::map<std::string, Tensor> override_inputs;
};

struct UpdateResult {
  absl::Status status;
  // The variables after the call, in input order (an overridden resource
  // variable left out).
  std::vector<std::vector<double>> vars;
  bool forwarded_ref = false;  // ref forms: output 0 is var's reference
};

inline UpdateResult RunUpdate(const Update& u) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(u.op);
  DFX_CHECK_MSG(op != nullptr, u.op);
  const bool sparse = u.op.find("Sparse") != std::string::npos;
  TestNodeBuilder b("opt", u.op, op->op_def.input_arg_size());
  b.Attr("T", u.dtype);
  if (sparse) b.Attr("Tindices", u.index_type);
  for (const auto& [name, value] : u.attrs) b.Attr(name, value);

  std::vector<Tensor> inputs;
  std::vector<TensorRef> refs;
  std::vector<std::unique_ptr<RefVariable>> ref_vars;
  std::vector<std::string> resource_names;
  size_t next_var = 0;
  for (const auto& arg : op->op_def.input_arg()) {
    auto over = u.override_inputs.find(arg.name());
    if (arg.is_ref() || arg.type() == DT_RESOURCE) {
      const Tensor value = FloatTensor(u.dtype, u.shape, u.vars.at(next_var));
      ++next_var;
      if (arg.is_ref()) {
        ref_vars.push_back(std::make_unique<RefVariable>(value));
        if (over != u.override_inputs.end()) {
          ref_vars.back()->tensor = over->second;
        }
        refs.push_back(ref_vars.back()->ref());
        inputs.emplace_back();
      } else {
        const std::string name = "train_var_" + arg.name();
        if (over != u.override_inputs.end()) {
          inputs.push_back(over->second);
        } else {
          resource_names.push_back(name);
          inputs.push_back(MakeVariable(name, value));
        }
        refs.emplace_back();
      }
      continue;
    }
    refs.emplace_back();
    if (over != u.override_inputs.end()) {
      inputs.push_back(over->second);
    } else if (arg.name() == "grad" || arg.name() == "delta") {
      inputs.push_back(FloatTensor(
          u.dtype, u.grad_shape.empty() ? u.shape : u.grad_shape, u.grad));
    } else if (arg.name() == "indices") {
      if (u.index_type == DT_INT32) {
        std::vector<int32_t> idx(u.indices.begin(), u.indices.end());
        inputs.push_back(Tensor::FromVector<int32_t>(idx));
      } else {
        inputs.push_back(Tensor::FromVector<int64_t>(u.indices));
      }
    } else if (arg.name() == "global_step") {
      inputs.push_back(Tensor::Scalar<int64_t>(
          static_cast<int64_t>(u.hyper.at("global_step"))));
    } else {
      inputs.push_back(FloatTensor(u.dtype, {}, {u.hyper.at(arg.name())}));
    }
  }
  const bool has_refs = !ref_vars.empty();
  TrainingRun run = RunTraining(b.Build(), inputs,
                                has_refs ? refs : std::vector<TensorRef>{});
  UpdateResult result;
  result.status = run.status;
  for (const auto& v : ref_vars) result.vars.push_back(Doubles(v->tensor));
  for (const auto& name : resource_names) {
    result.vars.push_back(Doubles(ReadVariable(name)));
  }
  if (has_refs && run.status.ok() && !run.output_refs.empty()) {
    result.forwarded_ref = run.output_refs[0].tensor == &ref_vars[0]->tensor;
  }
  return result;
}

// What the reference model gives for `u` (dense: element by element;
// sparse: row indices[i] from gradient row i, in order).
inline std::vector<std::vector<double>> ReferenceUpdate(
    const std::string& optimizer, const Update& u) {
  std::vector<std::vector<double>> vars = u.vars;
  const size_t n = vars[0].size();
  std::vector<double> s(vars.size());
  // Each step's result is stored as the variable's type holds it.
  auto step = [&](size_t elem, double g) {
    for (size_t k = 0; k < vars.size(); ++k) s[k] = vars[k][elem];
    ReferenceStep(optimizer, s, g, u.hyper, u.attrs);
    for (size_t k = 0; k < vars.size(); ++k) {
      vars[k][elem] = RoundScalar(u.dtype, s[k]);
    }
  };
  if (u.indices.empty() && u.op.find("Sparse") == std::string::npos) {
    for (size_t i = 0; i < n; ++i) step(i, u.grad[i]);
    return vars;
  }
  const size_t rows = static_cast<size_t>(u.shape[0]);
  const size_t inner = rows == 0 ? 0 : n / rows;
  for (size_t i = 0; i < u.indices.size(); ++i) {
    for (size_t j = 0; j < inner; ++j) {
      step(static_cast<size_t>(u.indices[i]) * inner + j,
           u.grad[i * inner + j]);
    }
  }
  return vars;
}

// --- The optimizers under test, with hyper-parameters and initial ranges
// that keep every square root real.

struct Optimizer {
  std::string name;  // "Adam"
  int num_vars;
  Hyper hyper;
  // Range of the initial values of each variable (var first).
  std::vector<std::pair<double, double>> init;
  bool ref = true;         // Apply<name>
  bool sparse = true;      // SparseApply<name> / ResourceSparseApply<name>
  bool sparse_ref = true;  // SparseApply<name>
  std::vector<DataType> sparse_types = {DT_HALF, DT_BFLOAT16, DT_FLOAT,
                                        DT_DOUBLE};
  std::vector<DataType> types = {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
};

inline const std::vector<Optimizer>& Optimizers() {
  const std::pair<double, double> any{-1.0, 1.0};
  const std::pair<double, double> pos{0.1, 1.0};
  const std::pair<double, double> small{-0.1, 0.1};
  const std::vector<DataType> f32_64 = {DT_FLOAT, DT_DOUBLE};
  const std::vector<DataType> no_bf16 = {DT_HALF, DT_FLOAT, DT_DOUBLE};
  static const auto* opts = new std::vector<Optimizer>{
      {"GradientDescent", 1, {{"alpha", 0.1}}, {any}, true, false},
      {"ProximalGradientDescent",
       1,
       {{"alpha", 0.1}, {"l1", 0.05}, {"l2", 0.02}},
       {any},
       true,
       true,
       true,
       f32_64,
       f32_64},
      {"Momentum", 2, {{"lr", 0.1}, {"momentum", 0.9}}, {any, any}},
      {"KerasMomentum",
       2,
       {{"lr", 0.1}, {"momentum", 0.9}},
       {any, any},
       false,
       true,
       false},
      {"Adam",
       3,
       {{"beta1_power", 0.729},
        {"beta2_power", 0.997},
        {"lr", 0.01},
        {"beta1", 0.9},
        {"beta2", 0.999},
        {"epsilon", 1e-7}},
       {any, any, pos},
       true,
       false},
      {"AdamWithAmsgrad",
       4,
       {{"beta1_power", 0.729},
        {"beta2_power", 0.997},
        {"lr", 0.01},
        {"beta1", 0.9},
        {"beta2", 0.999},
        {"epsilon", 1e-7}},
       {any, any, pos, pos},
       false,
       false},
      {"AdaMax",
       3,
       {{"beta1_power", 0.729},
        {"lr", 0.01},
        {"beta1", 0.9},
        {"beta2", 0.999},
        {"epsilon", 1e-7}},
       {any, any, pos},
       true,
       false,
       false,
       {},
       no_bf16},
      {"Adagrad", 2, {{"lr", 0.1}}, {any, pos}},
      {"AdagradV2", 2, {{"lr", 0.1}, {"epsilon", 1e-3}}, {any, pos}},
      {"ProximalAdagrad",
       2,
       {{"lr", 0.1}, {"l1", 0.05}, {"l2", 0.02}},
       {any, pos},
       true,
       true,
       true,
       f32_64,
       f32_64},
      {"AdagradDA",
       3,
       {{"lr", 0.1}, {"l1", 0.05}, {"l2", 0.02}, {"global_step", 3}},
       {any, small, pos},
       true,
       true,
       true,
       f32_64,
       f32_64},
      {"Adadelta",
       3,
       {{"lr", 0.5}, {"rho", 0.95}, {"epsilon", 1e-6}},
       {any, pos, pos}},
      {"RMSProp",
       3,
       {{"lr", 0.01}, {"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 1e-6}},
       {any, pos, any},
       true,
       true,
       true,
       no_bf16},
      {"CenteredRMSProp",
       4,
       {{"lr", 0.01}, {"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 1e-6}},
       {any, small, pos, any},
       true,
       true,
       true,
       no_bf16},
      {"Ftrl",
       3,
       {{"lr", 0.5}, {"l1", 0.05}, {"l2", 0.02}, {"lr_power", -0.5}},
       {any, pos, any}},
      {"FtrlV2",
       3,
       {{"lr", 0.5},
        {"l1", 0.05},
        {"l2", 0.02},
        {"l2_shrinkage", 0.1},
        {"lr_power", -0.5}},
       {any, pos, any}},
      {"AddSign",
       2,
       {{"lr", 0.1}, {"alpha", 1.0}, {"sign_decay", 0.5}, {"beta", 0.9}},
       {any, any},
       true,
       false},
      {"PowerSign",
       2,
       {{"lr", 0.1},
        {"logbase", 0.6931471805599453},
        {"sign_decay", 0.5},
        {"beta", 0.9}},
       {any, any},
       true,
       false},
  };
  return *opts;
}

inline const Optimizer& FindOptimizer(const std::string& name) {
  for (const Optimizer& o : Optimizers()) {
    if (o.name == name) return o;
  }
  DFX_CHECK_MSG(false, name);
  return Optimizers()[0];
}

// n values uniform in [lo, hi), from a fixed seed.
inline std::vector<double> Uniform(size_t n, double lo, double hi,
                                   uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) v = dist(gen);
  return out;
}

// Values as `dtype` holds them (rounded), so the reference starts where
// the kernel does.
inline std::vector<double> RoundTo(DataType dtype, std::vector<double> v) {
  return Doubles(FloatTensor(dtype, {static_cast<int64_t>(v.size())}, v));
}

// An update of `op` (any form of `opt`) with random variables of `shape`
// and a random gradient of `grad_rows` rows (the var's rows when -1),
// everything rounded to `dtype`.
inline Update MakeUpdate(const Optimizer& opt, const std::string& op,
                         DataType dtype, std::vector<int64_t> shape,
                         int64_t grad_rows = -1, uint32_t seed = 1) {
  Update u;
  u.op = op;
  u.dtype = dtype;
  u.shape = shape;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  for (int k = 0; k < opt.num_vars; ++k) {
    u.vars.push_back(RoundTo(
        dtype, Uniform(n, opt.init[k].first, opt.init[k].second, seed + k)));
  }
  for (const auto& [name, value] : opt.hyper) {
    u.hyper[name] = name == "global_step" ? value : RoundTo(dtype, {value})[0];
  }
  int64_t grad_n = n;
  if (grad_rows >= 0 && shape.empty()) {
    u.grad_shape = {grad_rows};
    grad_n = grad_rows;
  } else if (grad_rows >= 0) {
    u.grad_shape = shape;
    u.grad_shape[0] = grad_rows;
    grad_n = shape[0] == 0 ? 0 : n / shape[0] * grad_rows;
  }
  u.grad = RoundTo(dtype, Uniform(grad_n, -1.0, 1.0, seed + 100));
  return u;
}

// Largest |got - want| / (atol + rtol * |want|) over every variable; <= 1
// when within tolerance.
inline double ToleranceRatio(const std::vector<std::vector<double>>& got,
                             const std::vector<std::vector<double>>& want,
                             double rtol, double atol) {
  DFX_CHECK(got.size() == want.size());
  double worst = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    DFX_CHECK(got[k].size() == want[k].size());
    for (size_t i = 0; i < got[k].size(); ++i) {
      const double err = std::fabs(got[k][i] - want[k][i]) /
                         (atol + rtol * std::fabs(want[k][i]));
      worst = std::max(worst, std::isnan(err) ? 1e30 : err);
    }
  }
  return worst;
}

// Tolerances by type: the kernels compute 16-bit types through float and
// round once when storing.
inline std::pair<double, double> Tolerance(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
      return {1e-12, 1e-14};
    case DT_FLOAT:
      return {2e-5, 2e-6};
    case DT_HALF:
      return {2e-3, 2e-3};
    default:
      return {1.6e-2, 1.6e-2};
  }
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_KERNELS_TRAINING_TEST_UTIL_H_

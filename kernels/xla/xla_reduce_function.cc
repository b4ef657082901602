#include "kernels/xla/xla_reduce_function.h"

#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/types.h"
#include "kernels/data/dataset.h"

namespace dfx::xla2 {
namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return v != v;
  }
}

template <typename T, BodyOp kOp>
void Combine(void* acc_ptr, const void* x_ptr) {
  T& acc = *static_cast<T*>(acc_ptr);
  const T x = *static_cast<const T*>(x_ptr);
  if constexpr (kOp == BodyOp::kFirst) {
    return;
  } else if constexpr (kOp == BodyOp::kSecond) {
    acc = x;
  } else if constexpr (kOp == BodyOp::kAdd) {
    acc = static_cast<T>(acc + x);
  } else if constexpr (kOp == BodyOp::kMul) {
    acc = static_cast<T>(acc * x);
  } else if constexpr (kOp == BodyOp::kMax) {
    // NaN wins, as XLA's max and TensorFlow's Maximum.
    if (IsNan(acc)) return;
    if (IsNan(x) || acc < x) acc = x;
  } else if constexpr (kOp == BodyOp::kMin) {
    if (IsNan(acc)) return;
    if (IsNan(x) || x < acc) acc = x;
  } else if constexpr (kOp == BodyOp::kAnd) {
    acc = acc && x;
  } else {
    acc = acc || x;
  }
}

template <typename T, BodyOp kOp>
bool Predicate(const void* a_ptr, const void* b_ptr) {
  const T a = *static_cast<const T*>(a_ptr);
  const T b = *static_cast<const T*>(b_ptr);
  if constexpr (kOp == BodyOp::kLess) {
    return a < b;
  } else if constexpr (kOp == BodyOp::kGreater) {
    return b < a;
  } else if constexpr (kOp == BodyOp::kLessEqual) {
    return a <= b;
  } else {
    return a >= b;
  }
}

// The op a node of the body stands for, and its mirror when the arguments
// come in the other order.
BodyOp OpOf(const std::string& op, bool swapped) {
  if (op == "Add" || op == "AddV2") return BodyOp::kAdd;
  if (op == "Mul") return BodyOp::kMul;
  if (op == "Maximum") return BodyOp::kMax;
  if (op == "Minimum") return BodyOp::kMin;
  if (op == "LogicalAnd") return BodyOp::kAnd;
  if (op == "LogicalOr") return BodyOp::kOr;
  if (op == "Less") return swapped ? BodyOp::kGreater : BodyOp::kLess;
  if (op == "Greater") return swapped ? BodyOp::kLess : BodyOp::kGreater;
  if (op == "LessEqual") {
    return swapped ? BodyOp::kGreaterEqual : BodyOp::kLessEqual;
  }
  if (op == "GreaterEqual") {
    return swapped ? BodyOp::kLessEqual : BodyOp::kGreaterEqual;
  }
  return BodyOp::kNone;
}

// The node name of a FunctionDef input ("node:out:0" or "arg"); empty for a
// control input.
std::string NodeOfInput(const std::string& input) {
  if (input.empty() || input[0] == '^') return "";
  return std::string(input.substr(0, input.find(':')));
}

// Recognises a body whose one result is one binary op of arguments 0 and 1,
// or one of those arguments, reached through Identity nodes, with no other
// node.
BodyOp Recognise(const FunctionDefLibrary* library, const NameAttrList& f) {
  if (library == nullptr || f.attr_size() != 0) return BodyOp::kNone;
  const FunctionDef* def = nullptr;
  for (const FunctionDef& candidate : library->function()) {
    if (candidate.signature().name() == f.name()) def = &candidate;
  }
  if (def == nullptr || def->signature().input_arg_size() < 2 ||
      def->signature().output_arg_size() != 1 || def->ret_size() != 1 ||
      def->control_ret_size() != 0) {
    return BodyOp::kNone;
  }
  absl::flat_hash_map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : def->node_def()) nodes[n.name()] = &n;
  std::string at = NodeOfInput(def->ret().begin()->second);
  const std::string& a0 = def->signature().input_arg(0).name();
  const std::string& a1 = def->signature().input_arg(1).name();
  size_t visited = 0;
  while (true) {
    if ((at == a0 || at == a1) && visited == nodes.size() &&
        !nodes.contains(at)) {
      return at == a0 ? BodyOp::kFirst : BodyOp::kSecond;
    }
    auto it = nodes.find(at);
    if (it == nodes.end()) return BodyOp::kNone;
    const NodeDef& n = *it->second;
    ++visited;
    if (n.op() == "Identity" && n.input_size() == 1) {
      at = NodeOfInput(n.input(0));
      continue;
    }
    if (n.input_size() != 2 || visited != nodes.size()) return BodyOp::kNone;
    const std::string in0 = NodeOfInput(n.input(0));
    const std::string in1 = NodeOfInput(n.input(1));
    if (in0 == a0 && in1 == a1) return OpOf(n.op(), false);
    if (in0 == a1 && in1 == a0) return OpOf(n.op(), true);
    return BodyOp::kNone;
  }
}

}  // namespace

CombineFn FastCombine(BodyOp op, DataType dtype) {
  CombineFn out = nullptr;
  VisitNumericType(dtype, [&]<typename T>() {
    if (op == BodyOp::kFirst) out = &Combine<T, BodyOp::kFirst>;
    if (op == BodyOp::kSecond) out = &Combine<T, BodyOp::kSecond>;
    if constexpr (std::is_same_v<T, bool>) {
      if (op == BodyOp::kAnd) out = &Combine<T, BodyOp::kAnd>;
      if (op == BodyOp::kOr) out = &Combine<T, BodyOp::kOr>;
    } else {
      if (op == BodyOp::kAdd) out = &Combine<T, BodyOp::kAdd>;
      if (op == BodyOp::kMul) out = &Combine<T, BodyOp::kMul>;
      if (op == BodyOp::kMax) out = &Combine<T, BodyOp::kMax>;
      if (op == BodyOp::kMin) out = &Combine<T, BodyOp::kMin>;
    }
  });
  return out;
}

PredicateFn FastPredicate(BodyOp op, DataType dtype) {
  PredicateFn out = nullptr;
  VisitNumericType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      if (op == BodyOp::kLess) out = &Predicate<T, BodyOp::kLess>;
      if (op == BodyOp::kGreater) out = &Predicate<T, BodyOp::kGreater>;
      if (op == BodyOp::kLessEqual) out = &Predicate<T, BodyOp::kLessEqual>;
      if (op == BodyOp::kGreaterEqual) {
        out = &Predicate<T, BodyOp::kGreaterEqual>;
      }
    }
  });
  return out;
}

BodyOp RecogniseBody(OpKernelConstruction* ctx, absl::string_view attr) {
  const AttrValue* value = FindNodeAttr(ctx->def(), attr);
  if (value == nullptr || !value->has_func()) return BodyOp::kNone;
  return Recognise(ctx->function_library(), value->func());
}

struct ScalarFunction::Impl {
  std::shared_ptr<const data::DatasetFunction> f;
};

ScalarFunction::ScalarFunction(std::unique_ptr<Impl> impl, BodyOp op)
    : impl_(std::move(impl)), body_op_(op) {}
ScalarFunction::~ScalarFunction() = default;

const std::string& ScalarFunction::name() const { return impl_->f->name(); }
size_t ScalarFunction::num_args() const { return impl_->f->arg_types().size(); }
size_t ScalarFunction::num_rets() const { return impl_->f->ret_types().size(); }

absl::StatusOr<std::unique_ptr<ScalarFunction>> ScalarFunction::Create(
    OpKernelConstruction* ctx, absl::string_view attr) {
  auto impl = std::make_unique<Impl>();
  absl::StatusOr<std::shared_ptr<const data::DatasetFunction>> f =
      data::DatasetFunction::Create(ctx, attr);
  if (!f.ok()) return f.status();
  impl->f = *std::move(f);
  const BodyOp op = RecogniseBody(ctx, attr);
  return std::unique_ptr<ScalarFunction>(
      new ScalarFunction(std::move(impl), op));
}

absl::StatusOr<std::vector<Tensor>> ScalarFunction::Call(
    OpKernelContext* ctx, std::vector<Tensor> args,
    const DataTypeVector& ret_types) const {
  data::IteratorContext ictx;
  ictx.device = ctx->device();
  ictx.cancellation_manager = ctx->cancellation_manager();
  absl::StatusOr<std::vector<Tensor>> out =
      impl_->f->Run(&ictx, std::move(args));
  if (!out.ok()) return out.status();
  if (out->size() != ret_types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", name(), "' returns ", out->size(),
                     " values, expected ", ret_types.size()));
  }
  for (size_t i = 0; i < out->size(); ++i) {
    const Tensor& t = (*out)[i];
    if (t.dtype() != ret_types[i] || t.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", name(), "' result ", i, " is a ",
          DataTypeString(t.dtype()), " of shape ", t.shape().DebugString(),
          ", expected a ", DataTypeString(ret_types[i]), " scalar"));
    }
  }
  return out;
}

Tensor ElementAsScalar(const Tensor& t, int64_t i) {
  Tensor out(t.dtype(), TensorShape({}));
  const size_t size = DataTypeSize(t.dtype());
  std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + i * size,
              size);
  return out;
}

bool IsPlainType(DataType dtype) {
  return dtype != DT_STRING && dtype != DT_RESOURCE && dtype != DT_VARIANT &&
         DataTypeSize(dtype) > 0;
}

}  // namespace dfx::xla2

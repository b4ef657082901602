// Runs every registered op's shape function on input shapes and constant
// inputs that a real graph can hand it: unknown ranks (an input from a _Recv
// after partitioning, a placeholder without a shape), scalars, empty and
// mismatched shapes, and constant inputs with negative, zero and huge
// values. A shape function may reject any of them with an error; it must not
// crash. One that did (Reverse indexed the dims of an input of unknown rank)
// took the whole master down when a TensorFlow client placed a Reverse's
// operands on two tasks.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/types.h"

namespace dfx {
namespace {

// A value for an attr that has no default: the first allowed value, else
// something small and valid-looking. The shape function may still refuse
// it; the sweep is about not crashing.
AttrValue SynthesizeAttr(const OpDef::AttrDef& attr) {
  AttrValue v;
  const int64_t n = attr.has_minimum() ? std::max<int64_t>(attr.minimum(), 2)
                                       : 2;
  const bool restricted = attr.has_allowed_values();
  const AttrValue::ListValue& allowed = attr.allowed_values().list();
  const std::string& t = attr.type();
  if (t == "type") {
    v.set_type(restricted && allowed.type_size() > 0 ? allowed.type(0)
                                                     : DT_FLOAT);
  } else if (t == "list(type)") {
    const DataType d = restricted && allowed.type_size() > 0 ? allowed.type(0)
                                                             : DT_FLOAT;
    for (int64_t i = 0; i < n; ++i) v.mutable_list()->add_type(d);
  } else if (t == "int") {
    v.set_i(n);
  } else if (t == "float") {
    v.set_f(1.0f);
  } else if (t == "bool") {
    v.set_b(false);
  } else if (t == "string") {
    v.set_s(restricted && allowed.s_size() > 0 ? allowed.s(0) : "");
  } else if (t == "shape") {
    v.mutable_shape()->set_unknown_rank(true);
  } else if (t == "tensor") {
    v.mutable_tensor()->set_dtype(DT_FLOAT);
    v.mutable_tensor()->add_float_val(1.0f);
  } else if (t == "func") {
    v.mutable_func()->set_name("f");
  } else if (t == "list(int)") {
    for (int i = 0; i < 4; ++i) v.mutable_list()->add_i(1);
  } else if (t == "list(float)") {
    v.mutable_list()->add_f(1.0f);
  } else if (t == "list(string)") {
    v.mutable_list();
  } else if (t == "list(shape)") {
    for (int64_t i = 0; i < n; ++i) {
      v.mutable_list()->add_shape()->set_unknown_rank(true);
    }
  } else {
    v.mutable_list();  // list(func), list(tensor), list(bool)
  }
  return v;
}

// Shapes an input may have.
std::vector<PartialShape> ShapePool() {
  return {PartialShape::Unknown(),       PartialShape::Scalar(),
          PartialShape::Known({-1}),     PartialShape::Known({0}),
          PartialShape::Known({1}),      PartialShape::Known({3}),
          PartialShape::Known({2, 3}),   PartialShape::Known({-1, -1}),
          PartialShape::Known({0, 4}),   PartialShape::Known({2, 3, 4, 5}),
          PartialShape::Known({1, -1, 2}), PartialShape::Known({7, 1, 1, 1, 2})};
}

// A constant integer input of `dtype`: a random vector (or scalar) of
// awkward values.
TensorProto RandomIntConstant(DataType dtype, std::mt19937* rng) {
  static const int64_t kValues[] = {-7, -2, -1, 0, 1, 2, 3, 5,
                                    int64_t{1} << 40, INT64_MAX};
  TensorProto t;
  t.set_dtype(dtype);
  const int len = static_cast<int>((*rng)() % 6) - 1;  // -1: a scalar
  if (len >= 0) t.mutable_tensor_shape()->add_dim()->set_size(len);
  for (int i = 0; i < std::max(len, 1); ++i) {
    int64_t x = kValues[(*rng)() % std::size(kValues)];
    if (dtype == DT_INT32) {
      t.add_int_val(static_cast<int32_t>(std::clamp<int64_t>(x, INT32_MIN,
                                                            INT32_MAX)));
    } else {
      t.add_int64_val(x);
    }
  }
  return t;
}

struct SweepCounts {
  int ops = 0;         // ops whose shape function ran
  int unbuildable = 0;  // ops whose node the synthesized attrs cannot make
  int calls = 0;
};

SweepCounts Sweep() {
  SweepCounts counts;
  const OpRegistry* registry = OpRegistry::Global();
  const std::vector<PartialShape> pool = ShapePool();
  // DFX_SHAPE_SWEEP_SEED picks other random mixtures (a search for
  // crashes beyond the fixed sequence the suite runs).
  const char* seed = std::getenv("DFX_SHAPE_SWEEP_SEED");
  std::mt19937 rng(seed != nullptr ? std::strtoul(seed, nullptr, 10) : 2026);
  for (const std::string& name : registry->ListOps()) {
    const OpRegistrationData* op = registry->LookUp(name);
    REQUIRE(op != nullptr);
    NodeDef node;
    node.set_name("n");
    node.set_op(name);
    for (const OpDef::AttrDef& attr : op->op_def.attr()) {
      if (!attr.has_default_value()) {
        (*node.mutable_attr())[attr.name()] = SynthesizeAttr(attr);
      }
    }
    AddDefaultAttrs(op->op_def, &node);
    DataTypeVector in_types, out_types;
    if (!ValidateNodeAttrs(node, op->op_def).ok() ||
        !InOutTypesForNode(node, op->op_def, &in_types, &out_types).ok()) {
      ++counts.unbuildable;
      continue;
    }
    ++counts.ops;
    const int num_in = static_cast<int>(in_types.size());
    // Every input the same shape (each pool entry), then random mixtures,
    // some with constant integer inputs.
    const int trials = static_cast<int>(pool.size()) + 24;
    for (int trial = 0; trial < trials; ++trial) {
      std::vector<PartialShape> shapes(num_in);
      std::vector<TensorProto> consts(num_in);
      std::vector<const TensorProto*> const_ptrs(num_in, nullptr);
      for (int i = 0; i < num_in; ++i) {
        shapes[i] = trial < static_cast<int>(pool.size())
                        ? pool[trial]
                        : pool[rng() % pool.size()];
        const DataType t = BaseType(in_types[i]);
        if (trial >= static_cast<int>(pool.size()) && trial % 2 == 1 &&
            (t == DT_INT32 || t == DT_INT64)) {
          consts[i] = RandomIntConstant(t, &rng);
          const_ptrs[i] = &consts[i];
          shapes[i] = consts[i].tensor_shape().dim_size() == 0
                          ? PartialShape::Scalar()
                          : PartialShape::Known(
                                {consts[i].tensor_shape().dim(0).size()});
        }
      }
      std::string described;
      for (const PartialShape& s : shapes) {
        absl::StrAppend(&described, s.DebugString(), " ");
      }
      INFO("op " << name << " inputs " << described);
      InferenceContext c(node, op->op_def, std::move(shapes),
                         std::move(const_ptrs),
                         static_cast<int>(out_types.size()));
      // Either answer is fine; the call must return.
      (void)op->shape_fn(&c);
      ++counts.calls;
    }
  }
  return counts;
}

TEST_CASE("Every op's shape function returns, with an error or shapes, on "
          "unknown, empty, mismatched and constant inputs") {
  const SweepCounts counts = Sweep();
  INFO(counts.ops << " ops swept (" << counts.calls << " calls), "
                  << counts.unbuildable << " not buildable from defaults");
  // Nearly every op can be built from its defaults and the synthesized
  // attrs: a registry change that broke that would make this test
  // vacuous.
  CHECK(counts.ops > 700);
  CHECK(counts.unbuildable * 20 < counts.ops);
}

}  // namespace
}  // namespace dfx

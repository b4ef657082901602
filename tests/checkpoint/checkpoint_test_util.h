// Helpers for the checkpoint tests: a fresh temporary directory per test,
// tensors of every savable dtype, exact tensor comparison, and GraphDefs
// built node by node and run in a "local" session.
#ifndef DFX_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_
#define DFX_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "proto/graph.pb.h"
#include "runtime/session.h"
#include "runtime/tensor.h"
#include "tests/testing/temp_dir.h"

namespace dfx::testing {

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  DFX_CHECK(out.good());
}

// True when both tensors have the same dtype, shape and element bytes (or
// strings).
inline bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.TotalBytes() == b.TotalBytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

// A tensor of `dtype` and `shape` whose element bytes are a pattern drawn
// from `seed` (every byte pattern is a valid element, except bool, which
// gets 0 or 1); strings get varied lengths, NULs and bytes >= 0x80.
inline Tensor PatternTensor(DataType dtype, const TensorShape& shape,
                            uint32_t seed) {
  Tensor t(dtype, shape);
  uint32_t x = seed * 2654435761u + 12345;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  };
  if (dtype == DT_STRING) {
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      std::string s(next() % 300, '\0');
      for (char& c : s) c = static_cast<char>(next());
      t.data<std::string>()[i] = std::move(s);
    }
  } else if (dtype == DT_BOOL) {
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.data<bool>()[i] = (next() & 1) != 0;
    }
  } else {
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) {
      p[i] = static_cast<unsigned char>(next());
    }
  }
  return t;
}

// Every dtype a bundle holds, with the shapes the round-trip tests use.
inline std::vector<DataType> SavableDtypes() {
  return {DT_FLOAT, DT_DOUBLE,    DT_HALF,       DT_BFLOAT16,
          DT_INT8,  DT_INT16,     DT_INT32,      DT_INT64,
          DT_UINT8, DT_UINT16,    DT_UINT32,     DT_UINT64,
          DT_BOOL,  DT_COMPLEX64, DT_COMPLEX128, DT_STRING};
}

// ---------------------------------------------------------------------------
// Graphs.

inline AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
inline AttrValue TypeListAttr(const std::vector<DataType>& types) {
  AttrValue v;
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}
inline AttrValue BoolAttr(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}
inline AttrValue IntAttr(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}
inline AttrValue StringAttr(const std::string& s) {
  AttrValue v;
  v.set_s(s);
  return v;
}

class GraphBuilder {
 public:
  // Adds a node; returns its name.
  std::string Node(const std::string& name, const std::string& op,
                   const std::vector<std::string>& inputs,
                   const std::map<std::string, AttrValue>& attrs = {},
                   const std::string& device = "") {
    NodeDef* node = graph_.add_node();
    node->set_name(name);
    node->set_op(op);
    for (const std::string& in : inputs) node->add_input(in);
    for (const auto& [k, v] : attrs) (*node->mutable_attr())[k] = v;
    node->set_device(device);
    return name;
  }
  std::string Const(const std::string& name, const Tensor& value,
                    const std::string& device = "") {
    AttrValue v;
    value.AsProtoTensorContent(v.mutable_tensor());
    return Node(name, "Const", {},
                {{"value", v}, {"dtype", TypeAttr(value.dtype())}}, device);
  }
  std::string StringConst(const std::string& name,
                          const std::vector<std::string>& values,
                          const std::string& device = "") {
    return Const(
        name,
        Tensor::FromVector<std::string>(absl::Span<const std::string>(values)),
        device);
  }
  std::string ScalarString(const std::string& name, const std::string& value,
                           const std::string& device = "") {
    return Const(name, Tensor::Scalar<std::string>(value), device);
  }
  std::string Placeholder(const std::string& name, DataType dtype) {
    return Node(name, "Placeholder", {}, {{"dtype", TypeAttr(dtype)}});
  }
  const GraphDef& graph() const { return graph_; }

 private:
  GraphDef graph_;
};

// Runs one step of `graph` in a new local session with `num_cpus` CPU
// devices.
inline absl::StatusOr<std::vector<Tensor>> RunGraph(
    const GraphDef& graph, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets = {},
    const std::vector<std::pair<std::string, Tensor>>& feeds = {},
    int num_cpus = 1) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = num_cpus;
  options.config.set_intra_op_parallelism_threads(2);
  auto session = Session::Create("local", options);
  if (!session.ok()) return session.status();
  absl::Status s = (*session)->Extend(graph);
  std::vector<Tensor> outputs;
  if (s.ok()) s = (*session)->Run(feeds, fetches, targets, &outputs);
  (void)(*session)->Close();
  if (!s.ok()) return s;
  return outputs;
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_

// End-to-end check of graph/builder/gradients.h: two small MLPs (dense input,
// and an embedding lookup) built with the builder, their gradients added with
// AddSymbolicGradients, and the results compared with TensorFlow's
// (tests/golden/gen_builder_grads.py writes tests/builder/data/mlp_grads/).
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/gradient_checker.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

const std::string kDataDir = DFX_TEST_DATA_DIR "/../builder/data/mlp_grads/";

// Reads what numpy.save writes for a little-endian float32 or int32 array in
// C order (format 1.0). InvalidArgument for anything else.
absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 ||
      bytes[6] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not .npy 1.0"));
  }
  const size_t header_len =
      static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  if (bytes.size() < 10 + header_len) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": short header"));
  }
  const std::string header = bytes.substr(10, header_len);
  DataType dtype;
  if (header.find("'descr': '<f4'") != std::string::npos) {
    dtype = DT_FLOAT;
  } else if (header.find("'descr': '<i4'") != std::string::npos) {
    dtype = DT_INT32;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(path, ": dtype ", header));
  }
  if (header.find("'fortran_order': False") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": Fortran order"));
  }
  const size_t open = header.find("'shape': (");
  const size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no shape"));
  }
  std::vector<int64_t> dims;
  const std::string shape = header.substr(open + 10, close - open - 10);
  for (absl::string_view part : absl::StrSplit(shape, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": shape ", shape));
    }
    dims.push_back(d);
  }
  TensorShape tensor_shape;
  for (int64_t d : dims) {
    if (absl::Status s = tensor_shape.AddDim(d); !s.ok()) return s;
  }
  Tensor t(dtype, tensor_shape);
  const size_t data = 10 + header_len;
  if (bytes.size() - data != t.TotalBytes()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": data size"));
  }
  std::memcpy(t.raw_data(), bytes.data() + data, t.TotalBytes());
  return t;
}

class Case {
 public:
  explicit Case(const std::string& name) : dir_(kDataDir + name + "/") {}
  Tensor Get(const std::string& name) {
    absl::StatusOr<Tensor> t = ReadNpy(dir_ + name + ".npy");
    REQUIRE_OK(t);
    return *t;
  }

 private:
  std::string dir_;
};

// |got - want| <= 1e-5 (1 + |want|) elementwise, same shape.
void RequireClose(const std::string& what, const Tensor& got,
                  const Tensor& want) {
  INFO(what << ": dfx shape " << got.shape().DebugString()
            << ", TensorFlow shape " << want.shape().DebugString());
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double g = testing::GetAsDouble(got, i);
    const double w = testing::GetAsDouble(want, i);
    INFO("element " << i << ": dfx " << g << ", TensorFlow " << w);
    CHECK(std::fabs(g - w) <= 1e-5 * (1 + std::fabs(w)));
  }
}

// The hidden and output layers shared by both cases.
Output Mlp(const Scope& root, Case& data, const Output& h) {
  const Scope l1 = root.NewSubScope("layer1");
  const Output w1 = ops::Const(root.WithOpName("w1"), data.Get("w1"));
  const Output b1 = ops::Const(root.WithOpName("b1"), data.Get("b1"));
  const Output hidden =
      ops::Relu(l1, ops::BiasAdd(l1, ops::MatMul(l1, h, w1), b1));
  const Scope l2 = root.NewSubScope("layer2");
  const Output w2 = ops::Const(root.WithOpName("w2"), data.Get("w2"));
  const Output b2 = ops::Const(root.WithOpName("b2"), data.Get("b2"));
  return ops::BiasAdd(l2, ops::MatMul(l2, hidden, w2), b2);
}

// Fetches the loss and the gradients of `names` (nodes of the graph) and
// compares them with TensorFlow's.
void CompareWithTensorFlow(const Scope& root, Case& data, const Output& loss,
                           const std::vector<std::string>& names) {
  std::vector<Output> wrt;
  for (const std::string& n : names) wrt.emplace_back(n, 0, DT_FLOAT);
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {loss}, wrt, &grads));
  std::vector<Output> fetches = {loss};
  fetches.insert(fetches.end(), grads.begin(), grads.end());
  auto out = testing::RunScope(root, {}, fetches);
  REQUIRE_OK(out);
  RequireClose("loss", (*out)[0], data.Get("loss"));
  for (size_t i = 0; i < names.size(); ++i) {
    RequireClose("gradient of " + names[i], (*out)[i + 1],
                 data.Get("grad_" + names[i]));
  }
}

TEST_CASE(
    "MLP gradients equal TensorFlow's: dense input, softmax "
    "cross-entropy") {
  Case data("dense");
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root.WithOpName("x"), data.Get("x"));
  const Output logits = Mlp(root, data, x);
  const Output labels = ops::Const(root, data.Get("labels"));
  const Output loss = ops::Mean(
      root, ops::SoftmaxCrossEntropyWithLogits(root, logits, labels).loss,
      ops::Const(root, {0}));
  CompareWithTensorFlow(root, data, loss, {"x", "w1", "b1", "w2", "b2"});
}

TEST_CASE(
    "MLP gradients equal TensorFlow's: embedding input, sparse "
    "softmax cross-entropy") {
  Case data("embedding");
  Scope root = Scope::NewRootScope();
  const Output embedding =
      ops::Const(root.WithOpName("embedding"), data.Get("embedding"));
  const Output ids = ops::Const(root, data.Get("ids"));
  const Output looked_up =
      ops::GatherV2(root, embedding, ids, ops::Const(root, 0));
  const Output h = ops::Reshape(root, looked_up, ops::Const(root, {4, 6}));
  const Output logits = Mlp(root, data, h);
  const Output labels = ops::Const(root, data.Get("labels"));
  const Output loss = ops::Mean(
      root, ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss,
      ops::Const(root, {0}));
  CompareWithTensorFlow(root, data, loss,
                        {"embedding", "w1", "b1", "w2", "b2"});
}

}  // namespace
}  // namespace dfx

// The rng2 family (graph/ops/rng2_ops.cc, kernels/random/rng2_kernels.h):
// every op has TensorFlow 2.21's OpDef and CPU kernel types; the shape
// functions; what the golden cases cannot show (NonDeterministicInts,
// RandomPoisson v1 beside V2, int64 shapes of the binomial samplers, on
// which TensorFlow's kernel aborts; a vocabulary
// file of FixedUnigramCandidateSampler; RandomIndexShuffle's `rounds`).
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every rng2 op has TensorFlow 2.21's signature and CPU types",
          "[rng2]") {
  testing::CheckSignaturesWithTensorFlow("rng2", 25);
}

// The shapes a node's shape function gives, input i constant where
// consts[i] is initialized.
absl::StatusOr<std::string> Infer(const NodeDef& node,
                                  std::vector<PartialShape> inputs,
                                  const std::vector<Tensor>& consts = {}) {
  absl::StatusOr<std::vector<PartialShape>> shapes =
      testing::InferShapes(node, std::move(inputs), consts);
  if (!shapes.ok()) return shapes.status();
  return testing::ShapesString(shapes);
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("rng2 shape functions", "[rng2]") {
  const NodeDef uniform =
      TestNodeBuilder("u", "StatefulUniform", 3).Build();
  const Tensor shape = Tensor::FromVector<int64_t>({2, 5});
  CHECK(Infer(uniform, {S({}), S({}), S({2})}, {Tensor(), Tensor(), shape})
            .value() == "[2,5]");
  // Unknown values: as many unknown dims as the shape has elements.
  CHECK(Infer(uniform, {S({}), S({}), S({3})}).value() == "[?,?,?]");
  CHECK_THAT(Infer(uniform, {S({}), S({1}), S({2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef uniform_int =
      TestNodeBuilder("i", "StatefulUniformInt", 5).Build();
  CHECK(Infer(uniform_int, {S({}), S({}), S({1}), S({}), S({})},
              {Tensor(), Tensor(), Tensor::FromVector<int64_t>({4})})
            .value() == "[4]");
  CHECK_THAT(Infer(uniform_int, {S({}), S({}), S({1}), S({2}), S({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef read = TestNodeBuilder("r", "RngReadAndSkip", 3).Build();
  CHECK(Infer(read, {S({}), S({}), S({})}).value() == "[3]");
  CHECK_THAT(Infer(read, {S({}), S({}), S({2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef skip = TestNodeBuilder("s", "RngSkip", 3).Build();
  CHECK(Infer(skip, {S({}), S({}), S({})}).ok());
  CHECK_THAT(Infer(skip, {S({}), S({2}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef binomial = TestNodeBuilder("b", "StatelessRandomBinomial", 4)
                               .Attr("S", DT_INT32)
                               .Attr("T", DT_FLOAT)
                               .Attr("dtype", DT_INT32)
                               .Build();
  CHECK(Infer(binomial, {S({2}), S({2}), S({}), S({})},
              {Tensor::FromVector<int32_t>({3, 4})})
            .value() == "[3,4]");
  CHECK_THAT(Infer(binomial, {S({2}), S({3}), S({}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef poisson = TestNodeBuilder("p", "RandomPoisson", 2)
                              .Attr("S", DT_INT32)
                              .Attr("dtype", DT_FLOAT)
                              .Build();
  CHECK(Infer(poisson, {S({2}), S({5})}, {Tensor::FromVector<int32_t>({3, 4})})
            .value() == "[3,4,5]");
  CHECK(Infer(poisson, {S({2}), PartialShape::Unknown()}).value() ==
        "<unknown>");
}

TEST_CASE("NonDeterministicInts fills its shape with random values of its "
          "dtype",
          "[rng2]") {
  for (DataType dtype : {DT_INT32, DT_INT64, DT_UINT32, DT_UINT64}) {
    const NodeDef node = TestNodeBuilder("n", "NonDeterministicInts", 1)
                             .Attr("dtype", dtype)
                             .Attr("shape_dtype", DT_INT32)
                             .Build();
    absl::StatusOr<std::vector<Tensor>> a =
        RunKernel(node, {Tensor::FromVector<int32_t>({4, 8})});
    absl::StatusOr<std::vector<Tensor>> b =
        RunKernel(node, {Tensor::FromVector<int32_t>({4, 8})});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK((*a)[0].dtype() == dtype);
    CHECK((*a)[0].shape() == TensorShape({4, 8}));
    // 32 values of at least 32 bits: two runs alike is a broken source.
    CHECK(std::memcmp((*a)[0].raw_data(), (*b)[0].raw_data(),
                      (*a)[0].TotalBytes()) != 0);
  }
  const NodeDef node =
      TestNodeBuilder("n", "NonDeterministicInts", 1).Build();
  absl::StatusOr<std::vector<Tensor>> empty =
      RunKernel(node, {Tensor::FromVector<int64_t>({0, 3})});
  REQUIRE(empty.ok());
  CHECK((*empty)[0].shape() == TensorShape({0, 3}));
  CHECK_THAT(RunKernel(node, {Tensor::FromVector<int64_t>({-2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("RandomPoisson gives RandomPoissonV2's values for its dtype",
          "[rng2]") {
  for (DataType dtype : {DT_HALF, DT_FLOAT, DT_DOUBLE}) {
    Tensor rate(dtype, TensorShape({3}));
    const double rates[] = {0.5, 4.0, 30.0};
    for (int i = 0; i < 3; ++i) {
      if (dtype == DT_HALF) {
        rate.data<Eigen::half>()[i] = Eigen::half(rates[i]);
      } else if (dtype == DT_FLOAT) {
        rate.data<float>()[i] = static_cast<float>(rates[i]);
      } else {
        rate.data<double>()[i] = rates[i];
      }
    }
    const Tensor shape = Tensor::FromVector<int32_t>({4, 2});
    absl::StatusOr<std::vector<Tensor>> v1 =
        RunKernel(TestNodeBuilder("p", "RandomPoisson", 2)
                      .Attr("S", DT_INT32)
                      .Attr("dtype", dtype)
                      .Attr("seed", 5)
                      .Attr("seed2", 9)
                      .Build(),
                  {shape, rate});
    absl::StatusOr<std::vector<Tensor>> v2 =
        RunKernel(TestNodeBuilder("p", "RandomPoissonV2", 2)
                      .Attr("S", DT_INT32)
                      .Attr("R", dtype)
                      .Attr("dtype", dtype)
                      .Attr("seed", 5)
                      .Attr("seed2", 9)
                      .Build(),
                  {shape, rate});
    REQUIRE(v1.ok());
    REQUIRE(v2.ok());
    REQUIRE((*v1)[0].shape() == TensorShape({4, 2, 3}));
    CHECK(std::memcmp((*v1)[0].raw_data(), (*v2)[0].raw_data(),
                      (*v1)[0].TotalBytes()) == 0);
  }
}

TEST_CASE("StatelessRandomBinomial reads an int64 shape and checks its "
          "inputs",
          "[rng2]") {
  auto node = [](DataType shape_type) {
    return TestNodeBuilder("b", "StatelessRandomBinomial", 4)
        .Attr("S", shape_type)
        .Attr("T", DT_DOUBLE)
        .Attr("dtype", DT_INT64)
        .Build();
  };
  const Tensor seed = Tensor::FromVector<int64_t>({1, 2});
  const Tensor counts = Tensor::FromVector<double>({5.0, 20.0});
  const Tensor probs = Tensor::FromVector<double>({0.5, 0.7});
  // TensorFlow reads an int64 shape as int32 words and aborts; dfx reads
  // it as what it is, with the int32 shape's values.
  absl::StatusOr<std::vector<Tensor>> wide =
      RunKernel(node(DT_INT64),
                {Tensor::FromVector<int64_t>({3, 2}), seed, counts, probs});
  absl::StatusOr<std::vector<Tensor>> narrow =
      RunKernel(node(DT_INT32),
                {Tensor::FromVector<int32_t>({3, 2}), seed, counts, probs});
  REQUIRE(wide.ok());
  REQUIRE(narrow.ok());
  REQUIRE((*wide)[0].shape() == TensorShape({3, 2}));
  CHECK(std::memcmp((*wide)[0].raw_data(), (*narrow)[0].raw_data(),
                    (*wide)[0].TotalBytes()) == 0);

  CHECK_THAT(RunKernel(node(DT_INT32),
                       {Tensor::FromVector<int32_t>({3}), seed, counts, probs})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "must end with broadcasted shape"));
  CHECK_THAT(RunKernel(node(DT_INT32),
                       {Tensor::FromVector<int32_t>({2}),
                        Tensor::FromVector<int64_t>({1}), counts, probs})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "seed must have shape [2], not [1]"));
  CHECK_THAT(RunKernel(node(DT_INT32),
                       {Tensor::FromVector<int32_t>({2}), seed,
                        Tensor::FromVector<double>({1, 2, 3}), probs})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "counts and probs must have compatible batch "
                      "dimensions: [3] vs. [2]"));
}

// FixedUnigramCandidateSampler with `unigrams` (whose numbers the golden
// cases check) and with a vocabulary file of the same weights.
absl::StatusOr<std::vector<Tensor>> RunFixed(const std::string& vocab_file,
                                             const std::vector<float>& weights,
                                             int64_t range_max,
                                             int64_t num_reserved_ids = 0) {
  TestNodeBuilder b("f", "FixedUnigramCandidateSampler", 1);
  b.Attr("num_true", 1)
      .Attr("num_sampled", 6)
      .Attr("unique", true)
      .Attr("range_max", range_max)
      .Attr("num_reserved_ids", num_reserved_ids)
      .Attr("distortion", 0.5f)
      .Attr("seed", 3)
      .Attr("seed2", 4);
  NodeDef node = b.Build();
  if (!vocab_file.empty()) {
    (*node.mutable_attr())["vocab_file"].set_s(vocab_file);
  } else {
    for (float w : weights) {
      (*node.mutable_attr())["unigrams"].mutable_list()->add_f(w);
    }
  }
  return RunKernel(node, {Tensor::FromVector<int64_t>({1, 4}, TensorShape({2, 1}))});
}

TEST_CASE("FixedUnigramCandidateSampler reads a vocabulary file's last "
          "column, with TensorFlow's numbers",
          "[rng2]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "dfx_rng2_vocab_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "vocab.csv").string();
  {
    std::ofstream f(path);
    f << "the,7\nof,3.5\ncat,1\n\"a,b\",2\nzebra,0.25\r\nx,9\nyy,4\nzz,0.5\n";
  }
  const std::vector<float> weights = {7, 3.5, 1, 2, 0.25, 9, 4, 0.5};
  absl::StatusOr<std::vector<Tensor>> from_file = RunFixed(path, {}, 8);
  absl::StatusOr<std::vector<Tensor>> from_attr = RunFixed("", weights, 8);
  REQUIRE(from_file.ok());
  REQUIRE(from_attr.ok());
  // TensorFlow 2.21's outputs for this file and these attrs.
  auto values = [](const Tensor& t, auto zero) {
    using T = decltype(zero);
    return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
  };
  CHECK(values((*from_file)[0], int64_t{0}) ==
        std::vector<int64_t>{5, 0, 1, 3, 2, 6});
  CHECK(values((*from_file)[1], 0.0f) ==
        std::vector<float>{0x1.cce2ap-1f, 0x1.c3d154p-2f});
  CHECK(values((*from_file)[2], 0.0f) ==
        std::vector<float>{0x1.f583a4p-1f, 0x1.ee727ap-1f, 0x1.cce2ap-1f,
                           0x1.a33e6p-1f, 0x1.63da54p-1f, 0x1.d500f6p-1f});
  for (int i = 0; i < 3; ++i) {
    CHECK(std::memcmp((*from_file)[i].raw_data(), (*from_attr)[i].raw_data(),
                      (*from_file)[i].TotalBytes()) == 0);
  }
  // Reserved ids come first, with weight 0.
  absl::StatusOr<std::vector<Tensor>> reserved = RunFixed(path, {}, 10, 2);
  REQUIRE(reserved.ok());
  CHECK(values((*reserved)[0], int64_t{0}) ==
        std::vector<int64_t>{2, 7, 6, 5, 9, 3});
  CHECK(values((*reserved)[1], 0.0f) == std::vector<float>{0, 0x1.6fbcf4p-1f});
  CHECK(values((*reserved)[2], 0.0f) ==
        std::vector<float>{0x1.f1fb64p-1f, 0x1.f7e89cp-1f, 0x1.d997fep-2f,
                           0x1.ad3a72p-1f, 0x1.2cbb14p-1f, 0x1.d429f8p-1f});
  // Unique samples need as many values of nonzero weight (TensorFlow
  // draws until it aborts).
  CHECK_THAT(RunFixed("", {1, 0, 2, 0, 0, 3, 0, 1}, 8).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "4 values have a nonzero weight, 6 unique ones"));
  CHECK_THAT(RunFixed(path, {}, 9).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "range is 9 must be equal to weights size  8"));
  {
    std::ofstream f(path);
    f << "the,7\nof,x\n";
  }
  CHECK_THAT(RunFixed(path, {}, 2).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Wrong vocabulary format at line: of,x"));
  CHECK_THAT(RunFixed((dir / "missing.csv").string(), {}, 2).status(),
             StatusIs(absl::StatusCode::kNotFound));
  std::filesystem::remove_all(dir);
}

TEST_CASE("RandomIndexShuffle permutes [0, max_index] and refuses odd or "
          "few rounds",
          "[rng2]") {
  auto node = [](int64_t rounds) {
    return TestNodeBuilder("r", "RandomIndexShuffle", 3)
        .Attr("dtype", DT_INT64)
        .Attr("Tseed", DT_INT64)
        .Attr("rounds", rounds)
        .Build();
  };
  std::vector<int64_t> all(1000);
  for (int64_t i = 0; i < 1000; ++i) all[i] = i;
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(node(6), {Tensor::FromVector<int64_t>(all),
                          Tensor::FromVector<int64_t>({5, 6, 7}),
                          Tensor::Scalar<int64_t>(999)});
  REQUIRE(out.ok());
  const int64_t* v = (*out)[0].data<int64_t>();
  CHECK(std::set<int64_t>(v, v + 1000).size() == 1000);
  CHECK(*std::max_element(v, v + 1000) == 999);
  for (int64_t rounds : {2, 5}) {
    CHECK_THAT(RunKernel(node(rounds), {Tensor::Scalar<int64_t>(1),
                                        Tensor::FromVector<int64_t>({1, 2, 3}),
                                        Tensor::Scalar<int64_t>(10)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "rounds must be even and >= 4"));
  }
}

}  // namespace
}  // namespace dfx

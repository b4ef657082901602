// SparseCross (kernels/sparse/sparse_cross_op.cc) and the FarmHash
// Fingerprint64 it hashes strings with: fingerprints TensorFlow's
// tf.fingerprint gives, string crosses (golden cases fetch no strings) and
// errors. Hashed crosses are checked against TensorFlow by the "sparse"
// golden family.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/fingerprint.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

// The strings tf.fingerprint was given: a few words, then byte patterns
// (byte j of string i is (7 * i + j) % 256) of lengths covering every
// branch of the algorithm.
std::string Pattern(int i, int n) {
  std::string s;
  for (int j = 0; j < n; ++j) s.push_back(static_cast<char>((i * 7 + j) % 256));
  return s;
}

TEST_CASE("Fingerprint64 equals TensorFlow's tf.fingerprint", "[sparse]") {
  std::vector<std::string> inputs = {"",         "a",
                                     "ab",       "abc",
                                     "abcd",     "hello",
                                     "abcdefgh", "0123456789abcdef",
                                     "0123456789abcdefg"};
  const int lengths[] = {20, 31, 32, 33, 50, 64, 65, 100, 128, 129, 200, 1000};
  for (int i = 0; i < 12; ++i) inputs.push_back(Pattern(i, lengths[i]));
  // tf.fingerprint(inputs), read as little-endian uint64.
  const struct {
    size_t length;
    uint64_t fingerprint;
  } want[] = {
      {0, 11160318154034397263ULL},
      {1, 12917804110809363939ULL},
      {2, 12289600257749001502ULL},
      {3, 2640714258260161385ULL},
      {4, 1897425971756105985ULL},
      {5, 13009744463427800296ULL},
      {8, 18368443631171807497ULL},
      {16, 6105018409752412263ULL},
      {17, 12024047538191061578ULL},
      {20, 10220892904819695849ULL},
      {31, 831534754889776975ULL},
      {32, 16784640523150121514ULL},
      {33, 2456285825711331722ULL},
      {50, 8176548841716398071ULL},
      {64, 9474528711478482478ULL},
      {65, 10948843675955110337ULL},
      {100, 11483485185101039195ULL},
      {128, 6274811956048194820ULL},
      {129, 10184454173797667703ULL},
      {200, 15918167985314421996ULL},
      {1000, 14680839535204147110ULL},
  };
  REQUIRE(inputs.size() == std::size(want));
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("string " << i << " of length " << inputs[i].size());
    REQUIRE(inputs[i].size() == want[i].length);
    CHECK(Fingerprint64(inputs[i]) == want[i].fingerprint);
  }
}

NodeDef Cross(bool hashed, int n_sparse, DataTypeVector sparse_types,
              DataTypeVector dense_types) {
  const DataType out = hashed ? DT_INT64 : DT_STRING;
  return TestNodeBuilder("c", "SparseCross",
                         3 * n_sparse + static_cast<int>(dense_types.size()))
      .Attr("N", n_sparse)
      .Attr("hashed_output", hashed)
      .Attr("num_buckets", 0)
      .Attr("hash_key", 0)
      .Attr("sparse_types", sparse_types)
      .Attr("dense_types", dense_types)
      .Attr("out_type", out)
      .Attr("internal_type", out)
      .Build();
}

TEST_CASE("SparseCross joins string crosses with _X_, last column fastest",
          "[sparse]") {
  Tensor words(DT_STRING, TensorShape({3}));
  words.data<std::string>()[0] = "a";
  words.data<std::string>()[1] = "b";
  words.data<std::string>()[2] = "c";
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      Cross(false, 1, {DT_STRING}, {DT_INT64}),
      {MakeTensor<int64_t>({0, 0, 0, 1, 2, 0}, TensorShape({3, 2})), words,
       MakeVector<int64_t>({3, 2}),
       MakeTensor<int64_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}))});
  REQUIRE(out.ok());
  // Row 1 has no words: no crosses.
  REQUIRE(Values<std::string>((*out)[1]) ==
          std::vector<std::string>({"a_X_1", "a_X_2", "b_X_1", "b_X_2",
                                    "c_X_5", "c_X_6"}));
  REQUIRE(Values<int64_t>((*out)[0]) ==
          std::vector<int64_t>({0, 0, 0, 1, 0, 2, 0, 3, 2, 0, 2, 1}));
  REQUIRE(Values<int64_t>((*out)[2]) == std::vector<int64_t>({3, 4}));
}

TEST_CASE("SparseCross rejects mismatched batches and bad rows", "[sparse]") {
  const NodeDef node = Cross(true, 1, {DT_INT64}, {DT_INT64});
  const Tensor ind = MakeTensor<int64_t>({0, 0, 1, 0}, TensorShape({2, 2}));
  const Tensor vals = MakeVector<int64_t>({4, 5});
  REQUIRE_THAT(RunKernel(node, {ind, vals, MakeVector<int64_t>({2, 1}),
                                MakeTensor<int64_t>({1, 2, 3}, TensorShape({3, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Expected batch size 2 got 3"));
  REQUIRE_THAT(RunKernel(node, {MakeTensor<int64_t>({0, 0, 5, 0}, TensorShape({2, 2})),
                                vals, MakeVector<int64_t>({2, 1}),
                                MakeTensor<int64_t>({1, 2}, TensorShape({2, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Invalid batch index 5"));
  REQUIRE_THAT(RunKernel(node, {ind, MakeVector<int64_t>({4}),
                                MakeVector<int64_t>({2, 1}),
                                MakeTensor<int64_t>({1, 2}, TensorShape({2, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Expected size of values to be 2 but got 1"));
}

}  // namespace
}  // namespace dfx

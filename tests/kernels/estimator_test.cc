// The estimator family's ops (tests/golden/gen_estimator.py: k-means
// sampling and nearest centers, GenerateVocabRemapping, SdcaFprint,
// SdcaShrinkL1): TensorFlow 2.21's signatures and CPU kernel types, shape
// functions, the bad inputs TensorFlow's own kernels abort on, and the
// vocabulary files kept inside a server's --data-dir.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.span<float>().begin(), t.span<float>().end());
}

TEST_CASE("Every estimator op has TensorFlow 2.21's signature and CPU types",
          "[estimator]") {
  testing::CheckSignaturesWithTensorFlow("estimator", 8);
}

TEST_CASE("Estimator shape functions", "[estimator]") {
  const PartialShape scalar = PartialShape::Known({});
  const NodeDef kmpp =
      TestNodeBuilder("k", "KmeansPlusPlusInitialization", 4).Build();
  CHECK(Str(InferShape(
            kmpp, {PartialShape::Known({7, 3}), scalar, scalar, scalar})) ==
        PartialShape::Known({-1, 3}).DebugString());
  CHECK_THAT(
      InferShape(kmpp, {PartialShape::Known({7}), scalar, scalar, scalar})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef nn = TestNodeBuilder("n", "NearestNeighbors", 3).Build();
  const absl::StatusOr<PartialShape> nn_out = InferShape(
      nn, {PartialShape::Known({5, 2}), PartialShape::Known({3, 2}), scalar});
  CHECK(Str(nn_out) == PartialShape::Known({5, -1}).DebugString());
  CHECK_THAT(
      InferShape(nn, {PartialShape::Known({5, 2}), PartialShape::Known({3, 2}),
                      PartialShape::Known({1})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef fp = TestNodeBuilder("f", "SdcaFprint", 1).Build();
  CHECK(Str(InferShape(fp, {PartialShape::Known({4})})) ==
        PartialShape::Known({4, 2}).DebugString());
  CHECK_THAT(InferShape(fp, {PartialShape::Known({4, 1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef remap = TestNodeBuilder("r", "GenerateVocabRemapping", 2)
                            .Attr("new_vocab_offset", int64_t{2})
                            .Attr("num_new_vocab", int64_t{5})
                            .Build();
  CHECK(Str(InferShape(remap, {scalar, scalar})) ==
        PartialShape::Known({5}).DebugString());
  CHECK_THAT(InferShape(remap, {PartialShape::Known({1}), scalar}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "LoadAndRemapMatrix gives a num_rows x num_cols matrix and rejects the "
    "inputs TensorFlow aborts on",
    "[estimator]") {
  const PartialShape scalar = PartialShape::Known({});
  const NodeDef load = TestNodeBuilder("load", "LoadAndRemapMatrix", 5)
                           .Attr("num_rows", int64_t{3})
                           .Attr("num_cols", int64_t{2})
                           .Build();
  const PartialShape vec = PartialShape::Known({-1});
  CHECK(Str(InferShape(load, {scalar, scalar, vec, vec, vec})) ==
        PartialShape::Known({3, 2}).DebugString());
  CHECK_THAT(
      InferShape(load, {scalar, scalar, PartialShape::Known({1, 3}), vec, vec})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  const Tensor rows = Tensor::FromVector<int64_t>({0, 1, 2});
  const Tensor init = Tensor::FromVector<float>({});
  // A matrix of column ids and a vector of tensor names: TensorFlow's
  // kernel reads both without checking their shapes.
  CHECK_THAT(
      RunKernel(load, {Tensor::Scalar<std::string>("ckpt"),
                       Tensor::Scalar<std::string>("m"), rows,
                       Tensor::FromVector<int64_t>({0, 1}, TensorShape({1, 2})),
                       init})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "col_remapping"));
  CHECK_THAT(RunKernel(load, {Tensor::Scalar<std::string>("ckpt"),
                              Tensor::FromVector<std::string>({"m", "n"}), rows,
                              Tensor::FromVector<int64_t>({}), init})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "old_tensor_name"));
  // A checkpoint outside the server's data directory.
  const testing::TempDir data, other;
  REQUIRE(SetDataDir(data.path()).ok());
  const absl::Status outside =
      RunKernel(load, {Tensor::Scalar<std::string>(other.File("ckpt")),
                       Tensor::Scalar<std::string>("m"), rows,
                       Tensor::FromVector<int64_t>({}), init})
          .status();
  REQUIRE(SetDataDir("").ok());
  CHECK_THAT(outside, StatusIs(absl::StatusCode::kPermissionDenied, "load"));
}

TEST_CASE("NearestNeighbors rejects a negative k that TensorFlow aborts on",
          "[estimator]") {
  const NodeDef nn = TestNodeBuilder("n", "NearestNeighbors", 3).Build();
  const Tensor points =
      Tensor::FromVector<float>({0, 0, 1, 1}, TensorShape({2, 2}));
  const Tensor centers =
      Tensor::FromVector<float>({1, 0, 0, 1}, TensorShape({2, 2}));
  CHECK_THAT(
      RunKernel(nn, {points, centers, Tensor::Scalar<int64_t>(-1)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Expected k >= 0."));
  auto out = RunKernel(nn, {points, centers, Tensor::Scalar<int64_t>(1)});
  REQUIRE(out.ok());
  // Both centers are at squared distance 1 from (0, 0): the first wins.
  CHECK(out->at(0).data<int64_t>()[0] == 0);
  CHECK(Floats(out->at(1)) == std::vector<float>{1, 1});
}

TEST_CASE("KmeansPlusPlusInitialization samples the same points for a seed",
          "[estimator]") {
  const NodeDef kmpp =
      TestNodeBuilder("k", "KmeansPlusPlusInitialization", 4).Build();
  std::vector<float> coords;
  for (int i = 0; i < 40; ++i) coords.push_back(static_cast<float>(i * i % 17));
  const Tensor points = Tensor::FromVector<float>(coords, TensorShape({20, 2}));
  auto run = [&](int64_t seed) {
    return RunKernel(
        kmpp, {points, Tensor::Scalar<int64_t>(5),
               Tensor::Scalar<int64_t>(seed), Tensor::Scalar<int64_t>(-1)});
  };
  auto a = run(3), b = run(3);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(Floats(a->at(0)) == Floats(b->at(0)));
  CHECK(a->at(0).shape() == TensorShape({5, 2}));
}

TEST_CASE("SdcaFprint equals TensorFlow's 128-bit fingerprint bit for bit",
          "[estimator]") {
  // The golden cases compare int64 outputs through doubles, which cannot
  // see a last-bit difference; these are TensorFlow 2.21's exact values.
  const NodeDef fp = TestNodeBuilder("f", "SdcaFprint", 1).Build();
  auto out = RunKernel(
      fp, {Tensor::FromVector<std::string>(
              {"", "hello", std::string(17, 'z'), std::string(300, 'n')})});
  REQUIRE(out.ok());
  const std::vector<int64_t> want = {
      4463240938071824939LL,  4374473821787594281LL,  8030732511675000650LL,
      7283604105673962311LL,  -4479139575307064345LL, 4082562840529646226LL,
      -6504320636626125149LL, -5725835774456939679LL};
  CHECK(std::vector<int64_t>(out->at(0).span<int64_t>().begin(),
                             out->at(0).span<int64_t>().end()) == want);
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST_CASE("GenerateVocabRemapping reads vocabularies only inside --data-dir",
          "[estimator]") {
  const testing::TempDir data, other;
  WriteFile(fs::path(data.path()) / "new.txt", "a\nb\nc\n");
  WriteFile(fs::path(data.path()) / "old.txt", "c\na\n");
  WriteFile(fs::path(other.path()) / "old.txt", "c\na\n");
  const NodeDef remap = TestNodeBuilder("remap", "GenerateVocabRemapping", 2)
                            .Attr("new_vocab_offset", int64_t{0})
                            .Attr("num_new_vocab", int64_t{3})
                            .Build();
  REQUIRE(SetDataDir(data.path()).ok());
  auto out = RunKernel(remap, {Tensor::Scalar<std::string>("new.txt"),
                               Tensor::Scalar<std::string>("old.txt")});
  const auto outside =
      RunKernel(remap, {Tensor::Scalar<std::string>("new.txt"),
                        Tensor::Scalar<std::string>(other.File("old.txt"))});
  REQUIRE(SetDataDir("").ok());
  REQUIRE(out.ok());
  CHECK(std::vector<int64_t>(out->at(0).span<int64_t>().begin(),
                             out->at(0).span<int64_t>().end()) ==
        std::vector<int64_t>{1, -1, 0});
  CHECK(out->at(1).scalar<int32_t>() == 2);
  CHECK_THAT(outside.status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "remap"));
}

}  // namespace
}  // namespace dfx

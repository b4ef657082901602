// The estimator family's ops (tests/golden/gen_estimator.py: k-means
// sampling and nearest centers, GenerateVocabRemapping, SdcaFprint,
// SdcaShrinkL1, LoadAndRemapMatrix, Skipgram, NegTrain): TensorFlow 2.21's
// signatures and CPU kernel types, shape functions, the bad inputs TensorFlow's
// own kernels abort on, and the vocabulary files kept inside a server's
// --data-dir.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/kernels/training_test_util.h"
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
  testing::CheckSignaturesWithTensorFlow("estimator", 9);
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

int64_t Checksum(const Tensor& t) {
  int64_t sum = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    sum += (i + 1) * int64_t{t.data<int32_t>()[i]};
  }
  return sum;
}

template <typename T>
std::vector<T> Values(const Tensor& t, size_t n) {
  const T* p = t.data<T>();
  return std::vector<T>(p, p + std::min<size_t>(n, t.NumElements()));
}

TEST_CASE("Skipgram's batches equal TensorFlow's for the same corpus",
          "[estimator]") {
  // skipgram_tf.txt holds TensorFlow's answer (gen_estimator.py): a
  // golden case cannot name its corpus, which the filename attr holds.
  const std::string dir =
      std::string(DFX_TEST_DATA_DIR) + "/../golden/data/estimator/";
  std::ifstream ref(dir + "skipgram_tf.txt");
  REQUIRE(ref.good());
  std::vector<std::string> words;
  std::vector<int32_t> freqs;
  struct Step {
    int64_t words, epoch, processed, ex_sum, lb_sum;
    std::vector<int32_t> ex, lb;
  };
  std::vector<Step> steps;
  std::string line;
  while (std::getline(ref, line)) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "vocab_word") {
      for (std::string w; in >> w;) words.push_back(w);
    } else if (key == "vocab_freq") {
      for (int32_t v; in >> v;) freqs.push_back(v);
    } else if (key == "step") {
      Step s;
      in >> s.words >> s.epoch >> s.processed >> s.ex_sum >> s.lb_sum;
      steps.push_back(s);
    } else if (key == "examples" || key == "labels") {
      REQUIRE(!steps.empty());
      auto& v = key == "examples" ? steps.back().ex : steps.back().lb;
      for (int32_t x; in >> x;) v.push_back(x);
    }
  }
  REQUIRE(steps.size() == 3);

  const NodeDef node =
      TestNodeBuilder("skipgram", "Skipgram", 0)
          .Attr("filename", (dir + "skipgram_corpus.txt").c_str())
          .Attr("batch_size", int64_t{1100})
          .Attr("window_size", int64_t{3})
          .Attr("min_count", int64_t{2})
          .Attr("subsample", 0.01f)
          .Build();
  const OpRegistrationData* op = OpRegistry::Global()->LookUp("Skipgram");
  REQUIRE(op != nullptr);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      StandardKernelRegistry()->CreateKernel(node, op->op_def,
                                             testing::TestCpuDevice());
  REQUIRE(kernel.ok());
  for (const Step& want : steps) {
    OpKernelContext::Params params;
    params.op_kernel = kernel->get();
    params.device = testing::TestCpuDevice();
    OpKernelContext ctx(&params);
    (*kernel)->Compute(&ctx);
    REQUIRE(ctx.status().ok());
    const auto& out = *ctx.mutable_outputs();
    CHECK(Values<std::string>(out[0], words.size() + 1) == words);
    CHECK(Values<int32_t>(out[1], freqs.size() + 1) == freqs);
    CHECK(out[2].scalar<int64_t>() == want.words);
    CHECK(out[3].scalar<int32_t>() == want.epoch);
    CHECK(out[4].scalar<int64_t>() == want.processed);
    CHECK(Values<int32_t>(out[5], want.ex.size()) == want.ex);
    CHECK(Values<int32_t>(out[6], want.lb.size()) == want.lb);
    CHECK(Checksum(out[5]) == want.ex_sum);
    CHECK(Checksum(out[6]) == want.lb_sum);
  }
}

TEST_CASE("Skipgram refuses an empty corpus that TensorFlow reads past",
          "[estimator]") {
  const testing::TempDir tmp;
  WriteFile(tmp.File("empty.txt"), " \n\t ");
  const NodeDef node = TestNodeBuilder("skipgram", "Skipgram", 0)
                           .Attr("filename", tmp.File("empty.txt").c_str())
                           .Attr("batch_size", int64_t{4})
                           .Attr("window_size", int64_t{0})
                           .Build();
  const OpRegistrationData* op = OpRegistry::Global()->LookUp("Skipgram");
  REQUIRE(op != nullptr);
  NodeDef full = node;
  AddDefaultAttrs(op->op_def, &full);
  CHECK_THAT(StandardKernelRegistry()
                 ->CreateKernel(full, op->op_def, testing::TestCpuDevice())
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "contains too little data: 0 words"));
}

TEST_CASE(
    "NegTrain draws negatives only among counted words and rejects ids "
    "outside the vocabulary",
    "[estimator]") {
  const NodeDef node =
      TestNodeBuilder("neg", "NegTrain", 5)
          .Attr("vocab_count", std::vector<int64_t>{0, 5, 0, 5})
          .Attr("num_negative_samples", int64_t{16})
          .Build();
  std::vector<float> init(8);
  for (int i = 0; i < 8; ++i) init[i] = 0.1f * static_cast<float>(i + 1);
  testing::RefVariable w_in(
      Tensor::FromVector<float>(init, TensorShape({4, 2})));
  testing::RefVariable w_out(
      Tensor::FromVector<float>(init, TensorShape({4, 2})));
  const Tensor lr = Tensor::Scalar<float>(0.5f);
  testing::TrainingRun run = testing::RunTraining(
      node,
      {Tensor(), Tensor(), Tensor::FromVector<int32_t>({0, 2}),
       Tensor::FromVector<int32_t>({1, 1}), lr},
      {w_in.ref(), w_out.ref(), TensorRef{}, TensorRef{}, TensorRef{}});
  REQUIRE(run.status.ok());
  const std::vector<float> out = Floats(w_out.tensor);
  // Words 0 and 2 have no count: never drawn, never labels, unchanged.
  CHECK(out[0] == init[0]);
  CHECK(out[1] == init[1]);
  CHECK(out[4] == init[4]);
  CHECK(out[5] == init[5]);
  // Word 3 is drawn (word 1, the label, is skipped when drawn).
  CHECK(out[6] != init[6]);
  CHECK(Floats(w_in.tensor)[0] != init[0]);

  run = testing::RunTraining(
      node,
      {Tensor(), Tensor(), Tensor::FromVector<int32_t>({4}),
       Tensor::FromVector<int32_t>({1}), lr},
      {w_in.ref(), w_out.ref(), TensorRef{}, TensorRef{}, TensorRef{}});
  CHECK_THAT(run.status,
             StatusIs(absl::StatusCode::kInvalidArgument, "must be in [0, 4)"));
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

// Checkpoints written by TensorFlow 2.21 (tests/golden/gen_checkpoint.py:
// tf.compat.v1.train.Saver, sharded and not, and raw SaveV2 of every dtype)
// read by dfx: with BundleReader, and through RestoreV2 in a dfx session,
// every value equal to the bytes TensorFlow recorded. And dfx's writer,
// given the same tensors in the same order, writes the same bytes.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "checkpoint/tensor_bundle.h"
#include "nlohmann/json.hpp"
#include "tests/checkpoint/checkpoint_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::GraphBuilder;
using ::dfx::testing::IsOk;
using ::dfx::testing::ReadBytes;
using ::dfx::testing::RunGraph;
using ::dfx::testing::SameTensor;
using ::dfx::testing::TempDir;
using ::dfx::testing::TypeListAttr;

const std::string kDataDir = DFX_TEST_DATA_DIR "/../checkpoint/data/tf";

nlohmann::json Expected() {
  std::ifstream in(kDataDir + "/expected.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

std::string Unhex(const std::string& hex) {
  return absl::HexStringToBytes(hex);
}

// The tensor TensorFlow recorded in expected.json.
Tensor ExpectedTensor(const nlohmann::json& spec) {
  const auto dtype = static_cast<DataType>(spec["dtype"].get<int>());
  std::vector<int64_t> dims = spec["shape"];
  auto shape = TensorShape::Build(dims);
  REQUIRE(shape.ok());
  Tensor t(dtype, *shape);
  if (dtype == DT_STRING) {
    const auto& strings = spec["strings_hex"];
    REQUIRE(static_cast<int64_t>(strings.size()) == t.NumElements());
    for (size_t i = 0; i < strings.size(); ++i) {
      t.data<std::string>()[i] = Unhex(strings[i].get<std::string>());
    }
  } else {
    const std::string bytes = Unhex(spec["hex"].get<std::string>());
    REQUIRE(bytes.size() == t.TotalBytes());
    std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  }
  return t;
}

TEST_CASE("tf checkpoints: BundleReader reads what TensorFlow wrote") {
  const nlohmann::json expected = Expected();
  REQUIRE(expected.size() == 3);
  for (const auto& [prefix_name, tensors] : expected.items()) {
    INFO("checkpoint " << prefix_name);
    const std::string prefix = kDataDir + "/" + prefix_name;
    auto reader = BundleReader::Open(prefix);
    REQUIRE_THAT(reader.status(), IsOk());
    CHECK((*reader)->num_shards() ==
          (prefix_name == "saver_sharded/model.ckpt" ? 2 : 1));
    std::vector<std::string> keys;
    for (const auto& [key, spec] : tensors.items()) keys.push_back(key);
    CHECK((*reader)->Keys() == keys);  // json keys are sorted, as bundles'
    for (const auto& [key, spec] : tensors.items()) {
      INFO("tensor " << key);
      auto got = (*reader)->Lookup(key);
      REQUIRE_THAT(got.status(), IsOk());
      CHECK(SameTensor(*got, ExpectedTensor(spec)));
    }
  }
}

TEST_CASE("tf checkpoints: RestoreV2 in a dfx session restores every value") {
  const nlohmann::json expected = Expected();
  for (const auto& [prefix_name, tensors] : expected.items()) {
    INFO("checkpoint " << prefix_name);
    std::vector<std::string> names;
    std::vector<DataType> dtypes;
    std::vector<Tensor> want;
    for (const auto& [key, spec] : tensors.items()) {
      names.push_back(key);
      want.push_back(ExpectedTensor(spec));
      dtypes.push_back(want.back().dtype());
    }
    GraphBuilder g;
    g.Node("restore", "RestoreV2",
           {g.ScalarString("prefix", kDataDir + "/" + prefix_name),
            g.StringConst("names", names),
            g.StringConst("specs", std::vector<std::string>(names.size()))},
           {{"dtypes", TypeListAttr(dtypes)}});
    std::vector<std::string> fetches;
    for (size_t i = 0; i < names.size(); ++i) {
      fetches.push_back(absl::StrCat("restore:", i));
    }
    auto got = RunGraph(g.graph(), fetches);
    REQUIRE_THAT(got.status(), IsOk());
    for (size_t i = 0; i < names.size(); ++i) {
      INFO("tensor " << names[i]);
      CHECK(SameTensor((*got)[i], want[i]));
    }
  }
}

TEST_CASE("tf checkpoints: dfx writes the same bytes as TensorFlow") {
  // Single-shard checkpoints: add the tensors in TensorFlow's data-file
  // order; the data and index files must come out byte for byte equal.
  for (const std::string name : {"saver/model.ckpt", "raw/all_dtypes"}) {
    INFO("checkpoint " << name);
    const std::string tf_prefix = kDataDir + "/" + name;
    auto reader = BundleReader::Open(tf_prefix);
    REQUIRE_THAT(reader.status(), IsOk());
    std::vector<std::string> keys = (*reader)->Keys();
    std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
      return (*reader)->GetEntry(a)->offset() <
             (*reader)->GetEntry(b)->offset();
    });
    TempDir dir;
    auto writer = BundleWriter::Create(dir / "copy");
    REQUIRE_THAT(writer.status(), IsOk());
    for (const std::string& key : keys) {
      auto t = (*reader)->Lookup(key);
      REQUIRE_THAT(t.status(), IsOk());
      REQUIRE_THAT((*writer)->Add(key, *t), IsOk());
    }
    REQUIRE_THAT((*writer)->Finish(), IsOk());
    CHECK(ReadBytes(DataFilename(dir / "copy", 0, 1)) ==
          ReadBytes(DataFilename(tf_prefix, 0, 1)));
    CHECK(ReadBytes(MetaFilename(dir / "copy")) ==
          ReadBytes(MetaFilename(tf_prefix)));
  }
}

}  // namespace
}  // namespace dfx

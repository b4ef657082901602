// The proto family's ops (tests/golden/gen_proto.py: DecodeJSONExample,
// DecodeProtoV2, EncodeProto): TensorFlow 2.21's signatures and CPU kernel
// types, the shape functions, what the goldens cannot carry (a
// descriptor_source naming a file, confined by --data-dir; dfx's local
// pool), negative sizes, and corrupt input that must fail cleanly.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/descriptor.pb.h"
#include "graph/node_def_util.h"
#include "proto/example.pb.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::RunKernel;
using testing::ShapesString;
using testing::StatusIs;
using testing::TestNodeBuilder;

void SetStrings(NodeDef* def, const std::string& attr,
                const std::vector<std::string>& values) {
  auto* list = (*def->mutable_attr())[attr].mutable_list();
  list->clear_s();
  for (const std::string& v : values) list->add_s(v);
}

void SetString(NodeDef* def, const std::string& attr, const std::string& v) {
  (*def->mutable_attr())[attr].set_s(v);
}

NodeDef DecodeNode(const std::string& type,
                   const std::vector<std::string>& fields,
                   const DataTypeVector& types,
                   const std::string& source = "local://") {
  NodeDef def = TestNodeBuilder("decode", "DecodeProtoV2", 1)
                    .Attr("output_types", types)
                    .Build();
  SetString(&def, "message_type", type);
  SetString(&def, "descriptor_source", source);
  SetStrings(&def, "field_names", fields);
  return def;
}

NodeDef EncodeNode(const std::string& type,
                   const std::vector<std::string>& fields,
                   const DataTypeVector& types) {
  NodeDef def = TestNodeBuilder("encode", "EncodeProto", 1 + types.size())
                    .Attr("Tinput_types", types)
                    .Build();
  SetString(&def, "message_type", type);
  SetStrings(&def, "field_names", fields);
  return def;
}

Tensor Strings(const std::vector<std::string>& v) {
  return Tensor::FromVector<std::string>(v);
}

// An Example holding one int64 feature "a".
std::string ExampleBytes(const std::vector<int64_t>& values) {
  dfx::Example ex;
  auto& list =
      *(*ex.mutable_features()->mutable_feature())["a"].mutable_int64_list();
  for (int64_t v : values) list.add_value(v);
  return ex.SerializeAsString();
}

// example.proto's FileDescriptorSet, as a file a graph may name.
std::string ExampleDescriptorSet() {
  google::protobuf::FileDescriptorSet set;
  dfx::Example::descriptor()->file()->CopyTo(set.add_file());
  return set.SerializeAsString();
}

void WriteFile(const std::filesystem::path& p, const std::string& data) {
  std::ofstream(p, std::ios::binary) << data;
}

TEST_CASE("Every proto op has TensorFlow 2.21's signature and CPU types",
          "[proto]") {
  testing::CheckSignaturesWithTensorFlow("proto", 3);
}

TEST_CASE("Proto shape functions: sizes and values follow the input's shape",
          "[proto]") {
  const NodeDef decode =
      DecodeNode("dfx.Int64List", {"value", "value"}, {DT_INT64, DT_INT64});
  CHECK(ShapesString(InferShapes(decode, {PartialShape::Known({2, 3})})) ==
        "[2,3,2][2,3,?][2,3,?]");
  CHECK(ShapesString(InferShapes(decode, {PartialShape::Unknown()})) ==
        "<unknown><unknown><unknown>");
  const NodeDef encode = EncodeNode("dfx.Int64List", {"value"}, {DT_INT64});
  CHECK(ShapesString(InferShapes(encode, {PartialShape::Known({4, 1}),
                                          PartialShape::Known({4, 2})})) ==
        "[4]");
  CHECK_THAT(
      InferShapes(encode, {PartialShape::Scalar(), PartialShape::Known({4, 2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "node 'encode'"));
  const NodeDef json = TestNodeBuilder("json", "DecodeJSONExample", 1).Build();
  CHECK(ShapesString(InferShapes(json, {PartialShape::Known({5, 1})})) ==
        "[5,1]");
}

TEST_CASE("local:// resolves dfx's protos, and tensorflow.X names to dfx.X",
          "[proto]") {
  for (const char* type : {"dfx.Example", "tensorflow.Example"}) {
    absl::StatusOr<std::vector<Tensor>> out =
        RunKernel(DecodeNode(type, {"features"}, {DT_STRING}),
                  {Strings({ExampleBytes({1, 2})})});
    REQUIRE_OK(out.status());
    CHECK((*out)[0].data<int32_t>()[0] == 1);
  }
  CHECK_THAT(
      RunKernel(DecodeNode("tensorflow.NoSuchMessage", {"x"}, {DT_INT32}),
                {Strings({""})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "No descriptor found for message type"));
}

TEST_CASE("A descriptor_source file is read through the data directory",
          "[proto]") {
  const testing::TempDir data;
  const testing::TempDir outside;
  WriteFile(data.File("ex.desc"), ExampleDescriptorSet());
  WriteFile(outside.File("ex.desc"), ExampleDescriptorSet());
  WriteFile(data.File("junk.desc"), std::string("\x0a\x05", 2) + "ab");
  const std::vector<Tensor> in = {Strings({ExampleBytes({7})})};

  // Without a data directory, any path.
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(DecodeNode("dfx.Example", {"features"}, {DT_STRING},
                           outside.File("ex.desc")),
                in);
  REQUIRE_OK(out.status());
  CHECK((*out)[0].data<int32_t>()[0] == 1);

  REQUIRE_OK(SetDataDir(data.path()));
  // A relative path names a file under it; paths outside are refused.
  CHECK(RunKernel(
            DecodeNode("dfx.Example", {"features"}, {DT_STRING}, "ex.desc"), in)
            .ok());
  CHECK_THAT(RunKernel(DecodeNode("dfx.Example", {"features"}, {DT_STRING},
                                  outside.File("ex.desc")),
                       in)
                 .status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "node 'decode'"));
  NodeDef enc = EncodeNode("dfx.Int64List", {"value"}, {DT_INT64});
  SetString(&enc, "descriptor_source", outside.File("ex.desc"));
  Tensor sizes(DT_INT32, TensorShape({1, 1}));
  sizes.data<int32_t>()[0] = 1;
  Tensor values(DT_INT64, TensorShape({1, 1}));
  values.data<int64_t>()[0] = 3;
  CHECK_THAT(RunKernel(enc, {sizes, values}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  // A missing file is TensorFlow's "not a descriptor set"; a file that is
  // not one says so.
  CHECK_THAT(RunKernel(DecodeNode("dfx.Example", {"features"}, {DT_STRING},
                                  "missing.desc"),
                       in)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Source does not represent"));
  CHECK_THAT(
      RunKernel(
          DecodeNode("dfx.Example", {"features"}, {DT_STRING}, "junk.desc"), in)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "invalid FileDescriptorSet"));
  REQUIRE_OK(SetDataDir(""));
}

TEST_CASE("EncodeProto refuses negative sizes", "[proto]") {
  Tensor sizes(DT_INT32, TensorShape({1, 1}));
  sizes.data<int32_t>()[0] = -1;
  Tensor values(DT_INT64, TensorShape({1, 2}));
  CHECK_THAT(
      RunKernel(EncodeNode("dfx.Int64List", {"value"}, {DT_INT64}),
                {sizes, values})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "must not be negative"));
}

TEST_CASE("DecodeJSONExample's errors say which element", "[proto]") {
  const NodeDef json = TestNodeBuilder("json", "DecodeJSONExample", 1).Build();
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      json, {Strings({"{\"features\": {\"feature\": {\"a\": {\"int64List\": "
                      "{\"value\": [\"5\"]}}}}}"})});
  REQUIRE_OK(out.status());
  // Protobuf's JSON parser writes repeated numbers unpacked, as
  // TensorFlow's bytes have them (the golden cases compare those).
  dfx::Example parsed;
  REQUIRE(parsed.ParseFromString((*out)[0].data<std::string>()[0]));
  CHECK(parsed.SerializeAsString() == ExampleBytes({5}));
  CHECK_THAT(
      RunKernel(json, {Strings({"{}", "{\"features\": 3}"})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Error while parsing JSON"));
  CHECK_THAT(RunKernel(json, {Strings({"{}", "{\"features\": 3}"})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "element 1"));
}

TEST_CASE("Random and truncated bytes decode or fail with DataLoss",
          "[proto]") {
  const NodeDef decode = DecodeNode("dfx.Example", {"features"}, {DT_STRING});
  const NodeDef list = DecodeNode("dfx.FloatList", {"value"}, {DT_FLOAT});
  std::mt19937 gen(7);
  const std::string good = ExampleBytes({1, 2, 300, -4});
  int failures = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bytes;
    if (i < static_cast<int>(good.size())) {
      bytes = good.substr(0, i);
    } else {
      bytes.resize(gen() % 24);
      for (char& c : bytes) c = static_cast<char>(gen());
    }
    for (const NodeDef* node : {&decode, &list}) {
      absl::Status s = RunKernel(*node, {Strings({bytes})}).status();
      if (!s.ok()) {
        ++failures;
        CHECK(s.code() == absl::StatusCode::kDataLoss);
      }
    }
  }
  CHECK(failures > 0);
}

}  // namespace
}  // namespace dfx

// GraphDef files as TensorFlow writes them: text and binary round trips
// through ReadGraphDefFile (graph/graph_def_import.h), and bad files.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/unknown_field_set.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;
namespace fs = std::filesystem;

const std::string kMlp = std::string(DFX_TEST_DATA_DIR) + "/tf_mlp.pbtxt";

using testing::TempDir;

const NodeDef& Node(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return n;
  }
  FAIL("no node " << name);
  return def.node(0);
}

std::string Deterministic(const GraphDef& def) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  def.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

TEST_CASE("A TensorFlow text GraphDef parses with its values intact") {
  auto def = ReadGraphDefFile(kMlp);
  REQUIRE_OK(def);
  REQUIRE(def->node_size() == 7);
  REQUIRE(def->versions().producer() == 1087);

  const NodeDef& x = Node(*def, "x");
  REQUIRE(x.op() == "Placeholder");
  // experimental_type is not declared by dfx and was skipped.
  REQUIRE(x.GetReflection()->GetUnknownFields(x).empty());
  TensorShapeProto shape;
  REQUIRE_OK(GetNodeAttr(x, "shape", &shape));
  REQUIRE(shape.dim_size() == 2);
  REQUIRE(shape.dim(0).size() == -1);
  REQUIRE(shape.dim(1).size() == 3);
  REQUIRE(x.attr().at("_output_shapes").list().shape_size() == 1);

  // The escaped tensor_content decodes to the weights, little-endian floats.
  const TensorProto& w = Node(*def, "dense/kernel").attr().at("value").tensor();
  REQUIRE(w.dtype() == DT_FLOAT);
  REQUIRE(w.tensor_content().size() == 6 * sizeof(float));
  float weights[6];
  std::memcpy(weights, w.tensor_content().data(), sizeof(weights));
  const float expected[6] = {0.5f, -1.f, 2.f, 0.25f, 1.5f, -0.5f};
  for (int i = 0; i < 6; ++i) REQUIRE(weights[i] == expected[i]);

  const TensorProto& b = Node(*def, "dense/bias").attr().at("value").tensor();
  REQUIRE(b.float_val_size() == 2);
  REQUIRE(b.float_val(0) == 0.1f);
  REQUIRE(b.float_val(1) == -0.2f);

  const NodeDef& mm = Node(*def, "dense/MatMul");
  REQUIRE(mm.input(0) == "x");
  REQUIRE(mm.input(1) == "dense/kernel");
  REQUIRE(mm.attr().at("_class").list().s(0) == "loc:@dense/kernel");
}

TEST_CASE("A text GraphDef survives binary serialization unchanged") {
  auto def = ReadGraphDefFile(kMlp);
  REQUIRE_OK(def);
  const std::string bytes = Deterministic(*def);
  GraphDef back;
  REQUIRE(back.ParseFromString(bytes));
  REQUIRE(google::protobuf::util::MessageDifferencer::Equals(*def, back));
  REQUIRE(Deterministic(back) == bytes);

  // Through a .pb file too.
  TempDir dir;
  auto from_file = ReadGraphDefFile(dir.Write("mlp.pb", bytes));
  REQUIRE_OK(from_file);
  REQUIRE(google::protobuf::util::MessageDifferencer::Equals(*def, *from_file));
}

TEST_CASE("A binary GraphDef keeps fields dfx does not declare") {
  auto def = ReadGraphDefFile(kMlp);
  REQUIRE_OK(def);
  // What TensorFlow writes beyond dfx's fields: NodeDef.experimental_type
  // (7) and GraphDef.debug_info (5), both length-delimited messages.
  NodeDef* x = def->mutable_node(0);
  const std::string full_type("\x08\xc8\x01", 3);  // type_id: 200
  x->GetReflection()->MutableUnknownFields(x)->AddLengthDelimited(7, full_type);
  def->GetReflection()->MutableUnknownFields(&*def)->AddLengthDelimited(
      5, std::string("\x0a\x01z", 3));
  const std::string bytes = Deterministic(*def);

  TempDir dir;
  auto read = ReadGraphDefFile(dir.Write("tf_mlp.pb", bytes));
  REQUIRE_OK(read);
  REQUIRE(read->node(0).GetReflection()->GetUnknownFields(read->node(0))
              .field_count() == 1);
  REQUIRE(Deterministic(*read) == bytes);

  // It imports against the standard ops, shapes checked, and exports back.
  auto graph = ImportGraphDef(*read, OpRegistry::Global());
  REQUIRE_OK(graph);
  REQUIRE((*graph)->num_nodes() == 7);
  REQUIRE((*graph)->versions().producer() == 1087);
  const GraphDef out = ToGraphDef(**graph);
  REQUIRE(out.node_size() == 7);
  REQUIRE(out.node(3).input(0) == "x");
  REQUIRE(out.node(3).input(1) == "dense/kernel");
}

TEST_CASE("A text GraphDef under another name is read as text") {
  std::ifstream in(kMlp);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  TempDir dir;
  auto def = ReadGraphDefFile(dir.Write("graph.pb", text));
  REQUIRE_OK(def);
  REQUIRE(def->node_size() == 7);
}

TEST_CASE("A missing GraphDef file is NotFound") {
  TempDir dir;
  REQUIRE_THAT(ReadGraphDefFile(dir.File("nope.pb")).status(),
               StatusIs(absl::StatusCode::kNotFound, "nope.pb"));
  REQUIRE_THAT(ReadGraphDefFile(dir.File("missing_dir/g.pbtxt")).status(),
               StatusIs(absl::StatusCode::kNotFound, "g.pbtxt"));
}

TEST_CASE("Garbage bytes are InvalidArgument naming the file") {
  TempDir dir;
  // Field 0 with wire type 7: invalid as binary, and not text either.
  const std::string garbage("\x07\xff\xfe\x00\x01garbage\x80", 12);
  const std::string path = dir.Write("garbage.pb", garbage);
  REQUIRE_THAT(ReadGraphDefFile(path).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "GraphDef file '" + path + "'"));
  // A directory is not a GraphDef.
  REQUIRE_THAT(ReadGraphDefFile(dir.File("")).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "directory"));
}

TEST_CASE("Corrupt text says where the parser stopped") {
  TempDir dir;
  const std::string path = dir.Write(
      "bad.pbtxt", "node {\n  name: \"a\"\n  op: \"NoOp\"\n  input: [[[\n}\n");
  REQUIRE_THAT(ReadGraphDefFile(path).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "line 4 column"));
  REQUIRE_THAT(ReadGraphDefFile(path).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "bad.pbtxt"));
}

TEST_CASE("Random bytes never crash the reader") {
  TempDir dir;
  std::mt19937 rng(1234);
  auto mlp = ReadGraphDefFile(kMlp);
  REQUIRE_OK(mlp);
  const std::string valid = Deterministic(*mlp);
  // protobuf logs every invalid UTF-8 string it meets; that is expected here.
  google::protobuf::LogSilencer quiet;
  for (int i = 0; i < 200; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes.resize(rng() % 256);
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      // A valid file with a few bytes flipped or cut short.
      bytes = valid.substr(0, rng() % valid.size());
      for (int k = 0; k < 3 && !bytes.empty(); ++k) {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
    }
    const std::string name = i % 4 == 1 ? "r.pbtxt" : "r.pb";
    auto def = ReadGraphDefFile(dir.Write(name, bytes));
    if (!def.ok()) {
      REQUIRE(def.status().code() == absl::StatusCode::kInvalidArgument);
    }
  }
}

}  // namespace
}  // namespace dfx

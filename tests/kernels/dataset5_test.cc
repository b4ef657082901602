// The dataset5 family (graph/ops/dataset5_ops.cc, kernels/data/
// dataset5_kernels.cc): TensorFlow 2.21's signatures, the shape checks a
// graph meets at import, and what the golden cases (tests/golden/
// gen_dataset5.py) cannot show: the assertions fail when the iterator is
// made, not when the dataset is; an assertion iterated outside an iterator
// resource sees no next transformations; auto-sharding by FILE makes the
// pipeline again over sharded file names; a snapshot stays inside the
// server's --data-dir; a snapshot's iterator saves its pass (write, read
// or pass-through) and resumes it; dfx's SNAPPY files are framed as
// TensorFlow's; DatasetFingerprint's values are stable and tell pipelines
// apart.
#include <snappy.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/data/dataset.h"
#include "kernels/data/record_file.h"
#include "kernels/kernels.h"
#include "proto/graph.pb.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

Tensor Range(int64_t n) {
  return Run1(TestNodeBuilder("range", "RangeDataset", 3)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              {I64(0), I64(n), I64(1)});
}

Tensor Assert(const std::string& op, const Tensor& input,
              const std::vector<std::string>& transformations) {
  return Run1(TestNodeBuilder("assert", op, 2)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              {input, Tensor::FromVector<std::string>(transformations)});
}

// MakeIterator's status for a fresh iterator resource over `dataset`.
absl::Status MakeIterator(const Tensor& dataset) {
  const Tensor handle = Run1(TestNodeBuilder("it", "AnonymousIterator", 0)
                                 .Attr("output_types", DataTypeVector{DT_INT64})
                                 .Build(),
                             {});
  return RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                   {dataset, handle})
      .status();
}

uint64_t Fingerprint(const Tensor& dataset) {
  const Tensor fp =
      Run1(TestNodeBuilder("fp", "DatasetFingerprint", 1).Build(), {dataset});
  REQUIRE(fp.dtype() == DT_UINT64);
  REQUIRE(fp.dims() == 0);
  return fp.data<uint64_t>()[0];
}

// The graph of golden case `name` (its nodes and function library).
GraphDef GoldenGraph(const std::string& name) {
  GraphDef g;
  std::ifstream in(std::string(DFX_TEST_DATA_DIR) +
                       "/../golden/data/dataset5/" + name + "/graph.pb",
                   std::ios::binary);
  REQUIRE(g.ParseFromIstream(&in));
  return g;
}

// Runs the last node of op `op` in `graph` (attr `attr` set to `value`
// when given), its functions from the graph's library, on `inputs`.
absl::StatusOr<Tensor> RunGraphNode(const GraphDef& graph,
                                    const std::string& op,
                                    const std::vector<Tensor>& inputs,
                                    const std::string& attr = "",
                                    int64_t value = 0,
                                    const std::string& string_value = "") {
  const NodeDef* found = nullptr;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == op) found = &n;
  }
  if (found == nullptr) return absl::NotFoundError(op);
  NodeDef node = *found;
  node.clear_input();
  if (!string_value.empty()) {
    (*node.mutable_attr())[attr].set_s(string_value);
  } else if (!attr.empty()) {
    (*node.mutable_attr())[attr].set_i(value);
  }
  DFX_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                       OpRegistry::Global()->LookUpOrError(op));
  AddDefaultAttrs(reg->op_def, &node);
  DFX_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      StandardKernelRegistry()->CreateKernel(
          node, reg->op_def, testing::TestCpuDevice(), &graph.library()));
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = testing::TestCpuDevice();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  DFX_RETURN_IF_ERROR(ctx.status());
  return (*ctx.mutable_outputs())[0];
}

TEST_CASE("Every dataset5 op has TensorFlow 2.21's signature and CPU types",
          "[dataset5]") {
  testing::CheckSignaturesWithTensorFlow("dataset5", 8);
}

TEST_CASE(
    "Auto-sharding by FILE makes the flat_map again over sharded "
    "file names",
    "[dataset5]") {
  // from_tensor_slices(files).flat_map(TFRecordDataset): TensorFlow's FILE
  // policy (and AUTO) shards the file names below the flat_map.
  const GraphDef g = GoldenGraph("shard_files_data");
  absl::StatusOr<Tensor> slices =
      RunGraphNode(g, "TensorSliceDataset",
                   {Tensor::FromVector<std::string>({"a", "b", "c"})});
  REQUIRE(slices.ok());
  absl::StatusOr<Tensor> flat_map =
      RunGraphNode(g, "FlatMapDataset", {*slices});
  REQUIRE(flat_map.ok());
  absl::StatusOr<data::DatasetPtr> original =
      data::DatasetFromTensor(*flat_map, "flat_map");
  REQUIRE(original.ok());
  for (const int64_t policy : {-1, 0, 1, 2, 3}) {
    absl::StatusOr<Tensor> sharded =
        RunGraphNode(g, "AutoShardDataset", {*flat_map, I64(2), I64(1)},
                     "auto_shard_policy", policy);
    REQUIRE(sharded.ok());
    absl::StatusOr<data::DatasetPtr> d =
        data::DatasetFromTensor(*sharded, "sharded");
    REQUIRE(d.ok());
    // FILE and AUTO: a new flat_map over the shard; DATA: a shard over the
    // flat_map; OFF and HINT: the flat_map itself.
    std::shared_ptr<const data::DatasetBase::Node> node = (*d)->node();
    REQUIRE(node != nullptr);
    CHECK((node->def->op() == "FlatMapDataset") == (policy != 2));
    CHECK((*d == *original) == (policy == -1 || policy == 3));
  }
  // Over the file names themselves FILE finds no reader: NotFound.
  CHECK_THAT(RunGraphNode(g, "AutoShardDataset", {*slices, I64(2), I64(1)},
                          "auto_shard_policy", 1)
                 .status(),
             StatusIs(absl::StatusCode::kNotFound));
}

TEST_CASE("The assertions take a vector of transformations", "[dataset5]") {
  const PartialShape scalar = PartialShape::Known({});
  for (const char* op : {"AssertNextDataset", "ExperimentalAssertNextDataset",
                         "AssertPrevDataset"}) {
    const NodeDef n = TestNodeBuilder("a", op, 2)
                          .Attr("output_types", DataTypeVector{DT_INT64})
                          .Build();
    absl::StatusOr<PartialShape> handle =
        testing::InferShape(n, {scalar, PartialShape::Known({2})});
    REQUIRE(handle.ok());
    CHECK(handle->DebugString() == scalar.DebugString());
    CHECK_THAT(testing::InferShape(n, {scalar, scalar}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// The blocks of a SNAPPY file (a 4-byte big-endian length, then raw
// snappy), each uncompressed; empty on a malformed file.
std::vector<std::string> SnappyBlocks(const std::string& bytes) {
  std::vector<std::string> blocks;
  size_t at = 0;
  while (at + 4 <= bytes.size()) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    const size_t n = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) |
                     (size_t{p[2]} << 8) | p[3];
    if (at + 4 + n > bytes.size()) return {};
    std::string block;
    if (!snappy::Uncompress(bytes.data() + at + 4, n, &block)) return {};
    blocks.push_back(std::move(block));
    at += 4 + n;
  }
  if (at != bytes.size()) return {};
  return blocks;
}

TEST_CASE("dfx's SNAPPY record files are framed as TensorFlow's",
          "[dataset5]") {
  // The files TensorFlow saved with SNAPPY for the load_tf_saved_snappy
  // case (big/: a record over the 256 KiB buffer, written as a block of
  // its own), read and written again by dfx: the same blocks, holding the
  // same bytes. (The compressed bytes differ where Debian's snappy 1.1.9
  // picks other matches than the snappy TensorFlow 2.21 links; TensorFlow
  // reads dfx's files.)
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(DFX_TEST_DATA_DIR) /
                       "../golden/data/dataset5/load_tf_saved_snappy";
  testing::TempDir tmp;
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".snapshot") continue;
    ++files;
    auto reader = data::FileReader::Open("test", e.path().string(),
                                         data::Compression::kSnappy);
    REQUIRE(reader.ok());
    const std::string out = (fs::path(tmp.path()) / "out").string();
    auto writer =
        data::RecordWriter::Create("test", out, data::Compression::kSnappy);
    REQUIRE(writer.ok());
    std::string record;
    int records = 0;
    while (true) {
      absl::StatusOr<bool> more = (*reader)->NextRecord(&record);
      REQUIRE(more.ok());
      if (!*more) break;
      REQUIRE((*writer)->Write(record).ok());
      ++records;
    }
    REQUIRE((*writer)->Close().ok());
    CHECK(records > 0);
    const std::vector<std::string> ours = SnappyBlocks(FileBytes(out));
    const std::vector<std::string> theirs =
        SnappyBlocks(FileBytes(e.path().string()));
    CHECK(!theirs.empty());
    CHECK(ours == theirs);
  }
  CHECK(files == 3);
}

TEST_CASE("A snapshot's compression: SNAPPY and AUTO are made", "[dataset5]") {
  const GraphDef g = GoldenGraph("snapshot_sharded");
  const Tensor path = Tensor::Scalar<std::string>("/nowhere/snap");
  for (const char* compression : {"SNAPPY", "AUTO", "GZIP"}) {
    CHECK(RunGraphNode(g, "SnapshotDatasetV2", {Range(3), path}, "compression",
                       0, compression)
              .ok());
  }
}

TEST_CASE("A snapshot stays inside the server's --data-dir", "[dataset5]") {
  const testing::TempDir data_tmp;
  const testing::TempDir outside_tmp;
  const GraphDef g = GoldenGraph("snapshot_sharded");
  REQUIRE(SetDataDir(data_tmp.path()).ok());
  absl::Status outside;
  absl::Status inside;
  for (const std::string& dir : {outside_tmp.path(), data_tmp.path()}) {
    absl::StatusOr<Tensor> snap =
        RunGraphNode(g, "SnapshotDatasetV2",
                     {Range(3), Tensor::Scalar<std::string>(dir + "/snap")});
    (dir == data_tmp.path() ? inside : outside) =
        snap.ok() ? MakeIterator(*snap) : snap.status();
  }
  REQUIRE(SetDataDir("").ok());
  CHECK_THAT(outside, StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK(inside.ok());
}

// The int64 elements left in `it`, up to its end.
std::vector<int64_t> Drain(data::IteratorBase& it, data::IteratorContext* ctx) {
  std::vector<int64_t> out;
  for (int i = 0; i < 100; ++i) {
    std::vector<Tensor> e;
    bool end = false;
    REQUIRE(it.GetNext(ctx, &e, &end).ok());
    if (end) return out;
    out.push_back(e[0].scalar<int64_t>());
  }
  FAIL("no end");
  return out;
}

// Saves `it` under "it"; the snapshot mode it recorded (0 not started,
// 1 write, 2 read, 3 pass through).
int64_t SaveSnapshot(const data::DatasetBase& d, data::IteratorBase& it,
                     data::IteratorState* state) {
  REQUIRE(data::SaveIterator(d, it, "it", state).ok());
  absl::StatusOr<int64_t> mode = state->ReadInt("it", "mode");
  REQUIRE(mode.ok());
  return *mode;
}

TEST_CASE("A snapshot's iterator saves its pass and resumes it", "[dataset5]") {
  const testing::TempDir tmp;
  for (const char* op : {"SnapshotDatasetV2", "SnapshotDataset"}) {
    INFO(op);
    const Tensor path = Tensor::Scalar<std::string>(tmp.path() + "/" + op);
    // (v2's reader and shard functions from a golden case's library.)
    absl::StatusOr<Tensor> snap =
        std::string(op) == "SnapshotDataset"
            ? RunKernel(TestNodeBuilder("snap", op, 2)
                            .Attr("output_types", DataTypeVector{DT_INT64})
                            .Build(),
                        {Range(5), path})
                  .value()[0]
            : RunGraphNode(GoldenGraph("snapshot_sharded"), op,
                           {Range(5), path});
    INFO(snap.status());
    REQUIRE(snap.ok());
    absl::StatusOr<data::DatasetPtr> d = data::DatasetFromTensor(*snap, "t");
    REQUIRE(d.ok());
    data::IteratorContext ctx;
    std::vector<Tensor> e;
    bool end = false;

    // A writer saved after two elements; a fresh iterator (which would
    // pass the input through: the save is under way) resumes the write.
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> writer =
        (*d)->MakeIterator(&ctx);
    REQUIRE(writer.ok());
    REQUIRE((*writer)->GetNext(&ctx, &e, &end).ok());
    REQUIRE((*writer)->GetNext(&ctx, &e, &end).ok());
    data::IteratorState writing;
    CHECK(SaveSnapshot(**d, **writer, &writing) == 1);
    writer->reset();
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> resumed =
        (*d)->MakeIterator(&ctx);
    REQUIRE(resumed.ok());
    REQUIRE(data::RestoreIterator(**d, **resumed, &ctx, "it", writing).ok());
    CHECK(Drain(**resumed, &ctx) == std::vector<int64_t>{2, 3, 4});

    // The resumed write finished the snapshot: a new pass reads it, and a
    // reader saved after one element resumes reading.
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> reader =
        (*d)->MakeIterator(&ctx);
    REQUIRE(reader.ok());
    REQUIRE((*reader)->GetNext(&ctx, &e, &end).ok());
    data::IteratorState reading;
    CHECK(SaveSnapshot(**d, **reader, &reading) == 2);
    const std::vector<int64_t> rest = Drain(**reader, &ctx);
    CHECK(rest.size() == 4);
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> reread =
        (*d)->MakeIterator(&ctx);
    REQUIRE(reread.ok());
    REQUIRE(data::RestoreIterator(**d, **reread, &ctx, "it", reading).ok());
    CHECK(Drain(**reread, &ctx) == rest);

    // A mode that is none is refused, naming the entry.
    data::IteratorState damaged = reading;
    damaged.WriteInt("it", "mode", 9);
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> refused =
        (*d)->MakeIterator(&ctx);
    REQUIRE(refused.ok());
    CHECK_THAT(data::RestoreIterator(**d, **refused, &ctx, "it", damaged),
               StatusIs(absl::StatusCode::kInvalidArgument, "it/mode"));
  }
}

TEST_CASE("An assertion fails when its iterator is made", "[dataset5]") {
  const Tensor range = Range(3);
  // Made: nothing is checked yet.
  const Tensor next = Assert("AssertNextDataset", range, {"Map"});
  const Tensor prev = Assert("AssertPrevDataset", range, {"name: 'Map'"});
  CHECK_THAT(MakeIterator(next),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "encountered Root transformation instead"));
  CHECK_THAT(MakeIterator(prev), StatusIs(absl::StatusCode::kInvalidArgument,
                                          "but found 'RangeDataset'"));
  CHECK(MakeIterator(Assert("AssertNextDataset", range, {"Root"})).ok());
  CHECK(
      MakeIterator(Assert("AssertPrevDataset", range, {"name: 'RangeDataset'"}))
          .ok());
  // Over an assertion: the next transformation is the outer one.
  CHECK(MakeIterator(Assert("AssertNextDataset",
                            Assert("ExperimentalAssertNextDataset", range,
                                   {"AssertNext", "Root"}),
                            {}))
            .ok());
}

TEST_CASE(
    "An assertion iterated outside an iterator resource sees no next "
    "transformations",
    "[dataset5]") {
  // As inside a dataset function: the iterator's dataset does not lead to
  // it, so TensorFlow's prefix names are unknown.
  absl::StatusOr<data::DatasetPtr> d = data::DatasetFromTensor(
      Assert("AssertNextDataset", Range(2), {"Root"}), "test");
  REQUIRE(d.ok());
  data::IteratorContext ctx;
  CHECK_THAT((*d)->MakeIterator(&ctx).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Asserted next 1 transformations but encountered "
                      "only 0."));
}

TEST_CASE("DatasetFingerprint tells pipelines apart and is stable",
          "[dataset5]") {
  const uint64_t r5 = Fingerprint(Range(5));
  CHECK(Fingerprint(Range(5)) == r5);
  CHECK(Fingerprint(Range(6)) != r5);
  CHECK(Fingerprint(Assert("AssertNextDataset", Range(5), {})) != r5);
  CHECK(Fingerprint(Assert("AssertNextDataset", Range(5), {"Map"})) !=
        Fingerprint(Assert("AssertNextDataset", Range(5), {"Batch"})));
  // Not a dataset: InvalidArgument.
  CHECK_THAT(RunKernel(TestNodeBuilder("fp", "DatasetFingerprint", 1).Build(),
                       {Tensor(DT_VARIANT, TensorShape({}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

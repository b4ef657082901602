// The distsnap family's ops (tests/golden/gen_distsnap.py:
// ListSnapshotChunksDataset and SnapshotChunkDataset): TensorFlow 2.21's
// signatures, the shape checks, and what the golden cases cannot show —
// listing a snapshot while it is written, cancelling the wait for more
// chunks, and the --data-dir confinement.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "kernels/data/dataset.h"
#include "kernels/data/record_file.h"
#include "runtime/cancellation.h"
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

namespace fs = std::filesystem;

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

void Touch(const fs::path& p, const std::string& bytes = "") {
  std::ofstream(p, std::ios::binary) << bytes;
}

// A chunk file of int64 elements, as TensorFlow's snapshot writer stores
// them: one TensorProto record per element.
void WriteChunk(const fs::path& p, const std::vector<int64_t>& values) {
  absl::StatusOr<std::unique_ptr<data::RecordWriter>> w =
      data::RecordWriter::Create("test", p.string(), data::Compression::kNone);
  REQUIRE(w.ok());
  for (int64_t v : values) {
    TensorProto proto;
    Tensor::Scalar<int64_t>(v).AsProtoTensorContent(&proto);
    REQUIRE((*w)->Write(proto.SerializeAsString()).ok());
  }
  REQUIRE((*w)->Close().ok());
}

absl::StatusOr<data::DatasetPtr> ListChunks(const std::string& path) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("list", "ListSnapshotChunksDataset", 1)
                    .Attr("output_types", DataTypeVector{DT_STRING})
                    .Build(),
                {Str(path)});
  if (!out.ok()) return out.status();
  return data::DatasetFromTensor((*out)[0], "list");
}

// The next chunk path, or "<end>", or the error.
std::string Next(data::IteratorBase* it, data::IteratorContext* ctx) {
  std::vector<Tensor> out;
  bool end = false;
  absl::Status s = it->GetNext(ctx, &out, &end);
  if (!s.ok()) return s.ToString();
  if (end) return "<end>";
  return out[0].data<std::string>()[0];
}

TEST_CASE("Every distsnap op has TensorFlow 2.21's signature and CPU types",
          "[distsnap]") {
  testing::CheckSignaturesWithTensorFlow("distsnap", 2);
}

TEST_CASE("Distsnap datasets take a scalar path", "[distsnap]") {
  const PartialShape scalar = PartialShape::Known({});
  const PartialShape vector = PartialShape::Known({2});
  for (const char* op : {"ListSnapshotChunksDataset", "SnapshotChunkDataset"}) {
    const NodeDef node = TestNodeBuilder("d", op, 1)
                             .Attr("output_types", DataTypeVector{DT_INT64})
                             .Build();
    absl::StatusOr<PartialShape> handle = testing::InferShape(node, {scalar});
    REQUIRE(handle.ok());
    CHECK(handle->DebugString() == scalar.DebugString());
    CHECK_THAT(testing::InferShape(node, {vector}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST_CASE("ListSnapshotChunksDataset lists chunks committed while it reads",
          "[distsnap]") {
  const testing::TempDir tmp;
  const fs::path snap = fs::path(tmp.path()) / "snap";
  fs::create_directories(snap / "chunks");
  WriteChunk(snap / "chunks" / "chunk_1_0_1", {7});
  Touch(snap / "chunks" / "chunk_0_1_2__x.tmp", "partial");
  absl::StatusOr<data::DatasetPtr> ds = ListChunks(snap.string());
  REQUIRE(ds.ok());
  CHECK((*ds)->Cardinality() == data::kUnknownCardinality);
  data::IteratorContext ctx;
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> it =
      (*ds)->MakeIterator(&ctx);
  REQUIRE(it.ok());
  CHECK(Next(it->get(), &ctx) == (snap / "chunks" / "chunk_1_0_1").string());
  // The writer commits two more chunks and finishes: the iterator, which
  // found no DONE file, looks again.
  WriteChunk(snap / "chunks" / "chunk_0_1_1", {8});
  WriteChunk(snap / "chunks" / "chunk_0_0_1", {9});
  Touch(snap / "DONE");
  CHECK(Next(it->get(), &ctx) == (snap / "chunks" / "chunk_0_0_1").string());
  CHECK(Next(it->get(), &ctx) == (snap / "chunks" / "chunk_0_1_1").string());
  CHECK(Next(it->get(), &ctx) == "<end>");
  CHECK((*ds)->Cardinality() == 3);
}

TEST_CASE("Cancelling the step ends the wait for chunks", "[distsnap]") {
  const testing::TempDir tmp;
  // Nothing written yet: TensorFlow waits for the snapshot to appear.
  absl::StatusOr<data::DatasetPtr> ds =
      ListChunks((fs::path(tmp.path()) / "not_yet").string());
  REQUIRE(ds.ok());
  CancellationManager cm;
  data::IteratorContext ctx;
  ctx.cancellation_manager = &cm;
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> it =
      (*ds)->MakeIterator(&ctx);
  REQUIRE(it.ok());
  absl::Status status;
  std::thread reader([&] {
    std::vector<Tensor> out;
    bool end = false;
    status = (*it)->GetNext(&ctx, &out, &end);
  });
  cm.StartCancel();
  reader.join();
  CHECK_THAT(status, StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("Distsnap datasets stay inside the server's --data-dir",
          "[distsnap]") {
  const testing::TempDir data_tmp;
  const testing::TempDir outside_tmp;
  const fs::path outside = fs::path(outside_tmp.path()) / "snap";
  fs::create_directories(outside / "chunks");
  WriteChunk(outside / "chunks" / "chunk_0_0_1", {1});
  Touch(outside / "DONE");
  REQUIRE(SetDataDir(data_tmp.path()).ok());
  absl::StatusOr<data::DatasetPtr> ds = ListChunks(outside.string());
  absl::StatusOr<std::vector<Tensor>> chunk =
      RunKernel(TestNodeBuilder("chunk", "SnapshotChunkDataset", 1)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {Str((outside / "chunks" / "chunk_0_0_1").string())});
  std::string listed = "<no dataset>";
  absl::Status opened = absl::OkStatus();
  if (ds.ok() && chunk.ok()) {
    data::IteratorContext ctx;
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> it =
        (*ds)->MakeIterator(&ctx);
    listed = it.ok() ? Next(it->get(), &ctx) : it.status().ToString();
    absl::StatusOr<data::DatasetPtr> c =
        data::DatasetFromTensor((*chunk)[0], "chunk");
    opened = c.ok() ? (*c)->MakeIterator(&ctx).status() : c.status();
  }
  REQUIRE(SetDataDir("").ok());
  REQUIRE(ds.ok());
  REQUIRE(chunk.ok());
  CHECK(listed.find("PERMISSION_DENIED") != std::string::npos);
  CHECK_THAT(opened, StatusIs(absl::StatusCode::kPermissionDenied));
}

}  // namespace
}  // namespace dfx

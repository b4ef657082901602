// The itckpt2 family (tests/golden/gen_itckpt2.py): iterators of the
// regrouping, sparse, file and sampling datasets saved at every position
// (mid-window, mid-buffer, mid-batch, mid-file) and restored into a fresh
// iterator continue the uninterrupted sequence; a state from another
// pipeline and a damaged state are InvalidArgument naming the entry; a
// dataset TensorFlow cannot save refuses with TensorFlow's code.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "runtime/variant.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  INFO(node.op() << ": " << out.status());
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

Tensor Range(int64_t start, int64_t stop) {
  return Run1(TestNodeBuilder("range", "RangeDataset", 3)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              {I64(start), I64(stop), I64(1)});
}

// Dataset op `op` over `inputs` (the input dataset first).
Tensor Op(const std::string& op, std::vector<Tensor> inputs,
          DataTypeVector types = {DT_INT64}) {
  return Run1(TestNodeBuilder(op, op, static_cast<int>(inputs.size()))
                  .Attr("output_types", types)
                  .Build(),
              inputs);
}

Tensor Slices(std::vector<int64_t> values) {
  return Run1(TestNodeBuilder("slices", "TensorSliceDataset", 1)
                  .Attr("Toutput_types", DataTypeVector{DT_INT64})
                  .Build(),
              {Tensor::FromVector<int64_t>(values)});
}

Tensor Batch(const Tensor& input, int64_t n) {
  return Op("BatchDatasetV2", {input, I64(n), Tensor::Scalar<bool>(false)});
}

Tensor Window(const Tensor& input, int64_t size, int64_t shift, int64_t stride,
              bool drop) {
  return Op(
      "WindowDataset",
      {input, I64(size), I64(shift), I64(stride), Tensor::Scalar<bool>(drop)},
      {DT_VARIANT});
}

// An iterator over `dataset`, deleted on scope exit.
class ScopedIterator {
 public:
  ScopedIterator(const Tensor& dataset, DataTypeVector types)
      : types_(std::move(types)),
        handle_(Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                         .Attr("output_types", types_)
                         .Build(),
                     {})) {
    REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                      {dataset, handle_})
                .ok());
  }
  ScopedIterator(const ScopedIterator&) = delete;
  ScopedIterator& operator=(const ScopedIterator&) = delete;
  ~ScopedIterator() {
    (void)RunKernel(TestNodeBuilder("del", "DeleteIterator", 2).Build(),
                    {handle_, Tensor(DT_VARIANT, TensorShape({}))});
  }

  // The next element, or OutOfRange at the end.
  absl::StatusOr<std::vector<Tensor>> Next() const {
    return RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                         .Attr("output_types", types_)
                         .Build(),
                     {handle_});
  }
  absl::StatusOr<Tensor> Save() const {
    DFX_ASSIGN_OR_RETURN(
        std::vector<Tensor> out,
        RunKernel(TestNodeBuilder("save", "SerializeIterator", 1).Build(),
                  {handle_}));
    return out[0];
  }
  absl::Status Restore(const Tensor& state) const {
    return RunKernel(
               TestNodeBuilder("restore", "DeserializeIterator", 2).Build(),
               {handle_, state})
        .status();
  }

 private:
  const DataTypeVector types_;
  const Tensor handle_;
};

// An element as text: each component's shape and values; a dataset
// component (a window) as its int64 elements.
std::string Show(const std::vector<Tensor>& element) {
  std::string out;
  for (const Tensor& t : element) {
    absl::StrAppend(&out, t.shape().DebugString(), "{");
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      switch (t.dtype()) {
        case DT_INT64:
          absl::StrAppend(&out, t.data<int64_t>()[i], ",");
          break;
        case DT_INT32:
          absl::StrAppend(&out, t.data<int32_t>()[i], ",");
          break;
        case DT_FLOAT:
          absl::StrAppend(&out, t.data<float>()[i], ",");
          break;
        case DT_STRING:
          absl::StrAppend(&out, "'", t.data<std::string>()[i], "',");
          break;
        case DT_VARIANT: {
          Tensor window(DT_VARIANT, TensorShape({}));
          window.data<Variant>()[0] = t.data<Variant>()[i];
          ScopedIterator it(window, {DT_INT64});
          for (absl::StatusOr<std::vector<Tensor>> e = it.Next(); e.ok();
               e = it.Next()) {
            absl::StrAppend(&out, Show(*e));
          }
          break;
        }
        default:
          FAIL("no Show for " << DataTypeString(t.dtype()));
      }
    }
    absl::StrAppend(&out, "} ");
  }
  return out;
}

// The elements up to the end or the first error, shown (an error as its
// text).
std::vector<std::string> Rest(const ScopedIterator& it) {
  std::vector<std::string> out;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<std::vector<Tensor>> e = it.Next();
    if (absl::IsOutOfRange(e.status())) return out;
    if (!e.ok()) {
      // An error ends the sequence (an assert_cardinality fails again).
      out.push_back("ERROR " + e.status().ToString());
      return out;
    }
    out.push_back(Show(*e));
  }
  FAIL("no end");
  return out;
}

// Saves after every k elements (k = 0 .. the end and one past it) and
// checks that a fresh iterator restored from the state, and the saved one,
// continue the uninterrupted sequence.
void CheckResumesEverywhere(const Tensor& dataset,
                            const DataTypeVector& types) {
  std::vector<std::string> all;
  {
    ScopedIterator it(dataset, types);
    all = Rest(it);
  }
  REQUIRE(!all.empty());
  // After an error at the end, the error repeats: saved up to before it.
  const bool error_at_end = absl::StartsWith(all.back(), "ERROR ");
  const size_t last = error_at_end ? all.size() - 1 : all.size() + 1;
  for (size_t k = 0; k <= last; ++k) {
    INFO("saved after " << k << " elements");
    ScopedIterator saved(dataset, types);
    for (size_t i = 0; i < k; ++i) (void)saved.Next();
    absl::StatusOr<Tensor> state = saved.Save();
    REQUIRE(state.ok());
    ScopedIterator restored(dataset, types);
    REQUIRE(restored.Restore(*state).ok());
    const std::vector<std::string> want(all.begin() + std::min(k, all.size()),
                                        all.end());
    CHECK(Rest(restored) == want);
    CHECK(Rest(saved) == want);
  }
}

// A serialized state's entries, by key, and back.
std::map<std::string, Tensor> Entries(const Tensor& state) {
  const OpaqueVariant* v = state.data<Variant>()[0].get<OpaqueVariant>();
  REQUIRE(v != nullptr);
  const VariantTensorDataProto& proto = v->proto();
  absl::StatusOr<Tensor> keys = Tensor::FromProto(proto.tensors(0));
  REQUIRE(keys.ok());
  std::map<std::string, Tensor> out;
  for (int64_t i = 0; i < keys->NumElements(); ++i) {
    absl::StatusOr<Tensor> t =
        Tensor::FromProto(proto.tensors(static_cast<int>(i) + 1));
    REQUIRE(t.ok());
    out[keys->data<std::string>()[i]] = *t;
  }
  return out;
}

Tensor StateOf(const std::map<std::string, Tensor>& entries) {
  VariantTensorDataProto proto;
  proto.set_type_name("tensorflow::Iterator");
  std::vector<std::string> keys;
  for (const auto& [key, value] : entries) keys.push_back(key);
  Tensor::FromVector<std::string>(keys).AsProtoTensorContent(
      proto.add_tensors());
  for (const auto& [key, value] : entries) {
    value.AsProtoTensorContent(proto.add_tensors());
  }
  Tensor out(DT_VARIANT, TensorShape({1}));
  out.data<Variant>()[0] = Variant::Make<OpaqueVariant>(std::move(proto));
  return out;
}

// The state with the entry whose key ends in `suffix` set to `value`.
Tensor Damaged(const Tensor& state, const std::string& suffix, Tensor value) {
  std::map<std::string, Tensor> entries = Entries(state);
  for (auto& [key, old] : entries) {
    if (!absl::EndsWith(key, suffix)) continue;
    old = std::move(value);
    return StateOf(entries);
  }
  FAIL("no entry ending in " << suffix);
  return state;
}

// The state without the entry whose key ends in `suffix`.
Tensor Without(const Tensor& state, const std::string& suffix) {
  std::map<std::string, Tensor> entries = Entries(state);
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (!absl::EndsWith(it->first, suffix)) continue;
    entries.erase(it);
    return StateOf(entries);
  }
  FAIL("no entry ending in " << suffix);
  return state;
}

// The state saved after `k` elements.
Tensor SavedAfter(const Tensor& dataset, const DataTypeVector& types, int k) {
  ScopedIterator it(dataset, types);
  for (int i = 0; i < k; ++i) REQUIRE(it.Next().ok());
  absl::StatusOr<Tensor> state = it.Save();
  REQUIRE(state.ok());
  return *state;
}

// Restoring `state` into a fresh iterator of `dataset` fails with
// InvalidArgument naming `key`.
void CheckRefused(const Tensor& dataset, const DataTypeVector& types,
                  const Tensor& state, const std::string& key) {
  ScopedIterator it(dataset, types);
  CHECK_THAT(it.Restore(state),
             StatusIs(absl::StatusCode::kInvalidArgument, key));
}

TEST_CASE("itckpt2: window iterators resume mid-window and mid-shift",
          "[itckpt2]") {
  CheckResumesEverywhere(Window(Range(0, 10), 3, 2, 1, false), {DT_VARIANT});
  CheckResumesEverywhere(Window(Range(0, 9), 4, 1, 2, true), {DT_VARIANT});
  CheckResumesEverywhere(Window(Range(0, 12), 2, 5, 1, false), {DT_VARIANT});
  const Tensor ds = Window(Range(0, 10), 4, 1, 1, false);
  const Tensor state = SavedAfter(ds, {DT_VARIANT}, 2);
  CheckRefused(ds, {DT_VARIANT}, Damaged(state, "buffer/count", I64(99)),
               "buffer/count");
  CheckRefused(ds, {DT_VARIANT},
               Damaged(state, "buffer[0]/status/code", I64(77)),
               "buffer[0]/status/code");
  CheckRefused(ds, {DT_VARIANT}, Without(state, "buffer[1]/element/size"),
               "buffer[1]/element/size");
}

TEST_CASE("itckpt2: rebatch, unbatch and list iterators resume mid-batch",
          "[itckpt2]") {
  const Tensor batched = Batch(Range(0, 14), 4);
  const Tensor rebatch =
      Run1(TestNodeBuilder("r", "RebatchDatasetV2", 3)
               .Attr("output_types", DataTypeVector{DT_INT64})
               .Build(),
           {batched, Tensor::FromVector<int64_t>({3, 1, 0, 5}),
            Tensor::Scalar<bool>(false)});
  CheckResumesEverywhere(rebatch, {DT_INT64});
  const Tensor legacy = Op("RebatchDataset", {batched, I64(3)});
  CheckResumesEverywhere(legacy, {DT_INT64});
  CheckResumesEverywhere(Op("UnbatchDataset", {batched}), {DT_INT64});
  const Tensor list =
      Run1(TestNodeBuilder("l", "ListDataset", 4)
               .Attr("Tinput_types",
                     DataTypeVector{DT_INT64, DT_STRING, DT_INT64, DT_STRING})
               .Attr("output_types", DataTypeVector{DT_INT64, DT_STRING})
               .Build(),
           {I64(1), Tensor::Scalar<std::string>("a"), I64(2),
            Tensor::Scalar<std::string>("b")});
  CheckResumesEverywhere(list, {DT_INT64, DT_STRING});

  // A cut batch whose row is past its end, a batch-size index past the
  // list, a list position past its elements.
  Tensor state = SavedAfter(rebatch, {DT_INT64}, 1);
  CheckRefused(rebatch, {DT_INT64}, Damaged(state, "/offset", I64(4)),
               "/current");
  CheckRefused(rebatch, {DT_INT64}, Damaged(state, "/next_size", I64(4)),
               "/next_size");
  state = SavedAfter(Op("UnbatchDataset", {batched}), {DT_INT64}, 1);
  CheckRefused(Op("UnbatchDataset", {batched}), {DT_INT64},
               Damaged(state, "/rows", I64(7)), "/batch");
  state = SavedAfter(list, {DT_INT64, DT_STRING}, 1);
  CheckRefused(list, {DT_INT64, DT_STRING}, Damaged(state, "/next", I64(3)),
               "/next");
}

TEST_CASE(
    "itckpt2: unique, assert_cardinality and directed interleave "
    "iterators resume",
    "[itckpt2]") {
  const Tensor values = Slices({3, 1, 3, 2, 1, 5, 5, 0});
  CheckResumesEverywhere(Op("UniqueDataset", {values}), {DT_INT64});
  CheckResumesEverywhere(Op("AssertCardinalityDataset", {Range(0, 4), I64(4)}),
                         {DT_INT64});
  // Asserted 5 of 4: the restored iterator counts the elements before the
  // save, and fails at the end as the uninterrupted one does.
  CheckResumesEverywhere(Op("AssertCardinalityDataset", {Range(0, 4), I64(5)}),
                         {DT_INT64});
  const Tensor selector = Slices({0, 1, 1, 0, 0, 0, 1, 1, 1});
  for (bool stop : {false, true}) {
    const Tensor choose =
        Run1(TestNodeBuilder("d", "DirectedInterleaveDataset", 3)
                 .Attr("output_types", DataTypeVector{DT_INT64})
                 .Attr("N", 2)
                 .Attr("stop_on_empty_dataset", stop)
                 .Build(),
             {selector, Range(0, 2), Range(10, 14)});
    CheckResumesEverywhere(choose, {DT_INT64});
  }
  const Tensor state = SavedAfter(Op("UniqueDataset", {values}), {DT_INT64}, 2);
  CheckRefused(Op("UniqueDataset", {values}), {DT_INT64},
               Damaged(state, "/seen", I64(1)), "/seen");
}

TEST_CASE(
    "itckpt2: sparse slices and sampling resume, the sample's "
    "random stream where it was",
    "[itckpt2]") {
  const Tensor sparse =
      Run1(TestNodeBuilder("s", "SparseTensorSliceDataset", 3)
               .Attr("Tvalues", DT_FLOAT)
               .Build(),
           {Tensor::FromVector<int64_t>({0, 1, 0, 3, 2, 0, 3, 2},
                                        TensorShape({4, 2})),
            Tensor::FromVector<float>({1.5f, 2.5f, 3.5f, 4.5f}),
            Tensor::FromVector<int64_t>({5, 4})});
  const DataTypeVector sparse_types = {DT_INT64, DT_FLOAT, DT_INT64};
  CheckResumesEverywhere(sparse, sparse_types);
  const Tensor state = SavedAfter(sparse, sparse_types, 2);
  // Row 2's entry is the third; the second is row 0's.
  CheckRefused(sparse, sparse_types, Damaged(state, "/next", I64(1)), "/row");
  CheckRefused(sparse, sparse_types, Damaged(state, "/row", I64(6)), "/row");

  const Tensor sampled =
      Op("SamplingDataset",
         {Range(0, 40), Tensor::Scalar<float>(0.4f), I64(7), I64(9)});
  CheckResumesEverywhere(sampled, {DT_INT64});
  CheckRefused(sampled, {DT_INT64},
               Damaged(SavedAfter(sampled, {DT_INT64}, 3), "/draws", I64(-1)),
               "/draws");
}

TEST_CASE("itckpt2: CSV and matching-files iterators resume mid-file",
          "[itckpt2]") {
  testing::TempDir dir;
  const std::string a = dir.Write("a.csv", "h\n1,x\n2,\"y,\nz\"\n3,w\n");
  const std::string b = dir.Write("b.csv", "h\n4,q\n5,r");
  auto str = [](const std::string& s) {
    return Tensor::Scalar<std::string>(s);
  };
  const Tensor csv = Run1(
      TestNodeBuilder("csv", "CSVDatasetV2", 11)
          .Attr("output_types", DataTypeVector{DT_INT64, DT_STRING})
          .Build(),
      {Tensor::FromVector<std::string>({a, b}), str(""), I64(4),
       Tensor::Scalar<bool>(true), str(","), Tensor::Scalar<bool>(true),
       str(""), Tensor::FromVector<int64_t>({}),
       Tensor::FromVector<int64_t>({0}), Tensor::FromVector<std::string>({""}),
       Tensor::FromVector<int64_t>({})});
  const DataTypeVector csv_types = {DT_INT64, DT_STRING};
  CheckResumesEverywhere(csv, csv_types);
  // More records than the file has (it changed since the save).
  CheckRefused(csv, csv_types,
               Damaged(SavedAfter(csv, csv_types, 1), "/records", I64(9)),
               "/records");

  const Tensor files = Run1(
      TestNodeBuilder("m", "MatchingFilesDataset", 1).Build(),
      {Tensor::FromVector<std::string>({dir / "*.csv", a, dir / "*.none"})});
  CheckResumesEverywhere(files, {DT_STRING});
  CheckRefused(files, {DT_STRING},
               Damaged(SavedAfter(files, {DT_STRING}, 1), "/next", I64(5)),
               "/next");
}

TEST_CASE("itckpt2: SnapshotDatasetReader resumes in its shard's file",
          "[itckpt2]") {
  // A shard TensorFlow saved (gen_dataset4.py): 1, 3, 5.
  const std::string shard = DFX_TEST_DATA_DIR
      "/../golden/data/dataset4/snapshot_reader/saved/15469498585996243087/"
      "00000001.shard";
  for (int64_t start : {0, 1}) {
    const Tensor reader =
        Run1(TestNodeBuilder("r", "SnapshotDatasetReader", 2)
                 .Attr("output_types", DataTypeVector{DT_INT64})
                 .Attr("compression", "")
                 .Attr("version", int64_t{2})
                 .Build(),
             {Tensor::Scalar<std::string>(shard), I64(start)});
    CheckResumesEverywhere(reader, {DT_INT64});
    CheckRefused(reader, {DT_INT64},
                 Damaged(SavedAfter(reader, {DT_INT64}, 1), "/read", I64(7)),
                 "/read");
  }
}

TEST_CASE(
    "itckpt2: a state from another pipeline is InvalidArgument "
    "naming the entry it lacks",
    "[itckpt2]") {
  const Tensor window = Window(Range(0, 6), 2, 1, 1, false);
  const Tensor unbatch = Op("UnbatchDataset", {Batch(Range(0, 6), 2)});
  CheckRefused(unbatch, {DT_INT64}, SavedAfter(window, {DT_VARIANT}, 1),
               "no entry");
  CheckRefused(window, {DT_VARIANT}, SavedAfter(unbatch, {DT_INT64}, 1),
               "no entry");
  // The refused iterator is unharmed: it starts from the beginning.
  ScopedIterator it(unbatch, {DT_INT64});
  CHECK_FALSE(it.Restore(SavedAfter(window, {DT_VARIANT}, 1)).ok());
  absl::StatusOr<std::vector<Tensor>> first = it.Next();
  REQUIRE(first.ok());
  CHECK((*first)[0].scalar<int64_t>() == 0);
}

TEST_CASE(
    "itckpt2: a state that would hold a dataset is Unimplemented "
    "when saved, and the iterator goes on",
    "[itckpt2]") {
  // The outer window buffers the inner window's elements: datasets.
  const Tensor windows =
      Window(Window(Range(0, 6), 2, 1, 1, false), 2, 1, 1, false);
  ScopedIterator it(windows, {DT_VARIANT});
  REQUIRE(it.Next().ok());
  CHECK_THAT(it.Save().status(),
             StatusIs(absl::StatusCode::kUnimplemented, "holds a dataset"));
  CHECK(it.Next().ok());
}

TEST_CASE(
    "itckpt2: SlidingWindowDataset refuses to save, as TensorFlow "
    "2.21 fails to",
    "[itckpt2]") {
  const Tensor sliding =
      Run1(TestNodeBuilder("sw", "SlidingWindowDataset", 4)
               .Attr("output_types", DataTypeVector{DT_INT64})
               .Attr("drop_remainder", false)
               .Build(),
           {Range(0, 6), I64(2), I64(1), I64(1)});
  ScopedIterator it(sliding, {DT_INT64});
  REQUIRE(it.Next().ok());
  CHECK_THAT(it.Save().status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                          "SlidingWindowDataset"));
  CHECK(it.Next().ok());
}

}  // namespace
}  // namespace dfx

// tf.data kernels one op at a time: iterators over slices, shuffles and
// batches, the multi-device iterator's shards, and the inputs they refuse.
// TensorFlow's elements and orders for whole pipelines (map, filter,
// shuffle seeds, ...) are in tests/golden (family "dataset").
#include <algorithm>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

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

Tensor Int64s(std::vector<int64_t> v) {
  return Tensor::FromVector<int64_t>(v);
}

// One output of a kernel that must succeed.
Tensor Run1(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE(out.status().ok());
  REQUIRE(!out->empty());
  return (*out)[0];
}

Tensor Slices(std::vector<int64_t> values) {
  return Run1(TestNodeBuilder("slices", "TensorSliceDataset", 1)
                  .Attr("Toutput_types", DataTypeVector{DT_INT64})
                  .Build(),
              {Int64s(std::move(values))});
}

Tensor Unary(const std::string& op, const Tensor& input,
             std::vector<Tensor> args) {
  args.insert(args.begin(), input);
  return Run1(TestNodeBuilder(op, op, static_cast<int>(args.size()))
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              args);
}

// An anonymous iterator's handle, deleted (DeleteIterator) when it goes out
// of scope, as an eager context deletes its iterators when it closes: the
// iterator's threads (a prefetch's producer) are joined then, not left
// running in the test device's resource manager until the process exits.
class ScopedIterator {
 public:
  explicit ScopedIterator(Tensor handle) : handle_(std::move(handle)) {}
  ScopedIterator(const ScopedIterator&) = delete;
  ScopedIterator& operator=(const ScopedIterator&) = delete;
  ~ScopedIterator() {
    // NotFound when the test deleted it already.
    (void)RunKernel(TestNodeBuilder("del", "DeleteIterator", 2).Build(),
                    {handle_, Tensor(DT_VARIANT, TensorShape({}))});
  }
  operator const Tensor&() const { return handle_; }

 private:
  Tensor handle_;
};

// A new iterator over `dataset`, made.
ScopedIterator Iterate(const Tensor& dataset) {
  Tensor it = Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                       .Attr("output_types", DataTypeVector{DT_INT64})
                       .Build(),
                   {});
  REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                    {dataset, it})
              .ok());
  return ScopedIterator(std::move(it));
}

absl::StatusOr<std::vector<Tensor>> GetNext(const Tensor& it) {
  return RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                       .Attr("output_types", DataTypeVector{DT_INT64})
                       .Build(),
                   {it});
}

// Every element until OutOfRange (at most `limit`), flattened.
std::vector<int64_t> Drain(const Tensor& it, int limit = 1000) {
  std::vector<int64_t> out;
  for (int i = 0; i < limit; ++i) {
    absl::StatusOr<std::vector<Tensor>> e = GetNext(it);
    if (!e.ok()) {
      REQUIRE_THAT(e.status(),
                   StatusIs(absl::StatusCode::kOutOfRange, "End of sequence"));
      return out;
    }
    for (int64_t v : (*e)[0].span<int64_t>()) out.push_back(v);
  }
  return out;
}

TEST_CASE("dataset: slices iterate in order, end with OutOfRange, and a new "
          "MakeIterator starts over") {
  Tensor ds = Slices({5, 6, 7});
  ScopedIterator it = Iterate(ds);
  CHECK(Drain(it) == std::vector<int64_t>{5, 6, 7});
  // Past the end it stays at the end.
  CHECK_THAT(GetNext(it).status(), StatusIs(absl::StatusCode::kOutOfRange));
  REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                    {ds, it})
              .ok());
  CHECK(Drain(it) == std::vector<int64_t>{5, 6, 7});
}

TEST_CASE("dataset: batch, repeat, take and skip compose") {
  Tensor ds =
      Unary("RepeatDataset", Slices({1, 2, 3}), {Tensor::Scalar<int64_t>(2)});
  ds = Unary("SkipDataset", ds, {Tensor::Scalar<int64_t>(1)});
  ds = Unary("TakeDataset", ds, {Tensor::Scalar<int64_t>(4)});
  ds = Unary("BatchDatasetV2", ds,
             {Tensor::Scalar<int64_t>(3), Tensor::Scalar<bool>(false)});
  ScopedIterator it = Iterate(ds);
  absl::StatusOr<std::vector<Tensor>> first = GetNext(it);
  REQUIRE(first.ok());
  CHECK((*first)[0].shape() == TensorShape({3}));
  absl::StatusOr<std::vector<Tensor>> second = GetNext(it);
  REQUIRE(second.ok());
  CHECK((*second)[0].shape() == TensorShape({1}));
  std::vector<int64_t> all;
  for (int64_t v : (*first)[0].span<int64_t>()) all.push_back(v);
  for (int64_t v : (*second)[0].span<int64_t>()) all.push_back(v);
  CHECK(all == std::vector<int64_t>{2, 3, 1, 2});
  CHECK_THAT(GetNext(it).status(), StatusIs(absl::StatusCode::kOutOfRange));
}

Tensor Shuffle(const Tensor& input, int64_t buffer, int64_t seed,
               int64_t seed2, bool reshuffle) {
  Tensor dummy = Run1(TestNodeBuilder("dummy", "DummySeedGenerator", 0)
                          .Build(),
                      {});
  return Run1(TestNodeBuilder("shuffle", "ShuffleDatasetV3", 5)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Attr("reshuffle_each_iteration", reshuffle)
                  .Build(),
              {input, Tensor::Scalar<int64_t>(buffer),
               Tensor::Scalar<int64_t>(seed), Tensor::Scalar<int64_t>(seed2),
               dummy});
}

TEST_CASE("dataset: a shuffle is a permutation that fixed seeds repeat "
          "and reshuffling changes per iterator") {
  std::vector<int64_t> values(50);
  for (int i = 0; i < 50; ++i) values[i] = i;
  Tensor fixed = Shuffle(Slices(values), 10, 7, 9, /*reshuffle=*/false);
  std::vector<int64_t> a = Drain(Iterate(fixed));
  std::vector<int64_t> b = Drain(Iterate(fixed));
  CHECK(a == b);
  CHECK(a != values);
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == values);

  Tensor reshuffled = Shuffle(Slices(values), 10, 7, 9, /*reshuffle=*/true);
  std::vector<int64_t> first = Drain(Iterate(reshuffled));
  std::vector<int64_t> second = Drain(Iterate(reshuffled));
  CHECK(first != second);
  std::sort(second.begin(), second.end());
  CHECK(second == values);

  // Seeds (0, 0) ask for random ones; a buffer far larger than the input
  // costs only what it holds.
  Tensor random = Shuffle(Slices(values), int64_t{1} << 40, 0, 0, true);
  std::vector<int64_t> r = Drain(Iterate(random));
  std::sort(r.begin(), r.end());
  CHECK(r == values);
}

TEST_CASE("dataset: a prefetch yields its input in order and stops its "
          "producer when the iterator goes") {
  auto prefetch = [](const Tensor& input, int64_t buffer) {
    return Unary("PrefetchDataset", input, {Tensor::Scalar<int64_t>(buffer)});
  };
  std::vector<int64_t> values(40);
  for (int i = 0; i < 40; ++i) values[i] = 3 * i;
  for (int64_t buffer : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{-1}}) {
    INFO("buffer_size " << buffer);
    ScopedIterator it = Iterate(prefetch(Slices(values), buffer));
    CHECK(Drain(it) == values);
    // The end stays the end.
    CHECK_THAT(GetNext(it).status(), StatusIs(absl::StatusCode::kOutOfRange));
  }
  // An endless input: the producer fills its buffer and waits; deleting
  // the iterator stops it (the test would hang otherwise).
  Tensor endless = Unary("RepeatDataset", Slices({1, 2}),
                         {Tensor::Scalar<int64_t>(-1)});
  ScopedIterator it = Iterate(prefetch(endless, 3));
  CHECK(Drain(it, 5) == std::vector<int64_t>{1, 2, 1, 2, 1});
  REQUIRE(RunKernel(TestNodeBuilder("del", "DeleteIterator", 2).Build(),
                    {it, Tensor(DT_VARIANT, TensorShape({}))})
              .ok());
  CHECK_THAT(GetNext(it).status(), StatusIs(absl::StatusCode::kNotFound));
}

TEST_CASE("dataset: a cache keeps the first complete pass only") {
  std::vector<int64_t> values(30);
  for (int i = 0; i < 30; ++i) values[i] = i;
  // Random seeds: every pass of the shuffle differs, unless cached.
  Tensor shuffled = Shuffle(Slices(values), 30, 0, 0, /*reshuffle=*/true);
  Tensor cached = Run1(TestNodeBuilder("cache", "CacheDataset", 2)
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build(),
                       {shuffled, Tensor::Scalar<std::string>("")});
  // A pass left unfinished keeps nothing.
  CHECK(Drain(Iterate(cached), 3).size() == 3);
  std::vector<int64_t> first = Drain(Iterate(cached));
  std::vector<int64_t> second = Drain(Iterate(cached));
  CHECK(first.size() == 30);
  CHECK(first == second);
  CHECK(Drain(Iterate(shuffled)) != first);
  // File caches are not supported, and say so.
  CHECK_THAT(RunKernel(TestNodeBuilder("cache", "CacheDataset", 2)
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build(),
                       {shuffled, Tensor::Scalar<std::string>("/tmp/c")})
                 .status(),
             StatusIs(absl::StatusCode::kUnimplemented, "memory only"));
}

// tests/golden/data/tfrecord, written by TensorFlow (gen_tfrecord.py).
const std::string kTfRecordDir =
    DFX_TEST_DATA_DIR "/../golden/data/tfrecord";

std::vector<std::string> ExpectedLines() {
  std::ifstream in(kTfRecordDir + "/expected.txt");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Every string element of a file dataset op over `file`, or the first
// error other than the end of input.
absl::StatusOr<std::vector<std::string>> ReadRecords(
    const std::string& op, const std::string& file,
    const std::string& compression = "") {
  Tensor ds = Run1(TestNodeBuilder("files", op, 3).Build(),
                   {Tensor::Scalar<std::string>(file),
                    Tensor::Scalar<std::string>(compression),
                    Tensor::Scalar<int64_t>(0)});
  Tensor it = Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                       .Attr("output_types", DataTypeVector{DT_STRING})
                       .Build(),
                   {});
  REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                    {ds, it})
              .ok());
  std::vector<std::string> out;
  while (true) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", DataTypeVector{DT_STRING})
                      .Build(),
                  {it});
    if (!e.ok()) {
      if (absl::IsOutOfRange(e.status())) return out;
      return e.status();
    }
    out.push_back((*e)[0].scalar<std::string>());
  }
}

std::vector<std::string> ReadFile(const std::string& op,
                                  const std::string& file,
                                  const std::string& compression = "") {
  absl::StatusOr<std::vector<std::string>> records =
      ReadRecords(op, file, compression);
  REQUIRE(records.ok());
  return *std::move(records);
}

TEST_CASE("dataset: TFRecords and text lines TensorFlow wrote read and parse "
          "to TensorFlow's values") {
  const std::vector<std::string> expected = ExpectedLines();
  REQUIRE(expected.size() == 7);
  std::vector<std::string> records =
      ReadFile("TFRecordDataset", kTfRecordDir + "/examples.tfrecord");
  REQUIRE(records.size() == 3);
  // The GZIP and ZLIB copies TensorFlow wrote hold the same records.
  CHECK(ReadFile("TFRecordDataset", kTfRecordDir + "/examples.tfrecord.gz",
                 "GZIP") == records);
  CHECK(ReadFile("TFRecordDataset", kTfRecordDir + "/examples.tfrecord.zz",
                 "ZLIB") == records);
  // parse_example over the three records at once.
  Tensor serialized(DT_STRING, TensorShape({3}));
  for (int i = 0; i < 3; ++i) serialized.data<std::string>()[i] = records[i];
  NodeDef parse = TestNodeBuilder("parse", "ParseExampleV2", 9)
                      .Attr("Tdense", DataTypeVector{DT_STRING, DT_FLOAT,
                                                     DT_FLOAT, DT_INT64})
                      .Attr("num_sparse", 0)
                      .Attr("sparse_types", DataTypeVector{})
                      .Attr("ragged_value_types", DataTypeVector{})
                      .Attr("ragged_split_types", DataTypeVector{})
                      .Build();
  auto* shapes = (*parse.mutable_attr())["dense_shapes"].mutable_list();
  shapes->add_shape();                                // name: []
  shapes->add_shape()->add_dim()->set_size(2);        // w: [2]
  shapes->add_shape()->add_dim()->set_size(3);        // x: [3]
  shapes->add_shape();                                // y: []
  Tensor keys(DT_STRING, TensorShape({4}));
  const char* names[] = {"name", "w", "x", "y"};
  for (int i = 0; i < 4; ++i) keys.data<std::string>()[i] = names[i];
  absl::StatusOr<std::vector<Tensor>> parsed = RunKernel(
      parse, {serialized, Tensor(DT_STRING, TensorShape({0})),
              Tensor(DT_STRING, TensorShape({0})), keys,
              Tensor(DT_STRING, TensorShape({0})),
              Tensor(DT_STRING, TensorShape({0})),
              Tensor::FromVector<float>({0.5f, 1.5f}),
              Tensor(DT_FLOAT, TensorShape({0})),
              Tensor(DT_INT64, TensorShape({0}))});
  REQUIRE(parsed.ok());
  const Tensor& name = (*parsed)[0];
  const Tensor& w = (*parsed)[1];
  const Tensor& x = (*parsed)[2];
  const Tensor& y = (*parsed)[3];
  REQUIRE(x.shape() == TensorShape({3, 3}));
  for (int r = 0; r < 3; ++r) {
    std::istringstream line(expected[r]);
    int64_t want_y;
    double x0, x1, x2, w0, w1;
    std::string want_name;
    line >> want_y >> x0 >> x1 >> x2 >> want_name >> w0 >> w1;
    INFO("record " << r << ": " << expected[r]);
    CHECK(y.data<int64_t>()[r] == want_y);
    CHECK(x.data<float>()[3 * r] == static_cast<float>(x0));
    CHECK(x.data<float>()[3 * r + 1] == static_cast<float>(x1));
    CHECK(x.data<float>()[3 * r + 2] == static_cast<float>(x2));
    CHECK(name.data<std::string>()[r] == want_name);
    CHECK(w.data<float>()[2 * r] == static_cast<float>(w0));
    CHECK(w.data<float>()[2 * r + 1] == static_cast<float>(w1));
  }
  // A feature missing with no default is InvalidArgument naming it.
  Tensor no_default = Tensor(DT_FLOAT, TensorShape({0}));
  CHECK_THAT(RunKernel(parse, {serialized, Tensor(DT_STRING, TensorShape({0})),
                               Tensor(DT_STRING, TensorShape({0})), keys,
                               Tensor(DT_STRING, TensorShape({0})),
                               Tensor(DT_STRING, TensorShape({0})), no_default,
                               no_default, Tensor(DT_INT64, TensorShape({0}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Feature: w (data type: float) is required"));

  // "w" as a VarLenFeature: absent from record 1.
  NodeDef sparse = TestNodeBuilder("parse", "ParseExampleV2", 5)
                       .Attr("Tdense", DataTypeVector{})
                       .Attr("num_sparse", 1)
                       .Attr("sparse_types", DataTypeVector{DT_FLOAT})
                       .Attr("ragged_value_types", DataTypeVector{})
                       .Attr("ragged_split_types", DataTypeVector{})
                       .Build();
  (*sparse.mutable_attr())["dense_shapes"].mutable_list();
  Tensor w_key(DT_STRING, TensorShape({1}));
  w_key.data<std::string>()[0] = "w";
  absl::StatusOr<std::vector<Tensor>> w_sparse = RunKernel(
      sparse, {serialized, Tensor(DT_STRING, TensorShape({0})), w_key,
               Tensor(DT_STRING, TensorShape({0})),
               Tensor(DT_STRING, TensorShape({0}))});
  REQUIRE(w_sparse.ok());
  auto ints = [](const Tensor& t) {
    auto s = t.span<int64_t>();
    return std::vector<int64_t>(s.begin(), s.end());
  };
  CHECK(ints((*w_sparse)[0]) == std::vector<int64_t>{0, 0, 0, 1, 2, 0, 2, 1});
  auto w_values = (*w_sparse)[1].span<float>();
  CHECK(std::vector<float>(w_values.begin(), w_values.end()) ==
        std::vector<float>{0, 0, 2, -2});
  CHECK(ints((*w_sparse)[2]) == std::vector<int64_t>{3, 2});

  // Through a dataset a SparseTensor is three variants; two of them
  // stacked deserialize with the stack's dimension folded in.
  Tensor one = Run1(TestNodeBuilder("ser", "SerializeSparse", 3)
                        .Attr("T", DT_FLOAT)
                        .Attr("out_type", DT_VARIANT)
                        .Build(),
                    *w_sparse);
  Tensor two(DT_VARIANT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) {
    two.data<Variant>()[i] = one.data<Variant>()[i % 3];
  }
  absl::StatusOr<std::vector<Tensor>> back =
      RunKernel(TestNodeBuilder("de", "DeserializeSparse", 1)
                    .Attr("dtype", DT_FLOAT)
                    .Attr("Tserialized", DT_VARIANT)
                    .Build(),
                {two});
  REQUIRE(back.ok());
  CHECK(ints((*back)[2]) == std::vector<int64_t>{2, 3, 2});
  CHECK((*back)[0].shape() == TensorShape({8, 3}));
  CHECK(ints((*back)[0])[12] == 1);  // the 5th value is the second copy's

  std::vector<std::string> lines =
      ReadFile("TextLineDataset", kTfRecordDir + "/lines.txt");
  REQUIRE(lines.size() == 4);
  for (int i = 0; i < 4; ++i) CHECK("line " + lines[i] == expected[3 + i]);
}

TEST_CASE(
    "dataset: a corrupted or truncated record is DataLoss and a cut header "
    "ends the file") {
  std::ifstream in(kTfRecordDir + "/examples.tfrecord", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 40);
  const testing::TempDir tmp("dfx_tfrecord_");
  const std::string& dir = tmp.path();
  auto read_all = [](const std::string& file) {
    return ReadRecords("TFRecordDataset", file).status();
  };
  std::string flipped = bytes;
  flipped[30] = static_cast<char>(flipped[30] ^ 0xFF);
  std::ofstream(dir + "/flipped.tfrecord", std::ios::binary) << flipped;
  CHECK_THAT(read_all(dir + "/flipped.tfrecord"),
             StatusIs(absl::StatusCode::kDataLoss, "CRC32C"));
  std::ofstream(dir + "/short.tfrecord", std::ios::binary)
      << bytes.substr(0, bytes.size() - 3);
  CHECK_THAT(read_all(dir + "/short.tfrecord"),
             StatusIs(absl::StatusCode::kDataLoss, "truncated"));
  CHECK_THAT(read_all(dir + "/none.tfrecord"),
             StatusIs(absl::StatusCode::kNotFound));
  // Cut off within the next record's 12-byte header: the file ends there,
  // as TensorFlow 2.21's TFRecordDataset and tf_record_iterator read it
  // (its RecordReader takes the short header read for the end of file).
  std::ofstream(dir + "/header.tfrecord", std::ios::binary)
      << bytes + bytes.substr(0, 5);
  absl::StatusOr<std::vector<std::string>> whole =
      ReadRecords("TFRecordDataset", kTfRecordDir + "/examples.tfrecord");
  REQUIRE(whole.ok());
  absl::StatusOr<std::vector<std::string>> cut_header =
      ReadRecords("TFRecordDataset", dir + "/header.tfrecord");
  REQUIRE(cut_header.ok());
  CHECK(*cut_header == *whole);
  // Cut off within its data: DataLoss, as TensorFlow's.
  std::ofstream(dir + "/data.tfrecord", std::ios::binary)
      << bytes + bytes.substr(0, 15);
  CHECK_THAT(read_all(dir + "/data.tfrecord"),
             StatusIs(absl::StatusCode::kDataLoss, "truncated"));
}

TEST_CASE("dataset: bad arguments are InvalidArgument naming the problem") {
  SECTION("slices of different lengths") {
    CHECK_THAT(RunKernel(TestNodeBuilder("s", "TensorSliceDataset", 2)
                             .Attr("Toutput_types",
                                   DataTypeVector{DT_INT64, DT_INT64})
                             .Build(),
                         {Int64s({1, 2}), Int64s({1, 2, 3})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "same size in the 0th dimension"));
  }
  SECTION("a scalar to slice") {
    CHECK_THAT(RunKernel(TestNodeBuilder("s", "TensorSliceDataset", 1)
                             .Attr("Toutput_types", DataTypeVector{DT_INT64})
                             .Build(),
                         {Tensor::Scalar<int64_t>(1)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "scalar"));
  }
  SECTION("batch size 0") {
    CHECK_THAT(RunKernel(TestNodeBuilder("b", "BatchDatasetV2", 3)
                             .Attr("output_types", DataTypeVector{DT_INT64})
                             .Build(),
                         {Slices({1}), Tensor::Scalar<int64_t>(0),
                          Tensor::Scalar<bool>(false)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Batch size must be greater than zero"));
  }
  SECTION("shuffle buffer 0") {
    CHECK_THAT(RunKernel(TestNodeBuilder("s", "ShuffleDataset", 4)
                             .Attr("output_types", DataTypeVector{DT_INT64})
                             .Build(),
                         {Slices({1}), Tensor::Scalar<int64_t>(0),
                          Tensor::Scalar<int64_t>(1),
                          Tensor::Scalar<int64_t>(2)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "buffer_size must be greater than zero"));
  }
  SECTION("a shard index out of range") {
    CHECK_THAT(RunKernel(TestNodeBuilder("s", "ShardDataset", 3)
                             .Attr("output_types", DataTypeVector{DT_INT64})
                             .Build(),
                         {Slices({1}), Tensor::Scalar<int64_t>(2),
                          Tensor::Scalar<int64_t>(2)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Index must be between 0 and 1"));
  }
  SECTION("a range with step 0") {
    CHECK_THAT(RunKernel(TestNodeBuilder("r", "RangeDataset", 3)
                             .Attr("output_types", DataTypeVector{DT_INT64})
                             .Build(),
                         {Tensor::Scalar<int64_t>(0),
                          Tensor::Scalar<int64_t>(5),
                          Tensor::Scalar<int64_t>(0)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "step"));
  }
  SECTION("a dataset whose types are not the op's output_types") {
    CHECK_THAT(RunKernel(TestNodeBuilder("s", "TensorSliceDataset", 1)
                             .Attr("Toutput_types", DataTypeVector{DT_INT32})
                             .Build(),
                         {Int64s({1, 2})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST_CASE("dataset: an iterator never made, a variant that is not a "
          "dataset, and a dataset that crossed tasks are refused") {
  Tensor it = Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                       .Attr("output_types", DataTypeVector{DT_INT64})
                       .Build(),
                   {});
  CHECK_THAT(GetNext(it).status(),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "iterator has not been initialized"));

  Tensor empty(DT_VARIANT, TensorShape({}));
  CHECK_THAT(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                       {empty, it})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "not a dataset"));

  // What a receiving task decodes: the dataset does not travel.
  VariantTensorDataProto wire;
  Slices({1}).scalar<Variant>().Encode(&wire);
  absl::StatusOr<Variant> decoded = Variant::Decode(wire);
  REQUIRE(decoded.ok());
  Tensor received(DT_VARIANT, TensorShape({}));
  received.scalar<Variant>() = *decoded;
  CHECK_THAT(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                       {received, it})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "cannot be sent between tasks"));

  // An iterator of int32 elements over a dataset of int64 ones.
  Tensor it32 = Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                         .Attr("output_types", DataTypeVector{DT_INT32})
                         .Build(),
                     {});
  CHECK_THAT(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                       {Slices({1}), it32})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "do not match"));
}

TEST_CASE("dataset: a multi-device iterator deals elements to its shards in "
          "turn and refuses a stale incarnation") {
  // TestNodeBuilder has no list(string) setter: set `devices` directly.
  NodeDef make = TestNodeBuilder("mdi", "AnonymousMultiDeviceIteratorV3", 0)
                     .Attr("output_types", DataTypeVector{DT_INT64})
                     .Build();
  auto* devices = (*make.mutable_attr())["devices"].mutable_list();
  devices->add_s("/job:w/replica:0/task:0/device:CPU:0");
  devices->add_s("/job:w/replica:0/task:0/device:CPU:1");
  Tensor mdi = Run1(make, {});
  Tensor incarnation =
      Run1(TestNodeBuilder("init", "MultiDeviceIteratorInit", 3).Build(),
           {Slices({10, 11, 12, 13, 14}), mdi, Tensor::Scalar<int64_t>(1)});
  auto shard = [&](int32_t s, const Tensor& inc) {
    return RunKernel(
        TestNodeBuilder("get", "MultiDeviceIteratorGetNextFromShard", 3)
            .Attr("output_types", DataTypeVector{DT_INT64})
            .Build(),
        {mdi, Tensor::Scalar<int32_t>(s), inc});
  };
  auto value = [&](int32_t s) {
    absl::StatusOr<std::vector<Tensor>> e = shard(s, incarnation);
    REQUIRE(e.ok());
    return (*e)[0].scalar<int64_t>();
  };
  CHECK(value(1) == 11);
  CHECK(value(1) == 13);
  CHECK(value(0) == 10);
  CHECK(value(0) == 12);
  CHECK(value(0) == 14);
  CHECK_THAT(shard(1, incarnation).status(),
             StatusIs(absl::StatusCode::kOutOfRange));
  CHECK_THAT(shard(0, Tensor::Scalar<int64_t>(99)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid incarnation id"));
}

}  // namespace
}  // namespace dfx

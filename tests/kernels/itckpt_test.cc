// The itckpt family (tests/golden/gen_itckpt.py: SerializeIterator and
// DeserializeIterator): TensorFlow 2.21's signatures, the error a pipeline
// with a dataset that cannot save gets, malformed states, and a save that
// pauses a prefetch thread while the consumer keeps reading.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "checkpoint/tensor_bundle.h"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/function.pb.h"
#include "runtime/cancellation.h"
#include "runtime/variant.h"
#include "tests/kernels/async_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

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
              {Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(n),
               Tensor::Scalar<int64_t>(1)});
}

Tensor Unary(const std::string& op, const Tensor& input,
             std::vector<Tensor> args) {
  args.insert(args.begin(), input);
  return Run1(TestNodeBuilder(op, op, static_cast<int>(args.size()))
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build(),
              args);
}

// An anonymous iterator, deleted (its prefetch thread joined) on scope exit.
class ScopedIterator {
 public:
  explicit ScopedIterator(const Tensor& dataset, DataType dtype = DT_INT64)
      : handle_(Run1(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                         .Attr("output_types", DataTypeVector{dtype})
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
  const Tensor& handle() const { return handle_; }

 private:
  Tensor handle_;
};

absl::StatusOr<std::vector<Tensor>> Serialize(const Tensor& it) {
  return RunKernel(TestNodeBuilder("save", "SerializeIterator", 1).Build(),
                   {it});
}

absl::Status Deserialize(const Tensor& it, const Tensor& state) {
  return RunKernel(TestNodeBuilder("restore", "DeserializeIterator", 2).Build(),
                   {it, state})
      .status();
}

int64_t Next(const Tensor& it) {
  absl::StatusOr<std::vector<Tensor>> e =
      RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {it});
  REQUIRE(e.status().ok());
  return (*e)[0].scalar<int64_t>();
}

// A GeneratorDataset whose state is 7 and whose next_func returns it,
// forever.
Tensor Generator() {
  FunctionDefLibrary library;
  const char* const kFunctions[] = {
      R"pb(signature {
             name: "init"
             output_arg { name: "out" type: DT_INT64 }
           }
           node_def {
             name: "c"
             op: "Const"
             attr {
               key: "dtype"
               value { type: DT_INT64 }
             }
             attr {
               key: "value"
               value {
                 tensor {
                   dtype: DT_INT64
                   tensor_shape {}
                   int64_val: 7
                 }
               }
             }
           }
           ret { key: "out" value: "c:output:0" })pb",
      R"pb(signature {
             name: "next"
             input_arg { name: "s" type: DT_INT64 }
             output_arg { name: "out" type: DT_INT64 }
           }
           node_def {
             name: "id"
             op: "Identity"
             input: "s"
             attr {
               key: "T"
               value { type: DT_INT64 }
             }
           }
           ret { key: "out" value: "id:output:0" })pb"};
  for (const char* text : kFunctions) {
    REQUIRE(google::protobuf::TextFormat::ParseFromString(
        text, library.add_function()));
  }
  NameAttrList init, next;
  init.set_name("init");
  next.set_name("next");
  NodeDef node = TestNodeBuilder("generator", "GeneratorDataset", 0)
                     .Attr("output_types", DataTypeVector{DT_INT64})
                     .Build();
  (*node.mutable_attr())["init_func"].mutable_func()->CopyFrom(init);
  (*node.mutable_attr())["next_func"].mutable_func()->CopyFrom(next);
  (*node.mutable_attr())["finalize_func"].mutable_func()->CopyFrom(next);
  for (const char* attr :
       {"Tinit_func_args", "Tnext_func_args", "Tfinalize_func_args"}) {
    (*node.mutable_attr())[attr].mutable_list();
  }
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
  REQUIRE(reg != nullptr);
  AddDefaultAttrs(reg->op_def, &node);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      StandardKernelRegistry()->CreateKernel(
          node, reg->op_def, testing::TestCpuDevice(), &library);
  REQUIRE(kernel.ok());
  OpKernelContext::Params params;
  params.op_kernel = kernel->get();
  params.device = testing::TestCpuDevice();
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  REQUIRE(ctx.status().ok());
  return (*ctx.mutable_outputs())[0];
}

TEST_CASE("Every itckpt op has TensorFlow 2.21's signature and CPU types",
          "[itckpt]") {
  testing::CheckSignaturesWithTensorFlow("itckpt", 2);
}

TEST_CASE("SerializeIterator's state is a vector of unknown length",
          "[itckpt]") {
  absl::StatusOr<PartialShape> s =
      InferShape(TestNodeBuilder("s", "SerializeIterator", 1).Build(),
                 {PartialShape::Known({})});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == UnknownDims(1).DebugString());
}

TEST_CASE(
    "A pipeline with a dataset that cannot save fails naming it, and "
    "its iterator goes on",
    "[itckpt]") {
  // GeneratorDataset (Dataset.from_generator's) cannot save, in dfx as in
  // TensorFlow; the take above it can.
  const Tensor generator = Generator();
  Tensor ds = Unary("TakeDataset", generator, {Tensor::Scalar<int64_t>(4)});
  ScopedIterator it(ds);
  ScopedIterator same(ds);
  CHECK(Next(it.handle()) == Next(same.handle()));
  CHECK_THAT(Serialize(it.handle()).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "Saving iterators of GeneratorDataset is not supported"));
  CHECK(Next(it.handle()) == Next(same.handle()));
}

TEST_CASE(
    "A random dataset's iterator saved and restored continues its stream, "
    "across the epochs of a repeat",
    "[itckpt]") {
  Tensor random =
      Run1(TestNodeBuilder("random", "RandomDataset", 2)
               .Attr("output_types", DataTypeVector{DT_INT64})
               .Build(),
           {Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(7)});
  Tensor epoch = Unary("TakeDataset", random, {Tensor::Scalar<int64_t>(3)});
  Tensor ds = Unary("RepeatDataset", epoch, {Tensor::Scalar<int64_t>(3)});
  ScopedIterator it(ds);
  std::vector<int64_t> first;
  for (int i = 0; i < 4; ++i) first.push_back(Next(it.handle()));
  absl::StatusOr<std::vector<Tensor>> state = Serialize(it.handle());
  REQUIRE(state.ok());
  std::vector<int64_t> rest;
  for (int i = 4; i < 9; ++i) rest.push_back(Next(it.handle()));
  // The second epoch starts the stream again (seeds fixed by the op), and
  // the words are not all equal.
  CHECK(first[3] == first[0]);
  CHECK(first[1] != first[0]);
  REQUIRE(Deserialize(it.handle(), (*state)[0]).ok());
  std::vector<int64_t> again;
  for (int i = 4; i < 9; ++i) again.push_back(Next(it.handle()));
  CHECK(again == rest);
}

TEST_CASE("DeserializeIterator rejects what is not an iterator state",
          "[itckpt]") {
  ScopedIterator it(Range(3));
  // A default (empty) variant, and a vector of two.
  CHECK_THAT(
      Deserialize(it.handle(), Tensor(DT_VARIANT, TensorShape({1}))),
      StatusIs(absl::StatusCode::kInvalidArgument, "not an iterator state"));
  CHECK_THAT(Deserialize(it.handle(), Tensor(DT_VARIANT, TensorShape({2}))),
             StatusIs(absl::StatusCode::kInvalidArgument, "shape [2]"));
  // The state of another pipeline (a range under a take) lacks this one's
  // entries.
  Tensor other = Unary("TakeDataset", Range(3), {Tensor::Scalar<int64_t>(2)});
  ScopedIterator other_it(other);
  absl::StatusOr<std::vector<Tensor>> state = Serialize(other_it.handle());
  REQUIRE(state.ok());
  Tensor filter_like =
      Unary("SkipDataset", Range(3), {Tensor::Scalar<int64_t>(1)});
  ScopedIterator skip_it(filter_like);
  CHECK(Deserialize(skip_it.handle(), (*state)[0]).ok());  // same entries
  ScopedIterator zip_it(Range(3));
  CHECK_THAT(Deserialize(zip_it.handle(), (*state)[0]),
             StatusIs(absl::StatusCode::kInvalidArgument, "no entry"));
  // The failed restore left the iterator where it was.
  CHECK(Next(zip_it.handle()) == 0);
}

TEST_CASE(
    "Saving a prefetching iterator pauses its thread, and both the saved "
    "and the restored iterator continue the sequence",
    "[itckpt]") {
  Tensor ds = Unary("PrefetchDataset", Range(50), {Tensor::Scalar<int64_t>(4)});
  ScopedIterator a(ds);
  ScopedIterator b(ds);
  std::vector<int64_t> seen;
  for (int round = 0; round < 5; ++round) {
    seen.push_back(Next(a.handle()));
    absl::StatusOr<std::vector<Tensor>> state = Serialize(a.handle());
    REQUIRE(state.ok());
    REQUIRE(Deserialize(b.handle(), (*state)[0]).ok());
    const int64_t from_a = Next(a.handle());
    const int64_t from_b = Next(b.handle());
    CHECK(from_a == from_b);
    seen.push_back(from_a);
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i] == static_cast<int64_t>(i));
  }
}

TEST_CASE(
    "Saving a prefetching iterator whose thread is blocked reading its input "
    "ends with the saving step's cancellation, and the iterator goes on",
    "[itckpt]") {
  testing::TempDir dir;
  const std::string fifo = dir / "lines";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // The writing end, opened read-write so that neither open waits.
  const int writer = open(fifo.c_str(), O_RDWR);
  REQUIRE(writer >= 0);
  const Tensor lines =
      Run1(TestNodeBuilder("lines", "TextLineDataset", 3).Build(),
           {Tensor::Scalar<std::string>(fifo), Tensor::Scalar<std::string>(""),
            Tensor::Scalar<int64_t>(256)});
  const Tensor ds = Run1(TestNodeBuilder("prefetch", "PrefetchDataset", 2)
                             .Attr("output_types", DataTypeVector{DT_STRING})
                             .Build(),
                         {lines, Tensor::Scalar<int64_t>(2)});
  ScopedIterator it(ds, DT_STRING);
  auto next = [&it] {
    return RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                         .Attr("output_types", DataTypeVector{DT_STRING})
                         .Build(),
                     {it.handle()});
  };
  // "a" and a line without its end, one read chunk of the line reader
  // (16 KiB): after "a" the prefetch thread, with room for another
  // element, goes on reading and waits in read() for the rest.
  const std::string chunk = "a\n" + std::string((1 << 14) - 2, 'b');
  REQUIRE(write(writer, chunk.data(), chunk.size()) ==
          static_cast<ssize_t>(chunk.size()));
  absl::StatusOr<std::vector<Tensor>> a = next();
  REQUIRE(a.ok());
  CHECK((*a)[0].scalar<std::string>() == "a");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CancellationManager cm;
  absl::Status saved;
  std::atomic<bool> returned{false};
  std::thread saver([&] {
    absl::StatusOr<std::unique_ptr<testing::Call>> call = testing::TryStart(
        TestNodeBuilder("save", "SerializeIterator", 1).Build(), {it.handle()},
        &cm);
    saved = call.ok() ? (*call)->status() : call.status();
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK_FALSE(returned.load());  // waiting for the thread to pause
  cm.StartCancel();
  saver.join();
  CHECK_THAT(saved, StatusIs(absl::StatusCode::kCancelled, "prefetch"));
  // Nothing was lost: the line ended now comes next, then the end.
  REQUIRE(write(writer, "\n", 1) == 1);
  REQUIRE(close(writer) == 0);
  absl::StatusOr<std::vector<Tensor>> b = next();
  REQUIRE(b.ok());
  CHECK((*b)[0].scalar<std::string>() == chunk.substr(2));
  CHECK(Serialize(it.handle()).ok());  // the thread reached the end
  CHECK_THAT(next().status(), StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_CASE(
    "A variant tensor survives a checkpoint, and a damaged one is "
    "DataLoss",
    "[itckpt]") {
  testing::TempDir dir;
  VariantTensorDataProto proto;
  proto.set_type_name("tensorflow::Iterator");
  proto.set_metadata("position");
  Tensor::Scalar<int64_t>(7).AsProtoTensorContent(proto.add_tensors());
  Tensor t(DT_VARIANT, TensorShape({2}));
  t.data<Variant>()[0] = Variant::Make<OpaqueVariant>(proto);  // [1]: empty
  const std::string prefix = dir / "ckpt";
  {
    absl::StatusOr<std::unique_ptr<BundleWriter>> w =
        BundleWriter::Create(prefix);
    REQUIRE(w.ok());
    REQUIRE((*w)->Add("state", t).ok());
    REQUIRE((*w)->Finish().ok());
  }
  {
    absl::StatusOr<std::unique_ptr<BundleReader>> r =
        BundleReader::Open(prefix);
    REQUIRE(r.ok());
    absl::StatusOr<Tensor> back = (*r)->Lookup("state");
    REQUIRE(back.ok());
    REQUIRE(back->shape() == TensorShape({2}));
    const OpaqueVariant* v = back->data<Variant>()[0].get<OpaqueVariant>();
    REQUIRE(v != nullptr);
    CHECK(v->proto().SerializeAsString() == proto.SerializeAsString());
    CHECK(back->data<Variant>()[1].is_empty());
  }
  // One byte of the serialized proto changed.
  const std::string data = DataFilename(prefix, 0, 1);
  std::string bytes;
  {
    std::ifstream in(data, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t at = bytes.find("position");
  REQUIRE(at != std::string::npos);
  bytes[at] = 'P';
  dir.Write("ckpt.data-00000-of-00001", bytes);
  absl::StatusOr<std::unique_ptr<BundleReader>> r = BundleReader::Open(prefix);
  REQUIRE(r.ok());
  CHECK_THAT((*r)->Lookup("state").status(),
             StatusIs(absl::StatusCode::kDataLoss, "checksum"));
}

}  // namespace
}  // namespace dfx

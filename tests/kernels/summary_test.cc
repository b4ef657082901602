// The summary family beyond its golden cases: signatures, histogram
// buckets, Print's stderr text, and the event files the summary writer writes —
// their names, records and flushing, and that they hold the records
// TensorFlow's own writer wrote (tests/golden/data/summary/tf_written.tfevents)
// but for wall times.
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "kernels/summary/event_writer.h"
#include "kernels/summary/summary_convert.h"
#include "proto/event.pb.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor Str(const std::string& v) {
  Tensor t(DT_STRING, TensorShape({}));
  t.scalar<std::string>() = v;
  return t;
}

template <typename T>
Tensor Scalar(T v) {
  return MakeTensor<T>({v}, TensorShape({}));
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The events of the only event file in `dir`.
std::vector<Event> ReadEvents(const fs::path& dir, std::string* name = nullptr) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  if (name != nullptr) *name = files[0].filename().string();
  auto records = summary::ParseRecords(ReadFile(files[0]), files[0].string());
  REQUIRE_OK(records);
  std::vector<Event> events;
  for (const std::string& r : *records) {
    Event e;
    REQUIRE(e.ParseFromString(r));
    events.push_back(e);
  }
  return events;
}

// A writer resource `name` writing into `dir`; returns its handle.
Tensor CreateWriter(const std::string& name, const fs::path& dir,
                    int max_queue = 10, int flush_millis = 1000000,
                    const std::string& suffix = "") {
  const Tensor handle = RunOne(
      TestNodeBuilder("w", "SummaryWriter", 0).Attr("shared_name", name.c_str())
          .Build(),
      {});
  REQUIRE_OK(RunKernel(TestNodeBuilder("c", "CreateSummaryFileWriter", 5).Build(),
                       {handle, Str(dir.string()), Scalar<int32_t>(max_queue),
                        Scalar<int32_t>(flush_millis), Str(suffix)}));
  return handle;
}

absl::Status WriteScalar(const Tensor& writer, int64_t step, float value) {
  return RunKernel(
             TestNodeBuilder("s", "WriteScalarSummary", 4).Attr("T", DT_FLOAT)
                 .Build(),
             {writer, Scalar<int64_t>(step), Str("loss"), Scalar<float>(value)})
      .status();
}

absl::Status Run0(const char* op, const Tensor& writer) {
  return RunKernel(TestNodeBuilder("x", op, 1).Build(), {writer}).status();
}

TEST_CASE("Every summary op has TensorFlow 2.21's signature and CPU types",
          "[summary]") {
  testing::CheckSignaturesWithTensorFlow("summary", 22);
}

TEST_CASE("The histogram has TensorFlow's default buckets", "[summary]") {
  summary::Histogram h;
  HistogramProto empty;
  h.Encode(&empty);
  // All buckets empty: one collapsed bucket ending at DBL_MAX.
  REQUIRE(empty.bucket_limit_size() == 1);
  CHECK(empty.bucket_limit(0) == DBL_MAX);
  CHECK(empty.min() == DBL_MAX);
  CHECK(empty.max() == -DBL_MAX);
  h.Add(1.0);
  h.Add(-1e30);
  HistogramProto p;
  h.Encode(&p);
  CHECK(p.num() == 2);
  CHECK(p.sum() == 1.0 - 1e30);
  // -1e30 falls in the bucket after -DBL_MAX's (which is empty, so it
  // stays alone), 1.0 in the one ending at the first limit past 1.0
  // (1e-12 * 1.1^k); the empty runs between collapse into one each.
  REQUIRE(p.bucket_size() == 5);
  CHECK(p.bucket_limit(0) == -DBL_MAX);
  CHECK(p.bucket(0) == 0.0);
  CHECK(p.bucket(1) == 1.0);
  CHECK(p.bucket(2) == 0.0);
  CHECK(p.bucket(3) == 1.0);
  CHECK(p.bucket_limit(3) > 1.0);
  CHECK(p.bucket_limit(3) < 1.1);
  CHECK(p.bucket_limit(4) == DBL_MAX);
}

TEST_CASE("Print writes TensorFlow's v1 text to stderr and passes its input",
          "[summary]") {
  std::stringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  Tensor strings(DT_STRING, TensorShape({2}));
  strings.data<std::string>()[0] = "a";
  strings.data<std::string>()[1] = "b\n";
  Tensor half(DT_HALF, TensorShape({2}));
  half.data<Eigen::half>()[0] = Eigen::half(0.1f);
  half.data<Eigen::half>()[1] = Eigen::half(1e10f);
  Tensor cube(DT_INT64, TensorShape({2, 2, 2}));
  for (int i = 0; i < 8; ++i) cube.data<int64_t>()[i] = i;
  const NodeDef node =
      TestNodeBuilder("p", "Print", 9)
          .Attr("T", DT_FLOAT)
          .Attr("U", DataTypeVector{DT_INT32, DT_INT32, DT_INT32, DT_BOOL,
                                    DT_STRING, DT_INT64, DT_HALF, DT_DOUBLE})
          .Attr("message", "msg: ")
          .Build();
  const std::vector<Tensor> inputs = {
      MakeVector<float>({1.5f, 2.0f}),
      Scalar<int32_t>(3),
      MakeVector<int32_t>({1, 2, 3, 4, 5}),
      MakeTensor<int32_t>({1, 2, 3, 4}, TensorShape({2, 2})),
      MakeVector<bool>({true, false}),
      strings,
      cube,
      half,
      Tensor(DT_DOUBLE, TensorShape({0, 3}))};
  auto out = RunKernel(node, inputs);
  (void)RunKernel(node, inputs);
  // first_n 0: nothing printed, the input still passed on.
  NodeDef silent = node;
  (*silent.mutable_attr())["first_n"].set_i(0);
  auto quiet = RunKernel(silent, inputs);
  std::cerr.rdbuf(old);
  REQUIRE_OK(quiet);
  CHECK(testing::Values<float>((*quiet)[0]) == std::vector<float>{1.5f, 2.0f});
  REQUIRE_OK(out);
  CHECK(testing::Values<float>((*out)[0]) == std::vector<float>{1.5f, 2.0f});
  // TensorFlow 2.21 printed this line for the same inputs.
  const std::string line =
      "msg: [3][1 2 3...][[1 2][3...]...][1 0][a b\\n][[[0 1][2...]]...]"
      "[0.0999755859 inf][]\n";
  CHECK(captured.str() == line + line);
}

TEST_CASE("Print formats numbers and other types as TensorFlow's v1 Print",
          "[summary]") {
  std::stringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  Tensor complex(DT_COMPLEX64, TensorShape({2}));
  Tensor bf16(DT_BFLOAT16, TensorShape({1}));
  bf16.data<Eigen::bfloat16>()[0] = Eigen::bfloat16(1.5f);
  const NodeDef node =
      TestNodeBuilder("p", "Print", 7)
          .Attr("T", DT_INT32)
          .Attr("U", DataTypeVector{DT_COMPLEX64, DT_UINT64, DT_FLOAT,
                                    DT_DOUBLE, DT_BFLOAT16, DT_INT32})
          .Attr("message", "c: ")
          .Build();
  auto out = RunKernel(
      node, {Scalar<int32_t>(1), complex,
             MakeVector<uint64_t>({(uint64_t{1} << 63) + 5}),
             MakeVector<float>({-0.0f, std::nanf(""), 1e-5f, 123456789.0f}),
             MakeVector<double>({1e100, 0.1}), bf16,
             Tensor(DT_INT32, TensorShape({1, 0}))});
  std::cerr.rdbuf(old);
  REQUIRE_OK(out);
  // TensorFlow 2.21's line for the same inputs.
  CHECK(captured.str() ==
        "c: [? ?][9223372036854775813][-0 nan 1e-05...][1e+100 0.1][1.5][]\n");
}

TEST_CASE("AudioSummary (rate attr) writes what AudioSummaryV2 does",
          "[summary]") {
  // TensorFlow 2.21 graphs cannot hold AudioSummary (deprecated at
  // GraphDef version 15), so no golden case runs it.
  const Tensor audio =
      MakeTensor<float>({0.5f, -0.25f, 1.5f, 0.0f}, TensorShape({2, 2}));
  const Tensor v1 = RunOne(TestNodeBuilder("snd", "AudioSummary", 2)
                               .Attr("sample_rate", 8000.4f)
                               .Attr("max_outputs", int64_t{1})
                               .Build(),
                           {Str("snd"), audio});
  const Tensor v2 = RunOne(TestNodeBuilder("snd", "AudioSummaryV2", 3)
                               .Attr("max_outputs", int64_t{1})
                               .Build(),
                           {Str("snd"), audio, Scalar<float>(8000.4f)});
  CHECK(v1.scalar<std::string>() == v2.scalar<std::string>());
  Summary s;
  REQUIRE(s.ParseFromString(v1.scalar<std::string>()));
  REQUIRE(s.value_size() == 1);
  CHECK(s.value(0).tag() == "snd/audio");
  CHECK(s.value(0).audio().length_frames() == 2);
  CHECK(s.value(0).audio().content_type() == "audio/wav");
  CHECK_THAT(RunError(TestNodeBuilder("snd", "AudioSummary", 2)
                          .Attr("sample_rate", 0.0f)
                          .Build(),
                      {Str("snd"), audio}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "sample_rate must be > 0"));
}

TEST_CASE("Timestamp is the time in seconds", "[summary]") {
  const Tensor t = RunOne(TestNodeBuilder("t", "Timestamp", 0).Build(), {});
  CHECK(t.scalar<double>() > 1.7e9);
  CHECK(t.scalar<double>() < 1e10);
}

TEST_CASE("The event file is named and begun as TensorFlow's", "[summary]") {
  const testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "name" / "sub";
  const Tensor w = CreateWriter("name_test", dir, 10, 1000000, ".v2");
  std::string name;
  std::vector<Event> events = ReadEvents(dir, &name);
  // events.out.tfevents.<10-digit secs>.<host>.<pid>.<n>.v2
  CHECK(absl::StartsWith(name, "events.out.tfevents."));
  CHECK(absl::EndsWith(name, ".v2"));
  CHECK(absl::StrContains(name, "." + std::to_string(getpid()) + "."));
  REQUIRE(events.size() == 1);
  CHECK(events[0].file_version() == "brain.Event:2");
  CHECK(events[0].source_metadata().writer() ==
        "tensorflow.core.util.events_writer");
  CHECK(events[0].wall_time() == std::floor(events[0].wall_time()));
  REQUIRE_OK(Run0("CloseSummaryWriter", w));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("Events wait for a flush, a full queue or the writer's close",
          "[summary]") {
  const testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "queue";
  const Tensor w = CreateWriter("queue_test", dir, /*max_queue=*/2);
  REQUIRE_OK(WriteScalar(w, 1, 0.5f));
  REQUIRE_OK(WriteScalar(w, 2, 0.25f));
  CHECK(ReadEvents(dir).size() == 1);  // the version event only
  REQUIRE_OK(WriteScalar(w, 3, 0.125f));  // 3 > max_queue: written
  std::vector<Event> events = ReadEvents(dir);
  REQUIRE(events.size() == 4);
  CHECK(events[3].step() == 3);
  CHECK(events[3].summary().value(0).tag() == "loss");
  CHECK(events[3].summary().value(0).simple_value() == 0.125f);
  REQUIRE_OK(WriteScalar(w, 4, 1.0f));
  REQUIRE_OK(Run0("FlushSummaryWriter", w));
  CHECK(ReadEvents(dir).size() == 5);
  REQUIRE_OK(WriteScalar(w, 5, 2.0f));
  REQUIRE_OK(Run0("CloseSummaryWriter", w));
  CHECK(ReadEvents(dir).size() == 6);
  // Closed: the resource is gone.
  CHECK_THAT(WriteScalar(w, 6, 1.0f), StatusIs(absl::StatusCode::kNotFound));
  CHECK_THAT(Run0("CloseSummaryWriter", w),
             StatusIs(absl::StatusCode::kNotFound));
  fs::remove_all(dir);
}

TEST_CASE("Summary writers refuse bad inputs with TensorFlow's codes",
          "[summary]") {
  const testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "errors";
  const Tensor w = CreateWriter("errors_test", dir);
  CHECK_THAT(
      RunKernel(TestNodeBuilder("s", "WriteScalarSummary", 4)
                    .Attr("T", DT_FLOAT)
                    .Build(),
                {w, MakeVector<int64_t>({1, 2}), Str("x"), Scalar<float>(1)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "step must be a scalar"));
  CHECK_THAT(
      RunKernel(TestNodeBuilder("r", "WriteRawProtoSummary", 3).Build(),
                {w, Scalar<int64_t>(1), Str("notaproto")})
          .status(),
      StatusIs(absl::StatusCode::kDataLoss,
               "Bad tf.compat.v1.Summary binary proto tensor string at index 0"));
  CHECK_THAT(
      RunKernel(TestNodeBuilder("h", "WriteHistogramSummary", 4)
                    .Attr("T", DT_DOUBLE)
                    .Build(),
                {w, Scalar<int64_t>(1), Str("hist"),
                 MakeVector<double>({1.0, std::nan("")})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Nan in summary histogram for: hist"));
  // A log directory that is a file.
  const fs::path file = fs::path(tmp.path()) / "errors_file";
  std::ofstream(file) << "x";
  const Tensor other = RunOne(
      TestNodeBuilder("w", "SummaryWriter", 0).Attr("shared_name", "file_test")
          .Build(),
      {});
  CHECK_THAT(RunKernel(TestNodeBuilder("c", "CreateSummaryFileWriter", 5).Build(),
                       {other, Str(file.string()), Scalar<int32_t>(1),
                        Scalar<int32_t>(1), Str("")})
                 .status(),
             StatusIs(absl::StatusCode::kFailedPrecondition, "not a directory"));
  CHECK_THAT(Run0("FlushSummaryWriter", other),
             StatusIs(absl::StatusCode::kNotFound));
  REQUIRE_OK(Run0("CloseSummaryWriter", w));
  fs::remove_all(dir);
  fs::remove(file);
}

TEST_CASE("A server's --data-dir confines the log directory", "[summary]") {
  const testing::TempDir tmp;
  const fs::path data = fs::path(tmp.path()) / "data_dir";
  fs::create_directories(data);
  REQUIRE_OK(SetDataDir(data.string()));
  const Tensor w = RunOne(
      TestNodeBuilder("w", "SummaryWriter", 0).Attr("shared_name", "confined")
          .Build(),
      {});
  auto create = [&](const std::string& logdir) {
    return RunKernel(TestNodeBuilder("c", "CreateSummaryFileWriter", 5).Build(),
                     {w, Str(logdir), Scalar<int32_t>(10),
                      Scalar<int32_t>(1000), Str("")})
        .status();
  };
  const absl::Status outside = create((data.parent_path() / "elsewhere").string());
  const absl::Status inside = create("logs/run1");
  REQUIRE_OK(SetDataDir(""));
  CHECK_THAT(outside, StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK(!fs::exists(data.parent_path() / "elsewhere"));
  REQUIRE_OK(inside);
  CHECK(ReadEvents(data / "logs" / "run1").size() == 1);
  REQUIRE_OK(Run0("CloseSummaryWriter", w));
  fs::remove_all(data);
}

// Writes what gen_summary.py's tf_event_file has TensorFlow write.
void WriteSameEvents(const Tensor& w) {
  REQUIRE_OK(WriteScalar(w, 1, 0.25f));
  REQUIRE_OK(RunKernel(TestNodeBuilder("h", "WriteHistogramSummary", 4)
                           .Attr("T", DT_FLOAT)
                           .Build(),
                       {w, Scalar<int64_t>(2), Str("weights"),
                        MakeVector<float>({1.0f, 2.0f, 2.0f, 3.5f, -1.0f})}));
  Tensor image(DT_UINT8, TensorShape({1, 2, 2, 3}));
  for (int i = 0; i < 12; ++i) image.data<uint8_t>()[i] = 20 * i;
  REQUIRE_OK(RunKernel(TestNodeBuilder("i", "WriteImageSummary", 5)
                           .Attr("T", DT_UINT8)
                           .Attr("max_images", int64_t{1})
                           .Build(),
                       {w, Scalar<int64_t>(3), Str("pic"), image,
                        MakeVector<uint8_t>({255, 0, 0, 255})}));
  SummaryMetadata metadata;
  metadata.mutable_plugin_data()->set_plugin_name("tensors");
  metadata.mutable_plugin_data()->set_content("x");
  REQUIRE_OK(RunKernel(
      TestNodeBuilder("t", "WriteSummary", 5).Attr("T", DT_INT32).Build(),
      {w, Scalar<int64_t>(4), MakeVector<int32_t>({1, 2}), Str("t"),
       Str(metadata.SerializeAsString())}));
}

TEST_CASE("dfx writes the event records TensorFlow wrote, but for times",
          "[summary]") {
  // TensorFlow's file, parsed with dfx's record reader.
  const fs::path tf_file =
      DFX_TEST_DATA_DIR "/../golden/data/summary/tf_written.tfevents";
  auto tf_records = summary::ParseRecords(ReadFile(tf_file), tf_file.string());
  REQUIRE_OK(tf_records);
  std::vector<Event> tf_events;
  for (const std::string& r : *tf_records) {
    Event e;
    REQUIRE(e.ParseFromString(r));
    tf_events.push_back(e);
  }
  REQUIRE(tf_events.size() == 5);
  CHECK(tf_events[0].file_version() == "brain.Event:2");
  CHECK(tf_events[1].summary().value(0).simple_value() == 0.25f);
  CHECK(tf_events[2].summary().value(0).histo().num() == 5);
  CHECK(tf_events[3].summary().value(0).image().width() == 2);
  CHECK(tf_events[4].summary().value(0).metadata().plugin_data().plugin_name() ==
        "tensors");

  const testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "same";
  const Tensor w = CreateWriter("same_test", dir);
  WriteSameEvents(w);
  REQUIRE_OK(Run0("CloseSummaryWriter", w));
  std::vector<Event> ours = ReadEvents(dir);
  REQUIRE(ours.size() == tf_events.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    INFO("event " << i);
    ours[i].clear_wall_time();
    tf_events[i].clear_wall_time();
    CHECK(ours[i].SerializeAsString() == tf_events[i].SerializeAsString());
  }
  fs::remove_all(dir);
}

TEST_CASE("Truncated and corrupted event files are DataLoss", "[summary]") {
  std::string bytes;
  summary::AppendRecord("hello", &bytes);
  summary::AppendRecord("world", &bytes);
  auto ok = summary::ParseRecords(bytes, "f");
  REQUIRE_OK(ok);
  CHECK(*ok == std::vector<std::string>{"hello", "world"});
  CHECK_THAT(summary::ParseRecords(bytes.substr(0, bytes.size() - 1), "f")
                 .status(),
             StatusIs(absl::StatusCode::kDataLoss, "truncated"));
  std::string bad = bytes;
  bad[13] ^= 1;
  CHECK_THAT(summary::ParseRecords(bad, "f").status(),
             StatusIs(absl::StatusCode::kDataLoss, "corrupted data"));
}

}  // namespace
}  // namespace dfx

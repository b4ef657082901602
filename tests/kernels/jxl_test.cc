// The jxl family's op (tests/golden/gen_jxl.py): DecodeJxl's TensorFlow 2.21
// signature and CPU types, and what the golden cases cannot show: its shape
// function, the bounds on what a header may make dfx allocate, and
// concurrent decodes of one file.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "catch2/catch.hpp"
#include "runtime/allocator.h"
#include "runtime/memory_limit.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

// A lossless 5x4 RGB image whose samples are 0, 1, ..., 59 (cjxl -d 0).
const unsigned char kRamp[] = {
    0xff, 0x0a, 0x18, 0x30, 0x10, 0x50, 0x5c, 0x08, 0x08, 0x02, 0x01,
    0x00, 0x74, 0x00, 0x4b, 0x18, 0x8b, 0x15, 0x42, 0x89, 0xe9, 0x26,
    0x5f, 0x1d, 0x80, 0xc9, 0xcc, 0x7c, 0x3d, 0x9c, 0x32, 0x1f, 0x27,
    0x66, 0x1e, 0x23, 0xe5, 0xc2, 0x00, 0x00, 0x00, 0x00, 0x00};

// Codestreams of a signature, a size header and default metadata only:
// 2^30 x 2^30, 2^16 x 2^15 and 2^15 x 2^14 pixels.
const char kHugeHeader[] = "\xff\x0a\xfe\xff\xff\xff\xf1\xff\xff\xff\x1f";
const char kOverCapHeader[] = "\xff\x0a\xfe\xff\x03\x00\xf0\xff\x3f\x00\x10";
const char kLargeHeader[] = "\xff\x0a\xfe\xff\x01\x00\xf0\xff\x1f\x00\x10";

Tensor File(const std::string& bytes) {
  return Tensor::Scalar<std::string>(bytes);
}

std::string Ramp() {
  return std::string(reinterpret_cast<const char*>(kRamp), sizeof(kRamp));
}

absl::StatusOr<std::vector<Tensor>> Decode(const std::string& bytes,
                                           const char* op = "DecodeJxl") {
  return RunKernel(TestNodeBuilder("jxl", op, 1).Build(), {File(bytes)});
}

TEST_CASE("DecodeJxl has TensorFlow 2.21's signature and CPU types", "[jxl]") {
  testing::CheckSignaturesWithTensorFlow("jxl", 1);
}

TEST_CASE("DecodeJxl's shape function: a scalar in, [?, ?, channels] out",
          "[jxl]") {
  const NodeDef any = TestNodeBuilder("d", "DecodeJxl", 1).Build();
  absl::StatusOr<PartialShape> s = InferShape(any, {PartialShape::Known({})});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == "[?,?,?]");
  const NodeDef grey =
      TestNodeBuilder("d", "DecodeJxl", 1).Attr("channels", 1).Build();
  s = InferShape(grey, {PartialShape::Unknown()});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == "[?,?,1]");
  CHECK_FALSE(InferShape(any, {PartialShape::Known({2})}).ok());
  const NodeDef negative =
      TestNodeBuilder("d", "DecodeJxl", 1).Attr("channels", -1).Build();
  CHECK_FALSE(InferShape(negative, {PartialShape::Known({})}).ok());
}

TEST_CASE("DecodeJxl decodes a lossless file to its exact samples", "[jxl]") {
  absl::StatusOr<std::vector<Tensor>> out = Decode(Ramp());
  REQUIRE(out.ok());
  const Tensor& image = (*out)[0];
  REQUIRE(image.shape() == TensorShape({4, 5, 3}));
  const uint8_t* p = image.data<uint8_t>();
  for (int i = 0; i < 60; ++i) CHECK(p[i] == i);
}

TEST_CASE(
    "A header declaring more pixels than dfx decodes is ResourceExhausted "
    "before anything is allocated",
    "[jxl]") {
  const int64_t in_use = CpuAllocator()->GetStats().bytes_in_use;
  CHECK_THAT(Decode(std::string(kHugeHeader, sizeof(kHugeHeader) - 1)).status(),
             StatusIs(StatusCode::kResourceExhausted,
                      "JPEG XL image of 1073741824x1073741824 pixels is over "
                      "dfx's limit of 1073741824 pixels"));
  CHECK_THAT(Decode(std::string(kOverCapHeader, sizeof(kOverCapHeader) - 1),
                    "DecodeImage")
                 .status(),
             StatusIs(StatusCode::kResourceExhausted, "65536x32768 pixels"));
  CHECK(CpuAllocator()->GetStats().bytes_in_use == in_use);
}

TEST_CASE(
    "Under a memory limit, a header declaring more than fits is "
    "ResourceExhausted naming the limit",
    "[jxl]") {
  const int64_t previous = HostMemoryLimit();
  SetHostMemoryLimit(CpuAllocator()->GetStats().bytes_in_use +
                     (int64_t{64} << 20));
  // 2^29 pixels of RGB: 1.5 GiB of output, more of libjxl's planes.
  const absl::Status large =
      Decode(std::string(kLargeHeader, sizeof(kLargeHeader) - 1)).status();
  // A small file still decodes under the limit.
  const absl::Status small = Decode(Ramp()).status();
  SetHostMemoryLimit(previous);
  CHECK_THAT(large, StatusIs(StatusCode::kResourceExhausted,
                             "a JPEG XL image and its decoder's planes"));
  CHECK(small.ok());
}

TEST_CASE("Bad JPEG XL files are InvalidArgument with TensorFlow's messages",
          "[jxl]") {
  const std::string ramp = Ramp();
  CHECK_THAT(
      Decode(ramp.substr(0, 4)).status(),
      StatusIs(StatusCode::kInvalidArgument, "Failed to decode JXL header"));
  CHECK_THAT(
      Decode(ramp.substr(0, ramp.size() - 6)).status(),
      StatusIs(StatusCode::kInvalidArgument, "Failed to decode JXL image"));
  CHECK_THAT(
      RunKernel(
          TestNodeBuilder("jxl", "DecodeJxl", 1).Attr("channels", 4).Build(),
          {File(ramp)})
          .status(),
      StatusIs(StatusCode::kInvalidArgument,
               "Number of channels requested does not match input"));
  CHECK_THAT(RunKernel(TestNodeBuilder("jxl", "DecodeImage", 1)
                           .Attr("dtype", DT_UINT16)
                           .Build(),
                       {File(ramp)})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "JXL only supports uint8 for dtype"));
}

TEST_CASE("Concurrent decodes of one file all give its samples", "[jxl]") {
  const std::string ramp = Ramp();
  constexpr int kThreads = 8;
  std::vector<absl::StatusOr<std::vector<Tensor>>> results(
      kThreads, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { results[t] = Decode(ramp); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& r : results) {
    REQUIRE(r.ok());
    const uint8_t* p = (*r)[0].data<uint8_t>();
    for (int i = 0; i < 60; ++i) CHECK(p[i] == i);
  }
}

}  // namespace
}  // namespace dfx

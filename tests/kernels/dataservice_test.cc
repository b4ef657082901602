// The tf.data service client (kernels/data/service/): TensorFlow 2.21's
// signatures of its six ops, the decoding of TensorFlow's
// CompressedElement (and that corrupt elements are errors, not crashes),
// and that a call to a dispatcher that is not there ends: Unavailable when
// its retry window closes, Cancelled as soon as its step is cancelled.
// Reading through TensorFlow's servers is
// tests/interop/tf_data_service_client.py.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "kernels/data/service/data_service_client.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using data::DataServiceClient;
using data::DecodeCompressedElement;
using data::EncodeCompressedElement;
using testing::StatusIs;

// A local port nothing listens on (bound, then closed).
int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string Snappy(const std::string& raw) {
  // The encoder's snappy, on a one-component int8 element of `raw`.
  Tensor t(DT_INT8, TensorShape({static_cast<int64_t>(raw.size())}));
  std::memcpy(t.raw_data(), raw.data(), raw.size());
  return EncodeCompressedElement({t})->data();
}

TEST_CASE("Every dataservice op has TensorFlow 2.21's signature and CPU types",
          "[dataservice]") {
  testing::CheckSignaturesWithTensorFlow("dataservice", 6);
}

TEST_CASE(
    "A CompressedElement laid out as TensorFlow's decodes into its "
    "components",
    "[dataservice]") {
  // int32 [2] {1, 2}: its buffer; string [2] {"ab", "c"}: each string.
  std::string raw(
      "\x01\x00\x00\x00\x02\x00\x00\x00"
      "abc",
      11);
  tfdata::CompressedElement e;
  e.set_data(Snappy(raw));
  auto* a = e.add_component_metadata();
  a->set_dtype(static_cast<decltype(a->dtype())>(DT_INT32));
  a->mutable_tensor_shape()->add_dim()->set_size(2);
  a->add_uncompressed_bytes(8);
  auto* s = e.add_component_metadata();
  s->set_dtype(static_cast<decltype(s->dtype())>(DT_STRING));
  s->mutable_tensor_shape()->add_dim()->set_size(2);
  s->add_uncompressed_bytes(2);
  s->add_uncompressed_bytes(1);
  auto out = DecodeCompressedElement(e);
  REQUIRE(out.ok());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].dtype() == DT_INT32);
  CHECK((*out)[0].data<int32_t>()[0] == 1);
  CHECK((*out)[0].data<int32_t>()[1] == 2);
  CHECK((*out)[1].data<std::string>()[0] == "ab");
  CHECK((*out)[1].data<std::string>()[1] == "c");
}

TEST_CASE("Encoded elements decode back, empty and scalar components too",
          "[dataservice]") {
  Tensor f(DT_FLOAT, TensorShape({0, 3}));
  Tensor b = Tensor::Scalar<bool>(true);
  Tensor s = Tensor::Scalar<std::string>("");
  Tensor i = Tensor::FromVector<int64_t>({7, -8, 9});
  auto e = EncodeCompressedElement({f, b, s, i});
  REQUIRE(e.ok());
  auto out = DecodeCompressedElement(*e);
  REQUIRE(out.ok());
  REQUIRE(out->size() == 4);
  CHECK((*out)[0].shape() == TensorShape({0, 3}));
  CHECK((*out)[1].data<bool>()[0]);
  CHECK((*out)[2].data<std::string>()[0].empty());
  CHECK((*out)[3].data<int64_t>()[1] == -8);
}

TEST_CASE("Corrupt compressed elements are InvalidArgument", "[dataservice]") {
  auto good = EncodeCompressedElement({Tensor::FromVector<int32_t>({1, 2})});
  REQUIRE(good.ok());

  tfdata::CompressedElement not_snappy = *good;
  not_snappy.set_data("\xff\xff\xff\xff\xff garbage");
  CHECK_THAT(DecodeCompressedElement(not_snappy).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "snappy"));

  tfdata::CompressedElement wrong_size = *good;
  wrong_size.mutable_component_metadata(0)->set_uncompressed_bytes(0, 4);
  CHECK_THAT(DecodeCompressedElement(wrong_size).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "byte size"));

  tfdata::CompressedElement bigger_shape = *good;
  bigger_shape.mutable_component_metadata(0)
      ->mutable_tensor_shape()
      ->mutable_dim(0)
      ->set_size(1000000);
  CHECK_THAT(DecodeCompressedElement(bigger_shape).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  tfdata::CompressedElement too_many_strings;
  too_many_strings.set_data(Snappy("ab"));
  auto* m = too_many_strings.add_component_metadata();
  m->set_dtype(static_cast<decltype(m->dtype())>(DT_STRING));
  m->mutable_tensor_shape()->add_dim()->set_size(1);
  m->add_uncompressed_bytes(5);
  CHECK_THAT(DecodeCompressedElement(too_many_strings).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "runs past"));

  tfdata::CompressedElement leftover = *good;
  leftover.set_data(Snappy(std::string(12, 'x')));
  CHECK_THAT(DecodeCompressedElement(leftover).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "left after"));
}

TEST_CASE("A protocol other than grpc is TensorFlow's NotFound",
          "[dataservice]") {
  CHECK_THAT(DataServiceClient::Create("localhost:1", "bogus").status(),
             StatusIs(absl::StatusCode::kNotFound, "protocol bogus"));
}

TEST_CASE(
    "A dispatcher that is not there is Unavailable when the retry window "
    "closes",
    "[dataservice]") {
  const std::string address = "localhost:" + std::to_string(ClosedPort());
  auto client = DataServiceClient::Create(address, "grpc", absl::Seconds(1));
  REQUIRE(client.ok());
  const absl::Time start = absl::Now();
  CHECK_THAT((*client)->GetConfig(nullptr).status(),
             StatusIs(absl::StatusCode::kUnavailable,
                      "Failed to get data service config from dispatcher"));
  CHECK(absl::Now() - start < absl::Seconds(20));
}

TEST_CASE(
    "A call to a dispatcher that is not there stops when its step is "
    "cancelled",
    "[dataservice]") {
  const std::string address = "localhost:" + std::to_string(ClosedPort());
  auto client = DataServiceClient::Create(address, "grpc");
  REQUIRE(client.ok());

  CancellationManager already;
  already.StartCancel();
  CHECK_THAT((*client)->GetMetadata("0", &already).status(),
             StatusIs(absl::StatusCode::kCancelled));

  // The 60-minute window would outlast the test; the cancellation ends it.
  CancellationManager cm;
  std::thread canceller([&cm] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cm.StartCancel();
  });
  const absl::Time start = absl::Now();
  tfdata::GetOrRegisterDatasetRequest request;
  const absl::Status s = (*client)->GetOrRegisterDataset(request, &cm).status();
  canceller.join();
  CHECK_THAT(s, StatusIs(absl::StatusCode::kCancelled));
  CHECK(absl::Now() - start < absl::Seconds(20));
}

}  // namespace
}  // namespace dfx

// Tests of the bulk plane's frame parsers (rpc/bulk_transport.h:
// ParseBulkRequest, ParseBulkResponseHeader), which tests/fuzz/bulk_fuzzer
// fuzzes; the socket behaviour is in bulk_transport_test.cc.
#include <cstdint>
#include <string>

#include "catch2/catch.hpp"
#include "rpc/bulk_transport.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

std::string Le(uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

std::string Request(const std::string& magic, uint32_t version,
                    uint64_t ticket, uint64_t offset, uint64_t length,
                    uint32_t token_length = 0) {
  return magic + Le(version, 4) + Le(ticket, 8) + Le(offset, 8) +
         Le(length, 8) + Le(token_length, 4) + Le(0, 4);
}

TEST_CASE("bulk framing: a request frame reads back its fields") {
  absl::StatusOr<BulkRequest> r = ParseBulkRequest(
      Request("DFXB", 2, 0x0102030405060708, 1 << 20, uint64_t{1} << 40,
              17));
  REQUIRE_OK(r.status());
  CHECK(r->version == kBulkProtocolVersion);
  CHECK(r->token_length == 17);
  CHECK(r->ticket == 0x0102030405060708);
  CHECK(r->offset == 1 << 20);
  CHECK(r->length == uint64_t{1} << 40);
}

TEST_CASE("bulk framing: bad request frames are refused by kind") {
  CHECK_THAT(ParseBulkRequest(Request("GET ", 2, 1, 0, 0)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "magic"));
  CHECK_THAT(ParseBulkRequest(Request("DFXB", 7, 1, 0, 0)).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "speaks version 2, not 7"));
  CHECK_THAT(ParseBulkRequest(Request("DFXB", 2, 1, 0, 0, 4097)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "4097 bytes"));
  const std::string good = Request("DFXB", 2, 1, 0, 0);
  CHECK_THAT(ParseBulkRequest(good.substr(0, 39)).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "39 bytes"));
  CHECK_THAT(ParseBulkRequest(good + "x").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "41 bytes"));
  CHECK_THAT(ParseBulkRequest("").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "0 bytes"));
}

TEST_CASE("bulk framing: response headers, good and malformed") {
  absl::StatusOr<BulkResponseHeader> ok =
      ParseBulkResponseHeader(Le(0, 4) + Le(0, 4) + Le(uint64_t{1} << 33, 8));
  REQUIRE_OK(ok.status());
  CHECK(ok->code == absl::StatusCode::kOk);
  CHECK(ok->length == uint64_t{1} << 33);
  absl::StatusOr<BulkResponseHeader> error =
      ParseBulkResponseHeader(Le(5, 4) + Le(0, 4) + Le(40, 8));
  REQUIRE_OK(error.status());
  CHECK(error->code == absl::StatusCode::kNotFound);
  CHECK(error->length == 40);
  // A code beyond Unauthenticated, an error message past the limit, a
  // short header.
  CHECK_THAT(ParseBulkResponseHeader(Le(17, 4) + Le(0, 4) + Le(1, 8)).status(),
             StatusIs(absl::StatusCode::kInternal, "code 17"));
  CHECK_THAT(
      ParseBulkResponseHeader(Le(5, 4) + Le(0, 4) + Le(kMaxBulkErrorBytes + 1, 8))
          .status(),
      StatusIs(absl::StatusCode::kInternal, "4097 bytes"));
  CHECK_THAT(ParseBulkResponseHeader(Le(0, 4)).status(),
             StatusIs(absl::StatusCode::kInternal, "4 bytes"));
}

}  // namespace
}  // namespace dfx

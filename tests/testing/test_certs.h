// TLS certificates for tests, made at test time with the openssl command
// (no private key is committed).
#ifndef DFX_TESTS_TESTING_TEST_CERTS_H_
#define DFX_TESTS_TESTING_TEST_CERTS_H_

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "tests/tools/cli_test_util.h"

namespace dfx::testing {

// Test certificates made with the openssl command in `dir`: ca.pem (and
// ca.key), and cert.pem / key.pem for IP 127.0.0.1 and localhost, signed
// by the CA; other.pem / other.key, the same names signed by a CA nobody
// trusts. No key outlives the directory.
inline void MakeTestCerts(const TempDir& dir) {
  const std::string d = dir.File("");
  dir.Write("ext.cnf",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
            "basicConstraints=CA:FALSE\n");
  const std::string ec =
      "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string script = absl::StrCat(
      "set -e; cd '", d, "'; umask 077; ",
      "for ca in ca otherca; do openssl req -x509 ", ec, " -keyout $ca.key ",
      "-out $ca.pem -days 2 -subj /CN=dfx-test-$ca; done; ",
      "openssl req ", ec, " -keyout key.pem -out cert.csr -subj /CN=dfx; ",
      "openssl x509 -req -in cert.csr -CA ca.pem -CAkey ca.key ",
      "-CAcreateserial -out cert.pem -days 2 -extfile ext.cnf; ",
      "openssl req ", ec, " -keyout other.key -out other.csr -subj /CN=dfx; ",
      "openssl x509 -req -in other.csr -CA otherca.pem -CAkey otherca.key ",
      "-CAcreateserial -out other.pem -days 2 -extfile ext.cnf");
  const std::string command =
      absl::StrCat("(", script, ") > '", d, "/openssl.log' 2>&1");
  if (std::system(command.c_str()) != 0) {
    FAIL("making test certificates failed: "
         << ReadFile(dir.File("openssl.log")));
  }
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_TEST_CERTS_H_

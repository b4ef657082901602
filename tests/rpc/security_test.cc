// rpc/security.h: token files, the constant-time compare, security settings
// from files and JSON, and the token check against call metadata.
#include "rpc/security.h"

#include <sys/stat.h>

#include <string>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;
using ::dfx::testing::TempDir;

std::string WriteToken(const TempDir& dir, const std::string& name,
                       const std::string& text, mode_t mode = 0600) {
  dir.Write(name, text);
  REQUIRE(::chmod(dir.File(name).c_str(), mode) == 0);
  return dir.File(name);
}

TEST_CASE("a token file holds one token, its trailing newline cut") {
  TempDir dir;
  absl::StatusOr<std::string> token =
      ReadAuthTokenFile(WriteToken(dir, "t", "abc-123_XYZ\n"));
  REQUIRE_OK(token);
  CHECK(*token == "abc-123_XYZ");
  token = ReadAuthTokenFile(WriteToken(dir, "crlf", "tok\r\n"));
  REQUIRE_OK(token);
  CHECK(*token == "tok");
  token = ReadAuthTokenFile(WriteToken(dir, "bare", "tok"));
  REQUIRE_OK(token);
  CHECK(*token == "tok");
}

TEST_CASE("token files that are refused, and their tokens never quoted") {
  TempDir dir;
  struct Bad {
    std::string text;
    mode_t mode;
    std::string says;
  };
  const Bad cases[] = {
      {"secret-one\n", 0644, "chmod 600"},
      {"secret-two\n", 0640, "chmod 600"},
      {"secret-three\n", 0602, "chmod 600"},
      {"\n", 0600, "holds no token"},
      {"", 0600, "holds no token"},
      {"secret four\n", 0600, "not printable ASCII"},
      {"secret-five\nsecret-six\n", 0600, "not printable ASCII"},
      {"secret-\x01seven", 0600, "not printable ASCII"},
      {std::string(5000, 'k'), 0600, "larger than"},
      {std::string(4100, 'k'), 0600, "longer than 4096"},
  };
  int i = 0;
  for (const Bad& bad : cases) {
    const std::string path =
        WriteToken(dir, "bad" + std::to_string(i++), bad.text, bad.mode);
    absl::StatusOr<std::string> token = ReadAuthTokenFile(path);
    INFO("token file '" << bad.text << "' mode " << bad.mode);
    REQUIRE_FALSE(token.ok());
    CHECK_THAT(token.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    CHECK_THAT(std::string(token.status().message()),
               Catch::Contains(bad.says) && Catch::Contains(path));
    CHECK_FALSE(absl::StrContains(token.status().message(), "secret"));
  }
  CHECK_THAT(ReadAuthTokenFile(dir.File("missing")).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "cannot read"));
}

TEST_CASE("ConstantTimeEquals is equality") {
  CHECK(ConstantTimeEquals("", ""));
  CHECK(ConstantTimeEquals("token", "token"));
  CHECK_FALSE(ConstantTimeEquals("token", "tokeN"));
  CHECK_FALSE(ConstantTimeEquals("Token", "token"));
  CHECK_FALSE(ConstantTimeEquals("tok", "token"));
  CHECK_FALSE(ConstantTimeEquals("token", "tok"));
  CHECK_FALSE(ConstantTimeEquals("", "token"));
  CHECK_FALSE(ConstantTimeEquals("token", ""));
  CHECK_FALSE(ConstantTimeEquals(std::string("tok\0en", 6), "tok"));
}

TEST_CASE("security settings from flags and JSON") {
  TempDir dir;
  const std::string token = WriteToken(dir, "token", "json-token\n");
  dir.Write("cert.pem", "-----BEGIN CERTIFICATE-----\nx\n");
  dir.Write("key.pem", "-----BEGIN PRIVATE KEY-----\ny\n");
  dir.Write("ca.pem", "-----BEGIN CERTIFICATE-----\nz\n");
  dir.Write("junk.pem", "not a pem");

  SECTION("a JSON file with every key") {
    dir.Write("security.json",
              "{\"auth_token_file\": \"" + token + "\", \"tls_cert\": \"" +
                  dir.File("cert.pem") + "\", \"tls_key\": \"" +
                  dir.File("key.pem") + "\", \"tls_ca\": \"" +
                  dir.File("ca.pem") + "\", \"tls_client_auth\": \"require\"}");
    SecurityFiles files;
    REQUIRE_OK(files.MergeJson("@" + dir.File("security.json")));
    absl::StatusOr<ServerSecurity> server = LoadServerSecurity(files);
    REQUIRE_OK(server);
    CHECK(server->auth_token == "json-token");
    CHECK(server->tls());
    CHECK(server->tls_client_auth == TlsClientAuth::kRequire);
    const ChannelSecurity peers = server->ForPeers();
    CHECK(peers.tls);
    CHECK(peers.auth_token == "json-token");
    CHECK(peers.tls_cert_pem == server->tls_cert_pem);
    CHECK(peers.tls_ca_pem == server->tls_ca_pem);
  }
  SECTION("bad JSON") {
    for (const std::string& json :
         {std::string("[1]"), std::string("{\"tls_cert\": 3}"),
          std::string("{\"tls_certs\": \"x\"}"), std::string("{")}) {
      SecurityFiles files;
      INFO(json);
      CHECK_THAT(files.MergeJson(json),
                 StatusIs(absl::StatusCode::kInvalidArgument, "--security"));
    }
    SecurityFiles files;
    REQUIRE(files.SetFlag("--tls-ca", dir.File("ca.pem")));
    CHECK_THAT(files.MergeJson("{\"tls_ca\": \"other.pem\"}"),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "also given by a flag"));
  }
  SECTION("server settings that do not go together") {
    SecurityFiles cert_only;
    cert_only.tls_cert = dir.File("cert.pem");
    CHECK_THAT(LoadServerSecurity(cert_only).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "go together"));
    SecurityFiles ca_only;
    ca_only.tls_ca = dir.File("ca.pem");
    CHECK_THAT(LoadServerSecurity(ca_only).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "need --tls-cert"));
    SecurityFiles auth_without_ca;
    auth_without_ca.tls_cert = dir.File("cert.pem");
    auth_without_ca.tls_key = dir.File("key.pem");
    auth_without_ca.tls_client_auth = "require";
    CHECK_THAT(LoadServerSecurity(auth_without_ca).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "needs --tls-ca"));
    SecurityFiles bad_mode = auth_without_ca;
    bad_mode.tls_ca = dir.File("ca.pem");
    bad_mode.tls_client_auth = "always";
    CHECK_THAT(LoadServerSecurity(bad_mode).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "'always'"));
    SecurityFiles junk;
    junk.tls_cert = dir.File("junk.pem");
    junk.tls_key = dir.File("key.pem");
    CHECK_THAT(LoadServerSecurity(junk).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "--tls-cert: '" + dir.File("junk.pem") +
                            "' is not a PEM file"));
  }
  SECTION("client settings") {
    SecurityFiles files;
    files.tls_ca = dir.File("ca.pem");
    absl::StatusOr<ChannelSecurity> client = LoadChannelSecurity(files);
    REQUIRE_OK(client);
    CHECK(client->tls);
    CHECK(client->tls_cert_pem.empty());
    files.tls_client_auth = "require";
    CHECK_THAT(LoadChannelSecurity(files).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "server setting"));
    SecurityFiles none;
    client = LoadChannelSecurity(none);
    REQUIRE_OK(client);
    CHECK_FALSE(client->tls);
    CHECK(client->auth_token.empty());
  }
}

}  // namespace
}  // namespace dfx

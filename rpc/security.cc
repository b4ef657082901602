#include "rpc/security.h"

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "grpcpp/support/client_interceptor.h"
#include "grpcpp/support/interceptor.h"
#include "nlohmann/json.hpp"

namespace dfx {
namespace {

constexpr size_t kMaxTokenBytes = 4096;
constexpr size_t kMaxPemBytes = 1 << 20;

absl::StatusOr<std::string> ReadSmallFile(absl::string_view what,
                                          const std::string& path,
                                          size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot read '", path, "'"));
  }
  std::string text;
  char buffer[4096];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > limit) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": '", path, "' is larger than ", limit, " bytes"));
    }
  }
  return text;
}

class AuthInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit AuthInterceptor(const std::string* value) : value_(value) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::
                PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(kAuthMetadataKey, *value_);
    }
    methods->Proceed();
  }

 private:
  const std::string* const value_;
};

class AuthInterceptorFactory
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit AuthInterceptorFactory(const std::string& token)
      : value_(absl::StrCat("Bearer ", token)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* /*info*/) override {
    return new AuthInterceptor(&value_);
  }

 private:
  const std::string value_;
};

}  // namespace

ChannelSecurity ServerSecurity::ForPeers() const {
  ChannelSecurity peers;
  peers.auth_token = auth_token;
  peers.tls = tls();
  if (peers.tls) {
    peers.tls_ca_pem = tls_ca_pem;
    peers.tls_cert_pem = tls_cert_pem;
    peers.tls_key_pem = tls_key_pem;
  }
  return peers;
}

absl::StatusOr<std::string> ReadAuthTokenFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--auth-token-file: cannot read '", path, "'"));
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--auth-token-file: '", path,
        "' may be read or written by group or others; chmod 600 it"));
  }
  DFX_ASSIGN_OR_RETURN(
      std::string token,
      ReadSmallFile("--auth-token-file", path, kMaxTokenBytes + 16));
  while (!token.empty() &&
         (token.back() == '\n' || token.back() == '\r' ||
          token.back() == ' ' || token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--auth-token-file: '", path, "' holds no token"));
  }
  if (token.size() > kMaxTokenBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--auth-token-file: the token in '", path,
                     "' is longer than ", kMaxTokenBytes, " characters"));
  }
  for (char c : token) {
    if (c <= ' ' || c > '~') {
      return absl::InvalidArgumentError(absl::StrCat(
          "--auth-token-file: the token in '", path,
          "' holds a character that is not printable ASCII, or a space "
          "(one token, on one line)"));
    }
  }
  return token;
}

absl::StatusOr<std::string> ReadPemFile(absl::string_view flag,
                                        const std::string& path) {
  DFX_ASSIGN_OR_RETURN(std::string pem,
                       ReadSmallFile(flag, path, kMaxPemBytes));
  if (!absl::StrContains(pem, "-----BEGIN ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", path, "' is not a PEM file"));
  }
  return pem;
}

absl::StatusOr<TlsClientAuth> ParseTlsClientAuth(absl::string_view value) {
  if (value.empty() || value == "none") return TlsClientAuth::kNone;
  if (value == "request") return TlsClientAuth::kRequest;
  if (value == "require") return TlsClientAuth::kRequire;
  return absl::InvalidArgumentError(absl::StrCat(
      "--tls-client-auth '", value, "': expected none, request or require"));
}

bool SecurityFiles::SetFlag(absl::string_view flag, const std::string& value) {
  if (flag == "--auth-token-file") {
    auth_token_file = value;
  } else if (flag == "--tls-cert") {
    tls_cert = value;
  } else if (flag == "--tls-key") {
    tls_key = value;
  } else if (flag == "--tls-ca") {
    tls_ca = value;
  } else if (flag == "--tls-client-auth") {
    tls_client_auth = value;
  } else {
    return false;
  }
  return true;
}

absl::Status SecurityFiles::MergeJson(const std::string& json_or_file) {
  std::string text = json_or_file;
  if (absl::StartsWith(text, "@")) {
    DFX_ASSIGN_OR_RETURN(text,
                         ReadSmallFile("--security", text.substr(1), 1 << 20));
  }
  nlohmann::json json = nlohmann::json::parse(text, nullptr,
                                              /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(
        "--security: expected a JSON object such as {\"auth_token_file\": "
        "\"token\", \"tls_cert\": \"cert.pem\", \"tls_key\": \"key.pem\", "
        "\"tls_ca\": \"ca.pem\", \"tls_client_auth\": \"require\"}");
  }
  const std::map<std::string, std::string*> keys = {
      {"auth_token_file", &auth_token_file},
      {"tls_cert", &tls_cert},
      {"tls_key", &tls_key},
      {"tls_ca", &tls_ca},
      {"tls_client_auth", &tls_client_auth}};
  for (const auto& [key, value] : json.items()) {
    auto it = keys.find(key);
    if (it == keys.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--security: unknown key '", key,
          "' (auth_token_file, tls_cert, tls_key, tls_ca, tls_client_auth)"));
    }
    if (!value.is_string() || value.get<std::string>().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--security: '", key, "' must be a non-empty string"));
    }
    if (!it->second->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--security: '", key, "' is also given by a flag"));
    }
    *it->second = value.get<std::string>();
  }
  return absl::OkStatus();
}

absl::StatusOr<ServerSecurity> LoadServerSecurity(const SecurityFiles& files) {
  ServerSecurity security;
  if (!files.auth_token_file.empty()) {
    DFX_ASSIGN_OR_RETURN(security.auth_token,
                         ReadAuthTokenFile(files.auth_token_file));
  }
  if (files.tls_cert.empty() != files.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key go together");
  }
  DFX_ASSIGN_OR_RETURN(security.tls_client_auth,
                       ParseTlsClientAuth(files.tls_client_auth));
  if (files.tls_cert.empty()) {
    if (!files.tls_ca.empty() || !files.tls_client_auth.empty()) {
      return absl::InvalidArgumentError(
          "--tls-ca and --tls-client-auth need --tls-cert and --tls-key");
    }
    return security;
  }
  if (security.tls_client_auth != TlsClientAuth::kNone &&
      files.tls_ca.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-auth request|require needs --tls-ca (the CA that "
        "signs client certificates)");
  }
  DFX_ASSIGN_OR_RETURN(security.tls_cert_pem,
                       ReadPemFile("--tls-cert", files.tls_cert));
  DFX_ASSIGN_OR_RETURN(security.tls_key_pem,
                       ReadPemFile("--tls-key", files.tls_key));
  if (!files.tls_ca.empty()) {
    DFX_ASSIGN_OR_RETURN(security.tls_ca_pem,
                         ReadPemFile("--tls-ca", files.tls_ca));
  }
  return security;
}

absl::StatusOr<ChannelSecurity> LoadChannelSecurity(
    const SecurityFiles& files) {
  ChannelSecurity security;
  if (!files.tls_client_auth.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-auth is a server setting");
  }
  if (!files.auth_token_file.empty()) {
    DFX_ASSIGN_OR_RETURN(security.auth_token,
                         ReadAuthTokenFile(files.auth_token_file));
  }
  if (files.tls_cert.empty() != files.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key go together");
  }
  security.tls = !files.tls_ca.empty() || !files.tls_cert.empty();
  if (!files.tls_ca.empty()) {
    DFX_ASSIGN_OR_RETURN(security.tls_ca_pem,
                         ReadPemFile("--tls-ca", files.tls_ca));
  }
  if (!files.tls_cert.empty()) {
    DFX_ASSIGN_OR_RETURN(security.tls_cert_pem,
                         ReadPemFile("--tls-cert", files.tls_cert));
    DFX_ASSIGN_OR_RETURN(security.tls_key_pem,
                         ReadPemFile("--tls-key", files.tls_key));
  }
  return security;
}

std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(
    const ServerSecurity& security) {
  if (!security.tls()) return grpc::InsecureServerCredentials();
  grpc_ssl_client_certificate_request_type request =
      GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
  switch (security.tls_client_auth) {
    case TlsClientAuth::kNone: break;
    case TlsClientAuth::kRequest:
      request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
      break;
    case TlsClientAuth::kRequire:
      request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
      break;
  }
  grpc::SslServerCredentialsOptions options(request);
  options.pem_root_certs = security.tls_ca_pem;
  options.pem_key_cert_pairs.push_back(
      {security.tls_key_pem, security.tls_cert_pem});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> MakeChannelCredentials(
    const ChannelSecurity& security) {
  if (!security.tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = security.tls_ca_pem;
  options.pem_cert_chain = security.tls_cert_pem;
  options.pem_private_key = security.tls_key_pem;
  return grpc::SslCredentials(options);
}

std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>
MakeAuthInterceptorFactory(const std::string& auth_token) {
  if (auth_token.empty()) return nullptr;
  return std::make_unique<AuthInterceptorFactory>(auth_token);
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Every byte of `b` is looked at whatever `a` holds.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < b.size(); ++i) {
    const unsigned char x =
        i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ static_cast<unsigned char>(b[i]));
  }
  // Opaque to the optimizer, so the loop is not cut short.
  volatile unsigned char result = diff;
  return result == 0;
}

absl::Status CheckAuthToken(const grpc::ServerContextBase& context,
                            absl::string_view expected) {
  if (expected.empty()) return absl::OkStatus();
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kAuthMetadataKey);
  bool ok = false;
  if (it != metadata.end()) {
    absl::string_view value(it->second.data(), it->second.size());
    constexpr absl::string_view kBearer = "Bearer ";
    if (absl::StartsWith(value, kBearer)) {
      value.remove_prefix(kBearer.size());
      ok = ConstantTimeEquals(value, expected);
    }
  }
  if (ok) return absl::OkStatus();
  return absl::UnauthenticatedError("missing or wrong auth token");
}

}  // namespace dfx

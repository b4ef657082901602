// Security of dfx's gRPC services and of the bulk data plane: the auth
// token every call carries, TLS (and mutual TLS) credentials, and loading
// both from flags or a JSON file. docs/security.md says what each protects.
#ifndef DFX_RPC_SECURITY_H_
#define DFX_RPC_SECURITY_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_context.h"

namespace dfx {

// The gRPC metadata key carrying "Bearer <token>".
inline constexpr char kAuthMetadataKey[] = "authorization";

// How a TLS server treats client certificates.
enum class TlsClientAuth {
  kNone = 0,     // asks for none
  kRequest = 1,  // asks; a client without one is served, one given must verify
  kRequire = 2,  // a client without a certificate signed by the CA is refused
};

// What a client (a GrpcSession, a server's channels to its peers) uses to
// reach a server. PEM contents, not paths.
struct ChannelSecurity {
  // Sent as "authorization: Bearer <token>" on every call; empty: none.
  std::string auth_token;
  // TLS: the server's certificate is verified against tls_ca_pem (empty:
  // the system's roots) and must name the host dialled (a DNS or IP SAN).
  bool tls = false;
  std::string tls_ca_pem;
  // The client's certificate and key for mutual TLS; both or neither.
  std::string tls_cert_pem;
  std::string tls_key_pem;
};

// What a server requires of the calls it serves. PEM contents, not paths.
struct ServerSecurity {
  // Every master, worker and bulk call must carry it; empty: no token.
  std::string auth_token;
  // TLS with this certificate chain and key (both set) or none (both empty).
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // Verifies client certificates (mutual TLS) and, on the server's own
  // calls to its peers, the peers' certificates (empty: the system's roots).
  std::string tls_ca_pem;
  TlsClientAuth tls_client_auth = TlsClientAuth::kNone;

  bool tls() const { return !tls_cert_pem.empty(); }
  // The server's own calls to the other tasks: the same token, and TLS with
  // the CA, the server's certificate and key as its client certificate.
  ChannelSecurity ForPeers() const;
};

// Reads a token file: one token, trailing whitespace (the newline) cut.
// InvalidArgument naming the file when it cannot be read, is empty, is
// readable or writable by group or others (chmod 600 it), or holds a token
// that is not 1..4096 printable ASCII characters without spaces (gRPC
// metadata carries no others). The token is never put in a message.
absl::StatusOr<std::string> ReadAuthTokenFile(const std::string& path);

// Reads a PEM file (certificate or key); InvalidArgument naming `flag` and
// the file when it cannot be read or holds no "-----BEGIN".
absl::StatusOr<std::string> ReadPemFile(absl::string_view flag,
                                        const std::string& path);

// "none" | "request" | "require"; InvalidArgument otherwise.
absl::StatusOr<TlsClientAuth> ParseTlsClientAuth(absl::string_view value);

// The file names of a security configuration, as given by flags
// (--auth-token-file, --tls-cert, --tls-key, --tls-ca, --tls-client-auth)
// or by a JSON object with the same keys without the dashes and with '_'
// ({"auth_token_file": ..., "tls_cert": ..., "tls_key": ..., "tls_ca": ...,
// "tls_client_auth": "require"}), e.g. `--security @FILE`.
struct SecurityFiles {
  std::string auth_token_file;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  std::string tls_client_auth;  // empty: "none"

  // Sets `flag` ("--tls-cert", ...) to `value`; false for another flag.
  bool SetFlag(absl::string_view flag, const std::string& value);
  // Fills the keys the JSON object (text, or "@FILE") holds; a key set by
  // both is an error. InvalidArgument for bad JSON or an unknown key.
  absl::Status MergeJson(const std::string& json_or_file);
};

// A server's security from its files: InvalidArgument for a cert without a
// key (or the reverse), --tls-client-auth or --tls-ca without TLS,
// client auth without a CA, or a file that ReadAuthTokenFile /
// ReadPemFile refuse.
absl::StatusOr<ServerSecurity> LoadServerSecurity(const SecurityFiles& files);

// A client's security from its files: TLS when --tls-ca (or --tls-cert)
// is given; InvalidArgument for a cert without a key (or the reverse), a
// client auth setting (servers only) or a file refused.
absl::StatusOr<ChannelSecurity> LoadChannelSecurity(const SecurityFiles& files);

// Credentials for ServerBuilder::AddListeningPort: insecure without TLS.
std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(
    const ServerSecurity& security);

// Credentials for a channel: insecure without TLS.
std::shared_ptr<grpc::ChannelCredentials> MakeChannelCredentials(
    const ChannelSecurity& security);

// An interceptor factory that adds "authorization: Bearer <token>" to every
// call's metadata on a channel (insecure channels send no CallCredentials,
// so this is the one place outgoing calls get the token). Null for an
// empty token.
std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>
MakeAuthInterceptorFactory(const std::string& auth_token);

// True when `a` equals `b`; the time taken depends on their lengths only,
// not on where they differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

// OK when `expected` is empty or the call's metadata holds
// "authorization: Bearer <expected>" (compared in constant time);
// Unauthenticated "missing or wrong auth token" otherwise.
absl::Status CheckAuthToken(const grpc::ServerContextBase& context,
                            absl::string_view expected);

}  // namespace dfx

#endif  // DFX_RPC_SECURITY_H_

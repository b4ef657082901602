#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "openssl/err.h"
#include "openssl/pem.h"
#include "openssl/ssl.h"
#include "rpc/bulk_io.h"
#include "rpc/bulk_transport.h"

namespace dfx {
namespace {

using bulk_io::TlsErrors;

absl::Status UseCertAndKey(SSL_CTX* ctx, const std::string& cert_pem,
                           const std::string& key_pem) {
  BIO* bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* leaf = PEM_read_bio_X509_AUX(bio, nullptr, nullptr, nullptr);
  if (leaf == nullptr || SSL_CTX_use_certificate(ctx, leaf) != 1) {
    X509_free(leaf);
    BIO_free(bio);
    return absl::InvalidArgumentError(
        absl::StrCat("bulk TLS: the certificate does not load: ", TlsErrors()));
  }
  X509_free(leaf);
  while (X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    SSL_CTX_add0_chain_cert(ctx, extra);  // takes it
  }
  ERR_clear_error();  // the end of the chain
  BIO_free(bio);
  bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  const bool used = key != nullptr && SSL_CTX_use_PrivateKey(ctx, key) == 1 &&
                    SSL_CTX_check_private_key(ctx) == 1;
  EVP_PKEY_free(key);
  if (!used) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bulk TLS: the key does not load or does not match the certificate: ",
        TlsErrors()));
  }
  return absl::OkStatus();
}

absl::Status TrustCa(SSL_CTX* ctx, const std::string& ca_pem) {
  if (ca_pem.empty()) {
    SSL_CTX_set_default_verify_paths(ctx);
    return absl::OkStatus();
  }
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  int added = 0;
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, ca) == 1) ++added;
    X509_free(ca);
  }
  ERR_clear_error();
  BIO_free(bio);
  if (added == 0) {
    return absl::InvalidArgumentError(
        "bulk TLS: the CA holds no certificate that loads");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const BulkTls>> BulkTls::NewServer(
    const Config& config) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return absl::InternalError(TlsErrors());
  std::shared_ptr<const BulkTls> tls(new BulkTls(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // No session tickets: a pooled client connection must hold no bytes
  // that no request asked for.
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  DFX_RETURN_IF_ERROR(UseCertAndKey(ctx, config.cert_pem, config.key_pem));
  if (config.client_auth > 0) {
    DFX_RETURN_IF_ERROR(TrustCa(ctx, config.ca_pem));
    SSL_CTX_set_verify(ctx,
                       config.client_auth >= 2
                           ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                           : SSL_VERIFY_PEER,
                       nullptr);
  }
  return tls;
}

absl::StatusOr<std::shared_ptr<const BulkTls>> BulkTls::NewClient(
    const Config& config) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return absl::InternalError(TlsErrors());
  std::shared_ptr<const BulkTls> tls(new BulkTls(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  DFX_RETURN_IF_ERROR(TrustCa(ctx, config.ca_pem));
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (!config.cert_pem.empty()) {
    DFX_RETURN_IF_ERROR(UseCertAndKey(ctx, config.cert_pem, config.key_pem));
  }
  return tls;
}

BulkTls::~BulkTls() { SSL_CTX_free(ctx_); }

}  // namespace dfx

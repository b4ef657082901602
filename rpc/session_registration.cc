// Registers the "grpc" session factory (targets "grpc://host:port") at
// start-up. Built as an object library whose objects every program linking
// dfx::rpc gets, so the registration cannot be dropped by the static linker.
#include <memory>

#include "absl/strings/match.h"
#include "rpc/grpc_session.h"
#include "runtime/session.h"

namespace dfx {
namespace {

class GrpcSessionFactory : public SessionFactory {
 public:
  bool AcceptsTarget(absl::string_view target) const override {
    return absl::StartsWith(target, "grpc://");
  }
  absl::StatusOr<std::unique_ptr<Session>> NewSession(
      absl::string_view target, const SessionOptions& options) override {
    auto session = GrpcSession::Create(target, options);
    if (!session.ok()) return session.status();
    return std::unique_ptr<Session>(std::move(session).value());
  }
};

[[maybe_unused]] const bool kGrpcSessionRegistered = [] {
  RegisterSessionFactory("grpc", std::make_unique<GrpcSessionFactory>());
  return true;
}();

}  // namespace
}  // namespace dfx

// Registers the "local" session factory at start-up. Built as an object
// library whose objects every program linking dfx::master gets, so the
// registration cannot be dropped by the static linker.
#include <memory>

#include "master/local_session.h"
#include "runtime/session.h"

namespace dfx {
namespace {

class LocalSessionFactory : public SessionFactory {
 public:
  bool AcceptsTarget(absl::string_view target) const override {
    return target.empty() || target == "local";
  }
  absl::StatusOr<std::unique_ptr<Session>> NewSession(
      absl::string_view target, const SessionOptions& options) override {
    auto session = LocalSession::Create(options);
    if (!session.ok()) return session.status();
    return std::unique_ptr<Session>(std::move(session).value());
  }
};

[[maybe_unused]] const bool kLocalSessionRegistered = [] {
  RegisterSessionFactory("local", std::make_unique<LocalSessionFactory>());
  return true;
}();

}  // namespace
}  // namespace dfx

#include "runtime/session.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace dfx {
namespace {

// Factories are never removed, so a factory pointer stays valid after the
// lock is released.
struct FactoryRegistry {
  absl::Mutex mu;
  std::map<std::string, std::unique_ptr<SessionFactory>> factories
      ABSL_GUARDED_BY(mu);
};

FactoryRegistry* GetFactoryRegistry() {
  static FactoryRegistry* registry = new FactoryRegistry;
  return registry;
}

}  // namespace

void RegisterSessionFactory(std::string name,
                            std::unique_ptr<SessionFactory> factory) {
  FactoryRegistry* r = GetFactoryRegistry();
  absl::MutexLock lock(&r->mu);
  // A second registration under one name keeps the first: factories handed
  // out earlier stay valid.
  r->factories.try_emplace(std::move(name), std::move(factory));
}

absl::StatusOr<std::unique_ptr<Session>> Session::Create(
    absl::string_view target, const SessionOptions& options) {
  FactoryRegistry* r = GetFactoryRegistry();
  SessionFactory* chosen = nullptr;
  std::vector<std::string> known;
  {
    absl::MutexLock lock(&r->mu);
    for (const auto& [name, factory] : r->factories) {
      known.push_back(name);
      if (chosen == nullptr && factory->AcceptsTarget(target)) {
        chosen = factory.get();
      }
    }
  }
  if (chosen == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("no session factory accepts target '", target,
                     "' (known: ", absl::StrJoin(known, ", "), ")"));
  }
  return chosen->NewSession(target, options);
}

}  // namespace dfx

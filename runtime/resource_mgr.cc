#include "runtime/resource_mgr.h"

#include <algorithm>

namespace dfx {

std::string Var::DebugString() const {
  absl::ReaderMutexLock lock(&mu_);
  if (!is_initialized_) {
    return absl::StrCat("Var<", DataTypeString(dtype_), ", uninitialized>");
  }
  return absl::StrCat("Var<", DataTypeString(dtype_), " ",
                      tensor_.shape().DebugString(), ">");
}

int64_t Var::MemoryUsed() const {
  absl::ReaderMutexLock lock(&mu_);
  return is_initialized_ ? static_cast<int64_t>(tensor_.TotalBytes()) : 0;
}

absl::Status ResourceMgr::Create(absl::string_view container,
                                 absl::string_view name,
                                 std::shared_ptr<ResourceBase> resource) {
  const std::string type_name = resource->TypeName();
  const absl::string_view c = Resolve(container);
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = containers_[c].try_emplace(
      Key(type_name, std::string(name)), std::move(resource));
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat(
        "Resource ", c, "/", name, " (", type_name, ") already exists"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::LookupBase(
    absl::string_view container, absl::string_view name,
    absl::string_view type_name) const {
  const absl::string_view c = Resolve(container);
  absl::ReaderMutexLock lock(&mu_);
  auto cit = containers_.find(c);
  if (cit != containers_.end()) {
    auto it = cit->second.find(Key(std::string(type_name), std::string(name)));
    if (it != cit->second.end()) return it->second;
  }
  return absl::NotFoundError(absl::StrCat("Resource ", c, "/", name, " (",
                                          type_name, ") does not exist"));
}

absl::StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::LookupOrCreateBase(
    absl::string_view container, absl::string_view name,
    absl::string_view type_name,
    const std::function<std::shared_ptr<ResourceBase>()>& create) {
  const absl::string_view c = Resolve(container);
  absl::MutexLock lock(&mu_);
  std::shared_ptr<ResourceBase>& slot =
      containers_[c][Key(std::string(type_name), std::string(name))];
  if (slot == nullptr) slot = create();
  if (slot == nullptr) {
    containers_[c].erase(Key(std::string(type_name), std::string(name)));
    return absl::InternalError(absl::StrCat("creating resource ", c, "/",
                                            name, " (", type_name,
                                            ") gave nothing"));
  }
  return slot;
}

absl::Status ResourceMgr::Delete(absl::string_view container,
                                 absl::string_view name,
                                 absl::string_view type_name) {
  const absl::string_view c = Resolve(container);
  std::shared_ptr<ResourceBase> doomed;  // destroyed outside the lock
  absl::MutexLock lock(&mu_);
  auto cit = containers_.find(c);
  if (cit != containers_.end()) {
    auto it = cit->second.find(Key(std::string(type_name), std::string(name)));
    if (it != cit->second.end()) {
      doomed = std::move(it->second);
      cit->second.erase(it);
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("Resource ", c, "/", name, " (",
                                          type_name, ") does not exist"));
}

void ResourceMgr::Cleanup(absl::string_view container) {
  Container doomed;
  {
    absl::MutexLock lock(&mu_);
    auto it = containers_.find(Resolve(container));
    if (it == containers_.end()) return;
    doomed = std::move(it->second);
    containers_.erase(it);
  }
}

void ResourceMgr::Clear() {
  absl::flat_hash_map<std::string, Container> doomed;
  absl::MutexLock lock(&mu_);
  doomed.swap(containers_);
}

std::vector<ResourceMgr::Entry> ResourceMgr::List() const {
  std::vector<std::pair<Entry, std::shared_ptr<ResourceBase>>> found;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [c, entries] : containers_) {
      for (const auto& [key, r] : entries) {
        found.push_back({Entry{c, key.second, key.first, "", 0}, r});
      }
    }
  }
  std::vector<Entry> out;
  out.reserve(found.size());
  for (auto& [e, r] : found) {
    e.debug_string = r->DebugString();
    e.bytes = r->MemoryUsed();
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.container, a.name, a.type_name) <
           std::tie(b.container, b.name, b.type_name);
  });
  return out;
}

}  // namespace dfx

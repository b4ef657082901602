// ResourceMgr: the state one device keeps across steps and sessions
// (variables, ...), in named containers; and Var, the resource behind a
// variable. Resources live until their container is cleared (a Reset of the
// master, CleanupAll on the worker) or the process ends, as in TensorFlow.
#ifndef DFX_RUNTIME_RESOURCE_MGR_H_
#define DFX_RUNTIME_RESOURCE_MGR_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "runtime/resource_handle.h"
#include "runtime/tensor.h"

namespace dfx {

// A resource. Shared (std::shared_ptr) between the manager and the kernels
// using it, so one deleted while a step uses it lives until that step ends.
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  // The type name handles carry in maybe_type_name ("Var").
  virtual std::string TypeName() const = 0;
  // One line for errors and the status page.
  virtual std::string DebugString() const = 0;
  // Bytes of tensor memory the resource holds.
  virtual int64_t MemoryUsed() const { return 0; }
};

// A variable: one tensor and the mutex that guards it. Kernels that update
// the tensor in place hold the mutex exclusively when `use_locking` asks
// for it; readers take it shared. Thread-safe through mu().
class Var : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Var";
  explicit Var(DataType dtype) : dtype_(dtype) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

  absl::Mutex* mu() { return &mu_; }
  DataType dtype() const { return dtype_; }
  // REQUIRES: mu() held (shared for reading, exclusively for writing).
  Tensor* tensor() { return &tensor_; }
  bool is_initialized() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return is_initialized_;
  }
  void set_initialized() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    is_initialized_ = true;
  }

 private:
  const DataType dtype_;
  mutable absl::Mutex mu_;
  Tensor tensor_;
  bool is_initialized_ = false;
};

// The variable behind a reference variable (VariableV2): a Var of its own
// type, so a reference and a resource variable of one name never meet, as
// in TensorFlow.
class LegacyVar : public Var {
 public:
  static constexpr const char* kTypeName = "LegacyVar";
  using Var::Var;
  std::string TypeName() const override { return kTypeName; }
};

// Thread-safe.
class ResourceMgr {
 public:
  // `default_container` serves handles whose container is empty.
  explicit ResourceMgr(std::string default_container = "localhost")
      : default_container_(std::move(default_container)) {}
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  const std::string& default_container() const { return default_container_; }

  // AlreadyExists when `container`/`name` holds a resource of the type.
  absl::Status Create(absl::string_view container, absl::string_view name,
                      std::shared_ptr<ResourceBase> resource);

  // NotFound "Resource container/name (Type) does not exist" when absent;
  // InvalidArgument when the resource there has another type.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> Lookup(absl::string_view container,
                                            absl::string_view name) const {
    absl::StatusOr<std::shared_ptr<ResourceBase>> r =
        LookupBase(container, name, T::kTypeName);
    if (!r.ok()) return r.status();
    return Downcast<T>(*std::move(r), container, name);
  }

  // Finds the resource or, when absent, stores the one `create` makes.
  // `create` runs under the manager's lock: keep it cheap.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> LookupOrCreate(
      absl::string_view container, absl::string_view name,
      const std::function<std::shared_ptr<T>()>& create) {
    absl::StatusOr<std::shared_ptr<ResourceBase>> r = LookupOrCreateBase(
        container, name, T::kTypeName,
        [&create]() -> std::shared_ptr<ResourceBase> { return create(); });
    if (!r.ok()) return r.status();
    return Downcast<T>(*std::move(r), container, name);
  }

  // NotFound when absent.
  absl::Status Delete(absl::string_view container, absl::string_view name,
                      absl::string_view type_name);

  // Drops every resource of `container` (the default one when empty). OK
  // when the container does not exist.
  void Cleanup(absl::string_view container);
  // Drops every container.
  void Clear();

  struct Entry {
    std::string container;
    std::string name;
    std::string type_name;
    std::string debug_string;
    int64_t bytes = 0;
  };
  // Every resource, sorted by container and name.
  std::vector<Entry> List() const;

 private:
  using Key = std::pair<std::string, std::string>;  // (type name, name)
  using Container = absl::flat_hash_map<Key, std::shared_ptr<ResourceBase>>;

  absl::string_view Resolve(absl::string_view container) const {
    return container.empty() ? absl::string_view(default_container_)
                             : container;
  }
  absl::StatusOr<std::shared_ptr<ResourceBase>> LookupBase(
      absl::string_view container, absl::string_view name,
      absl::string_view type_name) const;
  absl::StatusOr<std::shared_ptr<ResourceBase>> LookupOrCreateBase(
      absl::string_view container, absl::string_view name,
      absl::string_view type_name,
      const std::function<std::shared_ptr<ResourceBase>()>& create);

  template <typename T>
  static absl::StatusOr<std::shared_ptr<T>> Downcast(
      std::shared_ptr<ResourceBase> r, absl::string_view container,
      absl::string_view name) {
    std::shared_ptr<T> typed = std::dynamic_pointer_cast<T>(std::move(r));
    if (typed == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource ", container, "/", name, " is not a ",
                       T::kTypeName));
    }
    return typed;
  }

  const std::string default_container_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Container> containers_ ABSL_GUARDED_BY(mu_);
};

// The container of one step's resources (TensorArrays, stacks, which live
// no longer than the step): "__per_step_<step_id>" in `rm`, emptied when this
// object is destroyed at the end of the step.
class ScopedStepContainer {
 public:
  ScopedStepContainer(int64_t step_id, ResourceMgr* rm)
      : name_(absl::StrCat("__per_step_", step_id)), rm_(rm) {}
  ~ScopedStepContainer() {
    if (rm_ != nullptr) rm_->Cleanup(name_);
  }
  ScopedStepContainer(const ScopedStepContainer&) = delete;
  ScopedStepContainer& operator=(const ScopedStepContainer&) = delete;

  const std::string& name() const { return name_; }
  ResourceMgr* resource_manager() const { return rm_; }

 private:
  const std::string name_;
  ResourceMgr* const rm_;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_RESOURCE_MGR_H_

// SharedRef<T>: a shared_ptr that can also say, with acquire ordering, that
// it is the last reference to its object.
//
// A kernel that holds the last reference to a buffer or value may write it
// in place (a variable's update, a list's push_back), so every read made
// through a reference dropped before, on any thread, must happen before
// those writes. shared_ptr's use_count() is a relaxed load; Unique() adds
// an acquire fence after it, which pairs with the release that the dropped
// reference's decrement made. ThreadSanitizer does not model fences, so its
// build also announces every drop of a reference as a release on the
// object, and Unique() as an acquire of it.
#ifndef DFX_BASE_SHARED_REF_H_
#define DFX_BASE_SHARED_REF_H_

#include <atomic>
#include <memory>
#include <utility>

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace dfx {

template <typename T>
class SharedRef {
 public:
  SharedRef() = default;
  explicit SharedRef(std::shared_ptr<T> p) : p_(std::move(p)) {}
  SharedRef(const SharedRef&) = default;
  SharedRef(SharedRef&&) noexcept = default;
  // Both take `other`'s reference before dropping this one, as shared_ptr
  // does: `other` may live inside the object this one drops last (a tensor
  // inside a Variant's value), and self-assignment needs no check.
  SharedRef& operator=(const SharedRef& other) {
    std::shared_ptr<T> kept = other.p_;
    Drop();
    p_ = std::move(kept);
    return *this;
  }
  SharedRef& operator=(SharedRef&& other) noexcept {
    std::shared_ptr<T> kept = std::move(other.p_);
    Drop();
    p_ = std::move(kept);
    return *this;
  }
  ~SharedRef() { Drop(); }

  T* get() const { return p_.get(); }
  T* operator->() const { return p_.get(); }
  const std::shared_ptr<T>& shared() const { return p_; }
  // A snapshot, for tests and statistics; Unique() to decide a write.
  long use_count() const { return p_.use_count(); }
  bool Unique() const {
    if (p_.use_count() != 1) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
#if defined(__SANITIZE_THREAD__)
    __tsan_acquire(const_cast<void*>(static_cast<const void*>(p_.get())));
#endif
    return true;
  }

 private:
  void Drop() {
#if defined(__SANITIZE_THREAD__)
    if (p_ != nullptr) {
      __tsan_release(const_cast<void*>(static_cast<const void*>(p_.get())));
    }
#endif
    p_.reset();
  }

  std::shared_ptr<T> p_;
};

}  // namespace dfx

#endif  // DFX_BASE_SHARED_REF_H_

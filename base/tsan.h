// What dfx tells ThreadSanitizer where the ordering it relies on, or a race
// it keeps on purpose, is out of TSan's sight. Everything here compiles to
// nothing outside the TSan build (`tools/test --sanitize thread`).
//
// Each use must name why it is right; docs/reliability.md lists them. The
// other annotation dfx makes is in base/shared_ref.h (TSan does not model
// the acquire fence of SharedRef::Unique).
#ifndef DFX_BASE_TSAN_H_
#define DFX_BASE_TSAN_H_

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace dfx {

// While alive (and `ignore` is true), TSan records none of this thread's
// memory accesses, so none of them is reported as a race; synchronization
// is still recorded. For one thing only: a variable's in-place update that
// TensorFlow's contract lets run under readers, which dfx keeps: any update
// of a reference variable (`VariableV2`: readers alias its buffer), and an
// optimizer's update of a resource variable with `use_locking=False` (the
// default: "Hogwild" training), which un-shares the buffer from earlier
// readers under the variable's lock but then writes without it, so a read
// that starts meanwhile sees the update in progress, as in TensorFlow.
// Locked updates of resource variables (AssignAddVariableOp,
// ResourceScatter*, `use_locking=True`) are not annotated and stay fully
// checked, copy-on-write included.
class ScopedTsanIgnoreAccesses {
 public:
  explicit ScopedTsanIgnoreAccesses(bool ignore = true)
#if defined(__SANITIZE_THREAD__)
      : ignore_(ignore) {
    if (ignore_) __tsan_ignore_thread_begin();
  }
  ~ScopedTsanIgnoreAccesses() {
    if (ignore_) __tsan_ignore_thread_end();
  }
#else
  {
    (void)ignore;
  }
#endif
  ScopedTsanIgnoreAccesses(const ScopedTsanIgnoreAccesses&) = delete;
  ScopedTsanIgnoreAccesses& operator=(const ScopedTsanIgnoreAccesses&) =
      delete;

 private:
#if defined(__SANITIZE_THREAD__)
  const bool ignore_;
#endif
};

}  // namespace dfx

#endif  // DFX_BASE_TSAN_H_

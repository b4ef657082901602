// Mutex: the resource behind tf.CriticalSection (MutexV2, MutexLock,
// ConsumeMutexLock), and MutexLockValue, the DT_VARIANT value that holds
// it locked.
//
// Lock holds no thread while the mutex is held elsewhere: the request waits
// in the mutex's WaitList (kernels/data_flow/wait.h), in arrival order, and
// ends when the mutex is released to it or when its step is cancelled
// (Cancelled). A granted lock is a MutexLockValue; the mutex is released
// when the last Variant sharing that value goes away, i.e. when the last
// tensor holding it is dropped (the executor drops a tensor once its last
// consumer, ConsumeMutexLock in a critical section, has run, and every
// tensor when the step ends).
#ifndef DFX_KERNELS_DATA_FLOW_MUTEX_H_
#define DFX_KERNELS_DATA_FLOW_MUTEX_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "kernels/data_flow/wait.h"
#include "runtime/cancellation.h"
#include "runtime/thread_pool.h"
#include "runtime/variant.h"

namespace dfx::data_flow {

class Mutex : public WaitingResource {
 public:
  static constexpr const char* kTypeName = "Mutex";
  // Callbacks of waiting locks that a release lets go on run on `pool`
  // (inline when null): a release happens wherever a tensor is dropped,
  // and must not run another step's kernels there.
  Mutex(std::string name, ThreadPool* pool)
      : name_(std::move(name)), pool_(pool) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;

  // Takes the mutex: `done` gets OK and a Variant holding a MutexLockValue
  // once this request has it (at once when it is free and nobody waits),
  // or Cancelled "Lock acquisition was cancelled" and an empty Variant
  // when `cm` (may be null) is cancelled first. `done` runs on the calling
  // thread, the cancelling thread or the pool.
  void Lock(CancellationManager* cm,
            std::function<void(absl::Status, Variant)> done);

  // Whether the mutex is held (a snapshot, for tests).
  bool IsLocked() const;

 private:
  friend class MutexLockValue;
  // Called by the last MutexLockValue reference; lets the first waiting
  // request have the mutex.
  void Unlock();

  const std::string name_;
  ThreadPool* const pool_;
  bool locked_ ABSL_GUARDED_BY(mu_) = false;
};

// A held Mutex; releases it when destroyed.
class MutexLockValue final : public VariantValue {
 public:
  explicit MutexLockValue(std::shared_ptr<Mutex> mutex)
      : mutex_(std::move(mutex)) {}
  ~MutexLockValue() override { mutex_->Unlock(); }
  MutexLockValue(const MutexLockValue&) = delete;
  MutexLockValue& operator=(const MutexLockValue&) = delete;

  // TensorFlow's name for its lock (a SharedPtrVariant<LockReleaser>),
  // which it does not encode either.
  std::string TypeName() const override { return "SharedPtrVariant"; }
  void Encode(VariantTensorDataProto*) const override {}
  std::string DebugString() const override;

 private:
  const std::shared_ptr<Mutex> mutex_;
};

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_MUTEX_H_

// GpuStream and GpuEvent: RAII owners of a CUDA stream and event on one
// device. Work is ordered between streams with events
// (stream->WaitFor(event)), never with device-wide synchronization.
#ifndef DFX_GPU_GPU_STREAM_H_
#define DFX_GPU_GPU_STREAM_H_

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace dfx::gpu {

// Makes `ordinal` the calling thread's current CUDA device until it goes
// out of scope, then restores the previous one.
class ScopedActivateDevice {
 public:
  explicit ScopedActivateDevice(int ordinal);
  ~ScopedActivateDevice();
  // The error of cudaSetDevice, if any.
  const absl::Status& status() const { return status_; }

 private:
  int previous_ = -1;
  absl::Status status_;
};

class GpuEvent;

// Polls `done` until it answers true (or an error): yielding the CPU for
// the first kSpinFor, since a sleep costs ~50 µs of timer slack and short
// kernels and copies end sooner, then sleeping 10 to 100 µs between polls.
// DeadlineExceeded naming `what` after `timeout`.
inline constexpr absl::Duration kSpinFor = absl::Microseconds(500);
absl::Status PollUntilDone(const std::function<absl::StatusOr<bool>()>& done,
                           absl::Duration timeout, absl::string_view what);

// Thread-safe (CUDA streams are).
class GpuStream {
 public:
  // A non-blocking stream (it does not wait for the legacy default stream)
  // on device `ordinal`; `name` ("compute", "h2d", ...) is for messages.
  static absl::StatusOr<std::unique_ptr<GpuStream>> Create(
      int ordinal, absl::string_view name);
  // Destroys the stream; work already enqueued still completes.
  ~GpuStream();
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;

  cudaStream_t get() const { return stream_; }
  int ordinal() const { return ordinal_; }
  const std::string& name() const { return name_; }

  // Later work on this stream waits for `event` on the device; the host
  // does not wait.
  absl::Status WaitFor(const GpuEvent& event);
  // Blocks the calling thread until everything enqueued so far has run
  // (PollUntilDone); DeadlineExceeded naming the stream after `timeout`.
  // For tests, tools and GpuDevice's copies, which the host waits for;
  // kernels never wait.
  absl::Status BlockHostUntilDone(absl::Duration timeout);

 private:
  GpuStream(int ordinal, std::string name, cudaStream_t stream)
      : ordinal_(ordinal), name_(std::move(name)), stream_(stream) {}

  const int ordinal_;
  const std::string name_;
  const cudaStream_t stream_;
};

// Thread-safe.
class GpuEvent {
 public:
  // An event without timing (cheapest to record and wait for).
  static absl::StatusOr<std::unique_ptr<GpuEvent>> Create(int ordinal);
  ~GpuEvent();
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  cudaEvent_t get() const { return event_; }
  // Marks the point after everything enqueued on `stream` so far.
  absl::Status Record(const GpuStream& stream);
  // True once the work before the last Record has run (true if never
  // recorded); the CUDA error otherwise.
  absl::StatusOr<bool> Done() const;
  // Blocks until Done (PollUntilDone); DeadlineExceeded naming `what`.
  absl::Status BlockHostUntilDone(absl::Duration timeout,
                                  absl::string_view what) const;

 private:
  GpuEvent(int ordinal, cudaEvent_t event) : ordinal_(ordinal), event_(event) {}

  const int ordinal_;
  const cudaEvent_t event_;
};

}  // namespace dfx::gpu

#endif  // DFX_GPU_GPU_STREAM_H_

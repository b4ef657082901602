#include "gpu/gpu_stream.h"

#include <algorithm>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "gpu/cuda_status.h"

namespace dfx::gpu {

ScopedActivateDevice::ScopedActivateDevice(int ordinal) {
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  if (previous_ != ordinal) {
    status_ = CudaStatus(cudaSetDevice(ordinal),
                         absl::StrCat("cudaSetDevice(", ordinal, ")"));
  } else {
    previous_ = -1;  // nothing to restore
  }
}

ScopedActivateDevice::~ScopedActivateDevice() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

absl::StatusOr<std::unique_ptr<GpuStream>> GpuStream::Create(
    int ordinal, absl::string_view name) {
  ScopedActivateDevice activate(ordinal);
  if (!activate.status().ok()) return activate.status();
  cudaStream_t stream = nullptr;
  DFX_CUDA_RETURN_IF_ERROR(
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
      absl::StrCat("creating the ", name, " stream of GPU ordinal ", ordinal));
  return std::unique_ptr<GpuStream>(
      new GpuStream(ordinal, std::string(name), stream));
}

GpuStream::~GpuStream() {
  ScopedActivateDevice activate(ordinal_);
  const cudaError_t e = cudaStreamDestroy(stream_);
  if (e != cudaSuccess) {
    spdlog::warn("{}", CudaStatus(e, absl::StrCat("destroying the ", name_,
                                                  " stream")));
  }
}

absl::Status GpuStream::WaitFor(const GpuEvent& event) {
  DFX_CUDA_RETURN_IF_ERROR(
      cudaStreamWaitEvent(stream_, event.get(), 0),
      absl::StrCat("the ", name_, " stream of GPU ordinal ", ordinal_,
                   " waiting for an event"));
  return absl::OkStatus();
}

absl::Status PollUntilDone(const std::function<absl::StatusOr<bool>()>& done,
                           absl::Duration timeout, absl::string_view what) {
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + timeout;
  absl::Duration pause = absl::Microseconds(10);
  while (true) {
    absl::StatusOr<bool> finished = done();
    if (!finished.ok()) return finished.status();
    if (*finished) return absl::OkStatus();
    const absl::Time now = absl::Now();
    if (now >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(what, " did not finish its work within ",
                       absl::FormatDuration(timeout)));
    }
    if (now - start < kSpinFor) {
      std::this_thread::yield();
      continue;
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Microseconds(100));
  }
}

absl::Status GpuStream::BlockHostUntilDone(absl::Duration timeout) {
  const std::string what =
      absl::StrCat("the ", name_, " stream of GPU ordinal ", ordinal_);
  return PollUntilDone(
      [&]() -> absl::StatusOr<bool> {
        const cudaError_t e = cudaStreamQuery(stream_);
        if (e == cudaSuccess) return true;
        if (e == cudaErrorNotReady) return false;
        return CudaStatus(e, what);
      },
      timeout, what);
}

absl::Status GpuEvent::BlockHostUntilDone(absl::Duration timeout,
                                          absl::string_view what) const {
  return PollUntilDone([this] { return Done(); }, timeout, what);
}

absl::StatusOr<std::unique_ptr<GpuEvent>> GpuEvent::Create(int ordinal) {
  ScopedActivateDevice activate(ordinal);
  if (!activate.status().ok()) return activate.status();
  cudaEvent_t event = nullptr;
  DFX_CUDA_RETURN_IF_ERROR(
      cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
      absl::StrCat("creating an event on GPU ordinal ", ordinal));
  return std::unique_ptr<GpuEvent>(new GpuEvent(ordinal, event));
}

GpuEvent::~GpuEvent() {
  ScopedActivateDevice activate(ordinal_);
  cudaEventDestroy(event_);
}

absl::Status GpuEvent::Record(const GpuStream& stream) {
  DFX_CUDA_RETURN_IF_ERROR(
      cudaEventRecord(event_, stream.get()),
      absl::StrCat("recording an event on the ", stream.name(), " stream"));
  return absl::OkStatus();
}

absl::StatusOr<bool> GpuEvent::Done() const {
  const cudaError_t e = cudaEventQuery(event_);
  if (e == cudaSuccess) return true;
  if (e == cudaErrorNotReady) return false;
  return CudaStatus(e, absl::StrCat("an event on GPU ordinal ", ordinal_));
}

}  // namespace dfx::gpu

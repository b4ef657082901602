// Executor: runs one graph's kernels on one device, step after step, in
// dataflow order; and SimpleCallFrame, the call frame that carries a step's
// feeds (_Arg) and fetches (_Retval).
#ifndef DFX_RUNTIME_EXECUTOR_H_
#define DFX_RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx {

class CancellationManager;
class Rendezvous;
class StepStatsCollector;

struct ExecutorParams {
  // Both must outlive the executor.
  Device* device = nullptr;
  const KernelRegistry* kernel_registry = nullptr;
  // Optional: makes (or finds) the kernel of a node instead of the
  // registry. A worker session sets it so that the kernels of stateful ops
  // (random generators) are shared by every graph of the session, as
  // TensorFlow's OpSegment does.
  std::function<absl::StatusOr<std::shared_ptr<OpKernel>>(const Node&)>
      create_kernel;
};

// Thread-safe: RunAsync may be called from many threads for concurrent steps;
// the executor keeps no per-step state of its own.
class Executor {
 public:
  // Schedules a closure on the inter-op thread pool.
  using Runner = std::function<void(std::function<void()>)>;
  // Called exactly once per step with the step's status.
  using DoneCallback = std::function<void(absl::Status)>;

  // What one step needs. Pointers are borrowed until the step's done
  // callback has been called.
  struct Args {
    int64_t step_id = 0;
    CallFrameInterface* call_frame = nullptr;
    Rendezvous* rendezvous = nullptr;
    // Optional. StartCancel ends the step with Cancelled (in-flight kernels
    // finish first; an async kernel must observe cancellation itself). The
    // executor calls StartCancel itself on the step's first error, so that
    // async kernels of other branches stop waiting.
    CancellationManager* cancellation_manager = nullptr;
    // Optional; null collects nothing and costs nothing.
    StepStatsCollector* stats_collector = nullptr;
    // Where ready expensive nodes go (and the roots, without
    // run_roots_inline); the cheap nodes an async kernel makes ready run on
    // the thread that completed it. Empty: run everything on the calling
    // thread (and on async kernels' threads).
    Runner runner;
    // The calling thread would otherwise only wait for the step, or is an
    // RPC thread that can run a few cheap nodes: RunAsync runs the cheap
    // root nodes, and the cheap nodes they make ready, on it before it
    // returns, instead of handing them to the runner and waking a pool
    // thread. Expensive nodes (those not yet found cheap) still go to the
    // runner, but for a last one left that has been found to take under
    // 100 µs: the calling thread is never held up long.
    bool run_roots_inline = false;
  };

  virtual ~Executor() = default;

  // Starts a step and returns. `done` runs exactly once, after every kernel
  // the step started has finished, on whichever thread finished last (may be
  // the caller's, before RunAsync returns). Its status is OK, the first
  // error of a kernel prefixed "node 'name' (op Type): ", or Cancelled.
  virtual void RunAsync(const Args& args, DoneCallback done) = 0;

  // Runs a step and waits for it; root and cheap nodes run on the calling
  // thread. Has no deadline of its own: cancel through the args'
  // cancellation manager.
  virtual absl::Status Run(const Args& args) = 0;

  // The graph it runs.
  virtual const Graph& graph() const = 0;
};

// Builds an executor for `graph` on `params.device`: every node's kernel is
// created now. Errors: the kernel registry's error (naming the node) for a
// node without a kernel or whose kernel rejects its attrs; InvalidArgument
// naming the node for a data input without an edge.
absl::StatusOr<std::unique_ptr<Executor>> NewExecutor(
    const ExecutorParams& params, std::unique_ptr<const Graph> graph);

// A call frame over a vector of arguments and a vector of return values.
// Thread-safe.
class SimpleCallFrame : public CallFrameInterface {
 public:
  SimpleCallFrame(std::vector<Tensor> args, size_t num_retvals);

  size_t num_args() const override { return args_.size(); }
  size_t num_retvals() const override { return retvals_.size(); }
  // InvalidArgument for an index out of range.
  absl::Status GetArg(int index, Tensor* value) const override;
  // InvalidArgument for an index out of range, Internal when set twice.
  absl::Status SetRetval(int index, const Tensor& value) override;

  // Moves the return values out. Internal naming the index when one was
  // never set.
  absl::StatusOr<std::vector<Tensor>> ConsumeRetvals();

 private:
  const std::vector<Tensor> args_;
  absl::Mutex mu_;
  std::vector<Tensor> retvals_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> retval_set_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RUNTIME_EXECUTOR_H_

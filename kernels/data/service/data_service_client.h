// A client of TensorFlow's tf.data service (a dispatcher started by
// tf.data.experimental.service.DispatchServer and its workers): the calls
// RegisterDataset and DataServiceDataset make, over gRPC under TensorFlow's
// method paths, and the decoding of the elements workers send.
//
// Every call has a deadline and stops when its CancellationManager is
// cancelled. A call that fails with a transient gRPC code (Unavailable,
// Aborted, or a Cancelled that dfx did not ask for) is retried with backoff
// until the client's retry window ends, as TensorFlow's grpc_util::Retry
// does (TensorFlow's window is 60 minutes); the last error then comes back
// with gRPC's code, its message prefixed with what failed.
#ifndef DFX_KERNELS_DATA_SERVICE_DATA_SERVICE_CLIENT_H_
#define DFX_KERNELS_DATA_SERVICE_DATA_SERVICE_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/tf_data_service.pb.h"
#include "runtime/cancellation.h"
#include "runtime/tensor.h"

namespace dfx::data {

// TensorFlow's retry window for tf.data service calls.
inline constexpr absl::Duration kDataServiceRetryWindow = absl::Minutes(60);

// The component tensors of TensorFlow's CompressedElement: the snappy data
// split by each component's uncompressed_bytes (a memcpy-able dtype's
// buffer, each string of a string tensor, a serialized TensorProto for
// other dtypes). InvalidArgument when the data or the metadata do not
// agree (a corrupt or foreign element); never crashes on bad input.
absl::StatusOr<std::vector<Tensor>> DecodeCompressedElement(
    const tfdata::CompressedElement& element);

// TensorFlow's CompressedElement encoding of `components` (for tests and
// for dfx's own CompressElement values).
absl::StatusOr<tfdata::CompressedElement> EncodeCompressedElement(
    const std::vector<Tensor>& components);

// One dispatcher and the workers its tasks name. Thread-safe.
class DataServiceClient {
 public:
  // `protocol` must be "grpc" (TensorFlow's servers' default); others are
  // TensorFlow's NotFound ("No credentials factory ..."). Connecting is lazy:
  // nothing is sent until the first call.
  static absl::StatusOr<std::unique_ptr<DataServiceClient>> Create(
      const std::string& address, const std::string& protocol,
      absl::Duration retry_window = kDataServiceRetryWindow);
  virtual ~DataServiceClient() = default;

  const std::string& address() const { return address_; }

  // The dispatcher's calls. `cm` may be null.
  virtual absl::StatusOr<std::string> GetOrRegisterDataset(
      const tfdata::GetOrRegisterDatasetRequest& request,
      CancellationManager* cm) = 0;
  virtual absl::StatusOr<tfdata::DataServiceMetadata> GetMetadata(
      const std::string& dataset_id, CancellationManager* cm) = 0;
  virtual absl::StatusOr<tfdata::DataServiceConfig> GetConfig(
      CancellationManager* cm) = 0;
  virtual absl::StatusOr<int64_t> GetOrCreateJob(
      const tfdata::GetOrCreateJobRequest& request,
      CancellationManager* cm) = 0;
  virtual absl::StatusOr<int64_t> GetOrCreateIteration(
      int64_t job_id, int64_t repetition, CancellationManager* cm) = 0;
  virtual absl::StatusOr<tfdata::ClientHeartbeatResponse> ClientHeartbeat(
      const tfdata::ClientHeartbeatRequest& request,
      CancellationManager* cm) = 0;
  // Asks the dispatcher to write a distributed snapshot (DistributedSave);
  // returns once the dispatcher has started it.
  virtual absl::Status Snapshot(const tfdata::SnapshotRequest& request,
                                CancellationManager* cm) = 0;
  // Best effort, with a short deadline; errors are dropped.
  virtual void ReleaseIterationClient(int64_t iteration_client_id) = 0;

  // A worker's GetElement. With `retry`, waits (retrying each long poll
  // and transient errors) while the worker has no element ready; without,
  // one try of at most a minute.
  virtual absl::StatusOr<tfdata::GetElementResponse> GetElement(
      const std::string& worker_address,
      const tfdata::GetElementRequest& request, bool retry,
      CancellationManager* cm) = 0;

 protected:
  explicit DataServiceClient(std::string address)
      : address_(std::move(address)) {}

 private:
  const std::string address_;
};

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_SERVICE_DATA_SERVICE_CLIENT_H_

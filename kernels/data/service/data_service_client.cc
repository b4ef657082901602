// The gRPC client of TensorFlow's tf.data service and TensorFlow's
// CompressedElement encoding. gRPC status codes carry over to absl's as
// they are (both are the canonical codes); this is the kernels' only gRPC
// file, so the conversion is spelled here rather than taken from rpc/,
// which the kernels do not depend on.
#include "kernels/data/service/data_service_client.h"

#include <snappy.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include <grpcpp/grpcpp.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "proto/tf_data_service_rpc.grpc.pb.h"
#include "runtime/allocator.h"
#include "runtime/cancellable_sleep.h"
#include "runtime/tensor_shape.h"

namespace dfx::data {
namespace {

using DispatcherStub = ::tensorflow::data::DispatcherService::Stub;
using WorkerStub = ::tensorflow::data::WorkerService::Stub;

// The longest a single dispatcher call may take; a worker's GetElement is
// a long poll of this length, repeated while the worker has nothing ready.
constexpr absl::Duration kCallTimeout = absl::Seconds(60);
constexpr absl::Duration kReleaseTimeout = absl::Seconds(5);

absl::Status WrapGrpc(const grpc::Status& s, const std::string& what) {
  return absl::Status(
      static_cast<absl::StatusCode>(s.error_code()),
      absl::StrCat("Failed to ", what, ": ", s.error_message()));
}

bool IsTransient(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE ||
         code == grpc::StatusCode::ABORTED ||
         code == grpc::StatusCode::CANCELLED;
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   args);
}

class GrpcDataServiceClient final : public DataServiceClient {
 public:
  GrpcDataServiceClient(std::string address, absl::Duration retry_window)
      : DataServiceClient(address),
        retry_window_(retry_window),
        dispatcher_(::tensorflow::data::DispatcherService::NewStub(
            MakeChannel(address))) {}

  absl::StatusOr<std::string> GetOrRegisterDataset(
      const tfdata::GetOrRegisterDatasetRequest& request,
      CancellationManager* cm) override {
    tfdata::GetOrRegisterDatasetResponse response;
    DFX_RETURN_IF_ERROR(Call(
        absl::StrCat("register dataset with dispatcher at ", address()), cm,
        kCallTimeout, false, [&](grpc::ClientContext* ctx) {
          return dispatcher_->GetOrRegisterDataset(ctx, request, &response);
        }));
    return response.dataset_id();
  }

  absl::StatusOr<tfdata::DataServiceMetadata> GetMetadata(
      const std::string& dataset_id, CancellationManager* cm) override {
    tfdata::GetDataServiceMetadataRequest request;
    request.set_dataset_id(dataset_id);
    tfdata::GetDataServiceMetadataResponse response;
    DFX_RETURN_IF_ERROR(Call(
        absl::StrCat("get data service metadata for dataset ", dataset_id,
                     " from dispatcher at ", address()),
        cm, kCallTimeout, false, [&](grpc::ClientContext* ctx) {
          return dispatcher_->GetDataServiceMetadata(ctx, request, &response);
        }));
    return response.metadata();
  }

  absl::StatusOr<tfdata::DataServiceConfig> GetConfig(
      CancellationManager* cm) override {
    tfdata::GetDataServiceConfigRequest request;
    tfdata::GetDataServiceConfigResponse response;
    DFX_RETURN_IF_ERROR(Call(
        absl::StrCat("get data service config from dispatcher at ", address()),
        cm, kCallTimeout, false, [&](grpc::ClientContext* ctx) {
          return dispatcher_->GetDataServiceConfig(ctx, request, &response);
        }));
    return response.config();
  }

  absl::StatusOr<int64_t> GetOrCreateJob(
      const tfdata::GetOrCreateJobRequest& request,
      CancellationManager* cm) override {
    tfdata::GetOrCreateJobResponse response;
    DFX_RETURN_IF_ERROR(
        Call(absl::StrCat("get or create job for dataset with id ",
                          request.dataset_id()),
             cm, kCallTimeout, false, [&](grpc::ClientContext* ctx) {
               return dispatcher_->GetOrCreateJob(ctx, request, &response);
             }));
    return response.job_id();
  }

  absl::StatusOr<int64_t> GetOrCreateIteration(
      int64_t job_id, int64_t repetition, CancellationManager* cm) override {
    tfdata::GetOrCreateIterationRequest request;
    request.set_job_id(job_id);
    request.set_repetition(repetition);
    tfdata::GetOrCreateIterationResponse response;
    DFX_RETURN_IF_ERROR(Call(
        absl::StrCat("get or create iteration for job with id ", job_id), cm,
        kCallTimeout, false, [&](grpc::ClientContext* ctx) {
          return dispatcher_->GetOrCreateIteration(ctx, request, &response);
        }));
    return response.iteration_client_id();
  }

  absl::StatusOr<tfdata::ClientHeartbeatResponse> ClientHeartbeat(
      const tfdata::ClientHeartbeatRequest& request,
      CancellationManager* cm) override {
    tfdata::ClientHeartbeatResponse response;
    DFX_RETURN_IF_ERROR(Call(
        "get tasks", cm, kCallTimeout, false, [&](grpc::ClientContext* ctx) {
          return dispatcher_->ClientHeartbeat(ctx, request, &response);
        }));
    return response;
  }

  absl::Status Snapshot(const tfdata::SnapshotRequest& request,
                        CancellationManager* cm) override {
    tfdata::SnapshotResponse response;
    return Call("snapshot", cm, kCallTimeout, false,
                [&](grpc::ClientContext* ctx) {
                  return dispatcher_->Snapshot(ctx, request, &response);
                });
  }

  void ReleaseIterationClient(int64_t iteration_client_id) override {
    tfdata::ReleaseIterationClientRequest request;
    request.set_iteration_client_id(iteration_client_id);
    tfdata::ReleaseIterationClientResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + kReleaseTimeout));
    (void)dispatcher_->ReleaseIterationClient(&ctx, request, &response);
  }

  absl::StatusOr<tfdata::GetElementResponse> GetElement(
      const std::string& worker_address,
      const tfdata::GetElementRequest& request, bool retry,
      CancellationManager* cm) override {
    WorkerStub* stub = Worker(worker_address);
    tfdata::GetElementResponse response;
    DFX_RETURN_IF_ERROR(Call(
        absl::StrCat("get element from worker ", worker_address), cm,
        kCallTimeout, /*long_poll=*/true,
        [&](grpc::ClientContext* ctx) {
          response.Clear();
          return stub->GetElement(ctx, request, &response);
        },
        retry));
    return response;
  }

 private:
  WorkerStub* Worker(const std::string& address) {
    absl::MutexLock lock(&mu_);
    std::unique_ptr<WorkerStub>& stub = workers_[address];
    if (stub == nullptr) {
      stub = ::tensorflow::data::WorkerService::NewStub(MakeChannel(address));
    }
    return stub.get();
  }

  // Runs `call` (grpc::Status(grpc::ClientContext*)) until it succeeds,
  // fails for good, the retry window ends or `cm` is cancelled. Each try
  // gets a deadline of `timeout` (or the window's end); `long_poll` retries
  // a try that ran out of time. Without `retry`, one try.
  template <typename Fn>
  absl::Status Call(const std::string& what, CancellationManager* cm,
                    absl::Duration timeout, bool long_poll, Fn call,
                    bool retry = true) {
    const absl::Time window_end = absl::Now() + retry_window_;
    absl::Duration backoff = absl::Milliseconds(20);
    grpc::Status last_error;  // the last transient error but a timeout
    const auto cancelled_error = [&] {
      return absl::CancelledError(
          absl::StrCat("Failed to ", what, ": the call was cancelled"));
    };
    while (true) {
      grpc::ClientContext ctx;
      const bool clipped = absl::Now() + timeout >= window_end;
      ctx.set_deadline(
          absl::ToChronoTime(std::min(absl::Now() + timeout, window_end)));
      std::atomic<bool> cancelled{false};
      CancellationToken token = 0;
      if (cm != nullptr) {
        token = cm->get_cancellation_token();
        if (!cm->RegisterCallback(token, [&ctx, &cancelled] {
              cancelled = true;
              ctx.TryCancel();
            })) {
          return cancelled_error();
        }
      }
      const grpc::Status s = call(&ctx);
      if (cm != nullptr) cm->DeregisterCallback(token);
      if (s.ok()) return absl::OkStatus();
      if (cancelled || (cm != nullptr && cm->IsCancelled())) {
        return cancelled_error();
      }
      const bool again =
          IsTransient(s.error_code()) ||
          (long_poll && s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
      const absl::Duration left = window_end - absl::Now();
      const bool timed_out =
          s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
      if ((!again || !retry) && !(retry && clipped && timed_out)) {
        return WrapGrpc(s, what);
      }
      if (left <= absl::ZeroDuration() || (clipped && timed_out)) {
        // A try the window's end cut short answers with the error of the
        // try before it, or Unavailable when every try ran out of time (a
        // dispatcher that never answered): TensorFlow's tries have no
        // deadline and its retries end with the last try's error.
        if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
          return WrapGrpc(
              last_error.ok()
                  ? grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                 "no answer within the retry window")
                  : last_error,
              what);
        }
        return WrapGrpc(s, what);
      }
      if (s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) last_error = s;
      if (s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED &&
          !SleepUnlessCancelled(cm, std::min(backoff, left))) {
        return cancelled_error();
      }
      backoff = std::min(backoff * 2, absl::Seconds(1));
    }
  }

  const absl::Duration retry_window_;
  const std::unique_ptr<DispatcherStub> dispatcher_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<WorkerStub>> workers_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<DataServiceClient>> DataServiceClient::Create(
    const std::string& address, const std::string& protocol,
    absl::Duration retry_window) {
  if (protocol != "grpc") {
    return absl::NotFoundError(
        absl::StrCat("No credentials factory has been registered for protocol ",
                     protocol, ". The available types are: [ grpc ]"));
  }
  return std::unique_ptr<DataServiceClient>(
      new GrpcDataServiceClient(address, retry_window));
}

absl::StatusOr<std::vector<Tensor>> DecodeCompressedElement(
    const tfdata::CompressedElement& element) {
  std::string raw;
  if (!snappy::Uncompress(element.data().data(), element.data().size(), &raw)) {
    return absl::InvalidArgumentError(
        "Failed to perform snappy decompression of a tf.data service "
        "element.");
  }
  const auto corrupt = [](int i, absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("Corrupt compressed element: component ", i, " ", why));
  };
  std::vector<Tensor> out;
  size_t pos = 0;
  for (int i = 0; i < element.component_metadata_size(); ++i) {
    const tfdata::CompressedComponentMetadata& m =
        element.component_metadata(i);
    const DataType dtype = static_cast<DataType>(m.dtype());
    absl::StatusOr<TensorShape> shape =
        TensorShape::FromProto(m.tensor_shape());
    if (!shape.ok()) return corrupt(i, shape.status().message());
    const auto piece = [&](int j) -> absl::StatusOr<absl::string_view> {
      if (j >= m.uncompressed_bytes_size()) {
        return corrupt(i, "has too few pieces");
      }
      const uint64_t n = m.uncompressed_bytes(j);
      if (n > raw.size() - pos) return corrupt(i, "runs past the data");
      absl::string_view p(raw.data() + pos, n);
      pos += n;
      return p;
    };
    const int64_t count = shape->num_elements();
    if (dtype == DT_STRING) {
      if (m.uncompressed_bytes_size() != count) {
        return corrupt(i, "has a piece count other than its string count");
      }
      Tensor t(DT_STRING, *shape);
      for (int64_t j = 0; j < count; ++j) {
        DFX_ASSIGN_OR_RETURN(absl::string_view p, piece(static_cast<int>(j)));
        t.data<std::string>()[j] = std::string(p);
      }
      out.push_back(std::move(t));
    } else if (DataTypeSize(dtype) > 0) {
      const uint64_t bytes = static_cast<uint64_t>(count) * DataTypeSize(dtype);
      DFX_ASSIGN_OR_RETURN(Tensor t,
                           Tensor::Allocate(CpuAllocator(), dtype, *shape));
      if (m.uncompressed_bytes_size() == 0 && bytes == 0) {
        out.push_back(std::move(t));
        continue;
      }
      if (m.uncompressed_bytes_size() != 1 ||
          m.uncompressed_bytes(0) != bytes) {
        return corrupt(i, "has a byte size other than its shape's");
      }
      DFX_ASSIGN_OR_RETURN(absl::string_view p, piece(0));
      if (!p.empty()) std::memcpy(t.raw_data(), p.data(), p.size());
      out.push_back(std::move(t));
    } else {
      if (m.uncompressed_bytes_size() != 1) {
        return corrupt(i, "is not one serialized tensor");
      }
      DFX_ASSIGN_OR_RETURN(absl::string_view p, piece(0));
      TensorProto proto;
      if (!proto.ParseFromArray(p.data(), static_cast<int>(p.size()))) {
        return corrupt(i, "is not a TensorProto");
      }
      DFX_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(proto));
      out.push_back(std::move(t));
    }
  }
  if (pos != raw.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Corrupt compressed element: ", raw.size() - pos,
                     " bytes left after its components"));
  }
  return out;
}

absl::StatusOr<tfdata::CompressedElement> EncodeCompressedElement(
    const std::vector<Tensor>& components) {
  tfdata::CompressedElement out;
  std::string raw;
  for (const Tensor& t : components) {
    tfdata::CompressedComponentMetadata* m = out.add_component_metadata();
    m->set_dtype(static_cast<decltype(m->dtype())>(t.dtype()));
    for (int d = 0; d < t.dims(); ++d) {
      m->mutable_tensor_shape()->add_dim()->set_size(t.dim_size(d));
    }
    if (t.dtype() == DT_STRING) {
      for (int64_t j = 0; j < t.NumElements(); ++j) {
        const std::string& s = t.data<std::string>()[j];
        raw.append(s);
        m->add_uncompressed_bytes(s.size());
      }
    } else if (DataTypeSize(t.dtype()) > 0) {
      const size_t n = t.NumElements() * DataTypeSize(t.dtype());
      raw.append(static_cast<const char*>(t.raw_data()), n);
      m->add_uncompressed_bytes(n);
    } else {
      TensorProto proto;
      t.AsProtoTensorContent(&proto);
      const std::string bytes = proto.SerializeAsString();
      raw.append(bytes);
      m->add_uncompressed_bytes(bytes.size());
    }
  }
  snappy::Compress(raw.data(), raw.size(), out.mutable_data());
  return out;
}

}  // namespace dfx::data

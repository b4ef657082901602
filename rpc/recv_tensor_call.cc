#include "rpc/recv_tensor_call.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "proto/dfx_worker_service.pb.h"
#include "rpc/grpc_util.h"
#include "rpc/rpc_metrics.h"
#include "rpc/tensor_coding.h"

namespace dfx::remote_worker_internal {
namespace {

// Chunk fetches of one tensor in flight at once: enough to keep a fast
// link busy while each response is copied into the tensor.
constexpr int kMaxChunksInFlight = 4;

const std::string& RecvTensorMethod() {
  static const auto* method =
      new std::string("/tensorflow.WorkerService/RecvTensor");
  return *method;
}

const std::string& RecvTensorChunkMethod() {
  static const auto* method =
      new std::string("/dfx.WorkerService/RecvTensorChunk");
  return *method;
}

// The host of a gRPC peer ("ipv4:10.0.0.1:5000", "ipv6:[::1]:5000", the
// brackets possibly %-escaped); empty when it has none.
std::string HostOfPeer(absl::string_view peer) {
  const size_t scheme = peer.find(':');
  const size_t port = peer.rfind(':');
  if (scheme == absl::string_view::npos || port <= scheme) return "";
  std::string host(peer.substr(scheme + 1, port - scheme - 1));
  if (absl::StartsWith(host, "%5B") && absl::EndsWith(host, "%5D")) {
    host = absl::StrCat("[", host.substr(3, host.size() - 6), "]");
  }
  return host;
}

// One RecvTensor: the first response, then (for a chunked tensor) the
// remaining chunks, several in flight, each read straight into the tensor;
// or (for a bulk tensor) its bytes from the sender's bulk server, straight
// into the tensor, with the chunks as the fallback when that fails.
class RecvTensorCall : public std::enable_shared_from_this<RecvTensorCall> {
 public:
  RecvTensorCall(Shared* shared, CallOptions* opts,
                 const RecvTensorRequest* request, RecvTensorResult* response,
                 StatusCallback done)
      : shared_(shared),
        opts_(opts),
        request_(request),
        response_(response),
        done_(std::move(done)),
        what_(absl::StrCat("RecvTensor of '", request->rendezvous_key(), "'")) {
    const absl::Duration timeout =
        opts != nullptr ? opts->timeout() : absl::ZeroDuration();
    if (timeout > absl::ZeroDuration()) deadline_ = absl::Now() + timeout;
  }

  void Start() {
    RecvTensorRequest request = *request_;
    RecvTensorTransport transport;
    transport.set_max_chunk_bytes(shared_->max_chunk_bytes);
    transport.set_accepts_bulk(shared_->BulkEnabled());
    request.mutable_transport_options()->PackFrom(transport);
    auto rpc = std::make_shared<Rpc>();
    rpc->request = SerializeToByteBuffer(request);
    {
      absl::MutexLock lock(&mu_);
      live_.push_back(rpc);
      ++in_flight_;
    }
    if (opts_ != nullptr) {
      opts_->SetCancelCallback([weak = weak_from_this()] {
        if (auto self = weak.lock()) self->Cancel();
      });
    }
    StartRpc(rpc, RecvTensorMethod(), &RecvTensorCall::OnFirst);
  }

 private:
  struct Rpc {
    // Reset (under mu_) once the RPC has ended; see Shared.
    std::shared_ptr<grpc::ClientContext> context =
        std::make_shared<grpc::ClientContext>();
    grpc::ByteBuffer request;
    grpc::ByteBuffer response;
    int64_t offset = 0;
    int64_t length = 0;
  };
  using OnRpcDone = void (RecvTensorCall::*)(const std::shared_ptr<Rpc>&,
                                             const grpc::Status&);

  // REQUIRES: `rpc` is in live_ and has not started.
  void StartRpc(const std::shared_ptr<Rpc>& rpc, const std::string& method,
                OnRpcDone on_done) {
    grpc::ClientContext* context = rpc->context.get();
    if (deadline_ != absl::InfiniteFuture()) {
      context->set_deadline(absl::ToChronoTime(deadline_));
    }
    shared_->generic.UnaryCall(
        context, method, grpc::StubOptions(), &rpc->request, &rpc->response,
        [self = shared_from_this(), rpc, on_done](grpc::Status s) {
          ((*self).*on_done)(rpc, s);
        });
  }

  void OnFirst(const std::shared_ptr<Rpc>& rpc, const grpc::Status& s) {
    absl::Status status = CallStatus(*shared_, what_, s);
    DecodedRecvTensor decoded;
    if (status.ok()) {
      status = DecodeRecvTensorResponse(
          rpc->response, request_->rendezvous_key(),
          response_->destination.IsInitialized() ? &response_->destination
                                                 : nullptr,
          &decoded);
    }
    if (status.ok() && decoded.chunks.has_value() &&
        decoded.content_bytes <= 0 && decoded.chunks->total_bytes() > 0) {
      status = absl::InternalError(
          absl::StrCat(what_, " from task ", shared_->task,
                       ": a chunked response without a first chunk"));
    }
    std::string bulk_address;
    if (status.ok() && decoded.bulk.has_value()) {
      bulk_address = decoded.bulk->address();
      if (absl::StartsWith(bulk_address, ":")) {
        // The sender listens on every address: use the one reached.
        bulk_address = HostOfPeer(rpc->context->peer()) + bulk_address;
      }
      if (decoded.bulk->max_chunk_bytes() <= 0 ||
          decoded.bulk->chunk_handle() == 0) {
        status = absl::InternalError(absl::StrCat(
            what_, " from task ", shared_->task,
            ": a bulk response without a chunk handle and size"));
      }
    }
    rpc->response.Clear();
    tensor_ = decoded.value.tensor;
    is_dead_ = decoded.value.is_dead;
    send_start_micros_ = decoded.value.send_start_micros;
    Next next;
    {
      absl::MutexLock lock(&mu_);
      if (status.ok() && decoded.chunks.has_value()) {
        handle_ = decoded.chunks->handle();
        next_offset_ = decoded.content_bytes;
        total_ = decoded.chunks->total_bytes();
        chunk_bytes_ =
            std::min<int64_t>(decoded.content_bytes, shared_->max_chunk_bytes);
      }
      if (status.ok() && decoded.bulk.has_value()) {
        handle_ = decoded.bulk->chunk_handle();
        total_ = decoded.bulk->total_bytes();
        bulk_start_ = decoded.content_bytes;
        // No chunk is fetched unless the bulk transfer fails.
        next_offset_ = total_;
        chunk_bytes_ = std::min<int64_t>(decoded.bulk->max_chunk_bytes(),
                                         shared_->max_chunk_bytes);
        if (total_ > bulk_start_) {
          // One range over one connection: 4 ranges over 4 connections
          // measured no faster (dfx_bench grpc, loopback).
          BulkClient::Fetch fetch;
          fetch.address = bulk_address;
          fetch.ticket = decoded.bulk->ticket();
          fetch.offset = static_cast<uint64_t>(bulk_start_);
          fetch.length = static_cast<uint64_t>(total_ - bulk_start_);
          fetch.dst = static_cast<char*>(tensor_.raw_data()) + bulk_start_;
          fetch.deadline = deadline_;
          fetch.cancel = bulk_cancel_;
          fetch.auth_token = shared_->bulk_auth_token;
          fetch.tls = shared_->bulk_tls;
          fetch.tls_host = shared_->bulk_tls_host;
          // On this host the bytes come through shared memory.
          fetch.local_address = decoded.bulk->local_address();
          next.bulk = std::move(fetch);
          ++in_flight_;
        }
      }
      next = RpcEndedLocked(rpc, status, std::move(next));
    }
    Continue(std::move(next));
  }

  void OnBulk(const absl::Status& s) {
    Next next;
    {
      absl::MutexLock lock(&mu_);
      absl::Status counted =
          s.ok() ? s
                 : absl::Status(s.code(), absl::StrCat(what_, " from task ",
                                                       shared_->task, ": ",
                                                       s.message()));
      if (!s.ok() && !cancelled_ && status_.ok() &&
          s.code() != absl::StatusCode::kCancelled &&
          s.code() != absl::StatusCode::kDeadlineExceeded) {
        // The sender holds the tensor for RecvTensorChunk too.
        bulk_error_ = s;
        next_offset_ = bulk_start_;
        next.fallback_from = s;
        counted = absl::OkStatus();
      }
      next = EndedLocked(counted, std::move(next));
    }
    Continue(std::move(next));
  }

  void OnChunk(const std::shared_ptr<Rpc>& rpc, const grpc::Status& s) {
    absl::Status status = CallStatus(*shared_, what_, s);
    if (status.ok()) {
      status = DecodeTensorChunk(rpc->response, request_->rendezvous_key(),
                                 rpc->offset, rpc->length, &tensor_);
    }
    rpc->response.Clear();
    Next next;
    {
      absl::MutexLock lock(&mu_);
      next = RpcEndedLocked(rpc, status, Next());
    }
    Continue(std::move(next));
  }

  // What to do once the lock is released.
  struct Next {
    // The ended RPC's context, destroyed outside the lock.
    std::shared_ptr<grpc::ClientContext> ended;
    std::vector<std::shared_ptr<grpc::ClientContext>> to_cancel;
    std::vector<std::shared_ptr<Rpc>> to_start;
    std::optional<BulkClient::Fetch> bulk;
    // Set when the chunks start because the bulk transfer failed so.
    absl::Status fallback_from;
    bool finished = false;
    absl::Status status;
  };

  // Accounts for the end of `rpc` and picks the next chunks to fetch.
  Next RpcEndedLocked(const std::shared_ptr<Rpc>& rpc,
                      const absl::Status& status, Next next)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    next.ended = std::move(rpc->context);
    live_.erase(std::find(live_.begin(), live_.end(), rpc));
    return EndedLocked(status, std::move(next));
  }

  // Accounts for the end of an RPC or bulk fetch and picks the next chunks
  // to fetch.
  Next EndedLocked(const absl::Status& status, Next next)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    --in_flight_;
    if (!status.ok() && status_.ok()) {
      status_ = status;
      if (!bulk_error_.ok()) {
        status_ = absl::Status(
            status.code(),
            absl::StrCat(status.message(), " (fetching over gRPC after the "
                         "bulk transfer failed: ", bulk_error_.message(),
                         ")"));
      }
      // The others' bytes are of no use now.
      for (const auto& other : live_) next.to_cancel.push_back(other->context);
    }
    while (status_.ok() && !cancelled_ && in_flight_ < kMaxChunksInFlight &&
           next_offset_ < total_) {
      auto chunk = std::make_shared<Rpc>();
      chunk->offset = next_offset_;
      chunk->length = std::min(chunk_bytes_, total_ - next_offset_);
      next_offset_ += chunk->length;
      ++in_flight_;
      live_.push_back(chunk);
      next.to_start.push_back(chunk);
    }
    if (in_flight_ == 0) {
      if (status_.ok() && next_offset_ < total_) {
        status_ = absl::CancelledError(
            absl::StrCat(what_, " on task ", shared_->task, " was cancelled"));
      }
      next.finished = true;
      next.status = status_;
    }
    return next;
  }

  // Outside the lock: cancels, starts, or finishes.
  void Continue(Next next) {
    for (const auto& context : next.to_cancel) context->TryCancel();
    if (!next.fallback_from.ok()) {
      if (IsBulkConnectError(next.fallback_from)) {
        shared_->DisableBulk(next.fallback_from);
      } else {
        spdlog::warn("{} (step {}) from task {}: the bulk transfer failed, "
                     "fetching over gRPC instead: {}", what_,
                     request_->step_id(), shared_->task,
                     next.fallback_from.message());
      }
    }
    // Contexts go before `done` runs (see Shared).
    next.to_cancel.clear();
    next.ended.reset();
    for (const auto& rpc : next.to_start) {
      RecvTensorChunkRequest request;
      request.set_step_id(request_->step_id());
      request.set_handle(handle_);
      request.set_offset(rpc->offset);
      request.set_length(rpc->length);
      rpc->request = SerializeToByteBuffer(request);
      StartRpc(rpc, RecvTensorChunkMethod(), &RecvTensorCall::OnChunk);
    }
    if (next.bulk.has_value()) {
      shared_->bulk->FetchAsync(
          *std::move(next.bulk),
          [self = shared_from_this()](const absl::Status& s) {
            self->OnBulk(s);
          });
    }
    if (next.finished) Finish(next.status);
  }

  void Cancel() {
    std::vector<std::shared_ptr<grpc::ClientContext>> live;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      for (const auto& rpc : live_) live.push_back(rpc->context);
    }
    for (const auto& context : live) context->TryCancel();
    bulk_cancel_->Cancel();
  }

  void Finish(const absl::Status& status) {
    if (opts_ != nullptr) opts_->ClearCancelCallback();
    if (status.ok()) {
      RecvTensorMetrics::Client().Record(
          static_cast<int64_t>(tensor_.TotalBytes()), absl::Now() - start_);
      response_->tensor = std::move(tensor_);
      response_->is_dead = is_dead_;
      response_->send_start_micros = send_start_micros_;
    }
    StatusCallback done = std::move(done_);
    done(status);
  }

  Shared* const shared_;
  CallOptions* const opts_;
  const RecvTensorRequest* const request_;
  RecvTensorResult* const response_;
  StatusCallback done_;
  const std::string what_;
  const absl::Time start_ = absl::Now();
  absl::Time deadline_ = absl::InfiniteFuture();

  // Set by OnFirst before any chunk starts; the chunks write disjoint
  // ranges of the tensor's buffer.
  Tensor tensor_;
  bool is_dead_ = false;
  int64_t send_start_micros_ = 0;
  int64_t handle_ = 0;
  const std::shared_ptr<BulkCancellation> bulk_cancel_ =
      std::make_shared<BulkCancellation>();

  absl::Mutex mu_;
  std::vector<std::shared_ptr<Rpc>> live_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  int64_t next_offset_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t chunk_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t bulk_start_ ABSL_GUARDED_BY(mu_) = 0;
  // Why the bulk transfer failed, when chunks replace it.
  absl::Status bulk_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void StartRecvTensorCall(Shared* shared, CallOptions* opts,
                         const RecvTensorRequest* request,
                         RecvTensorResult* response, StatusCallback done) {
  auto call = std::make_shared<RecvTensorCall>(shared, opts, request,
                                               response, std::move(done));
  call->Start();
}

}  // namespace dfx::remote_worker_internal

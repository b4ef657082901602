// Kernels of the staging ops (graph/ops/staging_ops.cc): every one finds
// (or makes) its area in the device's resource manager under container and
// shared_name, the node's name when shared_name is empty, as TensorFlow's
// do, so Stage and Unstage nodes of one StagingArea meet. The area is made
// with the attrs (capacity, memory_limit, and a map's dtypes) of the first
// node that reaches it. Puts, gets and peeks are asynchronous and wait in
// the area (kernels/data_flow/staging.h) without a thread; TensorFlow's
// block one for ever.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/data_flow/staging.h"
#include "kernels/kernels.h"
#include "runtime/resource_mgr.h"

namespace dfx::data_flow {
namespace {

// The attrs every staging op has, and the area they name.
struct AreaAttrs {
  std::string container;
  std::string name;
  int64_t capacity = 0;
  int64_t memory_limit = 0;
  DataTypeVector dtypes;

  absl::Status Read(OpKernelConstruction* c) {
    DFX_RETURN_IF_ERROR(c->GetAttr("container", &container));
    DFX_RETURN_IF_ERROR(c->GetAttr("shared_name", &name));
    DFX_RETURN_IF_ERROR(c->GetAttr("capacity", &capacity));
    DFX_RETURN_IF_ERROR(c->GetAttr("memory_limit", &memory_limit));
    DFX_RETURN_IF_ERROR(c->GetAttr("dtypes", &dtypes));
    if (name.empty()) name = c->def().name();
    if (container.empty()) {
      container = c->device()->resource_manager()->default_container();
    }
    return absl::OkStatus();
  }
};

absl::StatusOr<std::shared_ptr<StagingArea>> GetArea(OpKernelContext* ctx,
                                                     const AreaAttrs& a) {
  return ctx->resource_manager()->LookupOrCreate<StagingArea>(
      a.container, a.name, [&a] {
        return std::make_shared<StagingArea>(a.name, a.capacity,
                                             a.memory_limit);
      });
}

template <bool Ordered>
absl::StatusOr<std::shared_ptr<StagingMap<Ordered>>> GetMap(
    OpKernelContext* ctx, const AreaAttrs& a) {
  return ctx->resource_manager()->LookupOrCreate<StagingMap<Ordered>>(
      a.container, a.name, [&a] {
        return std::make_shared<StagingMap<Ordered>>(
            a.name, a.dtypes, a.capacity, a.memory_limit);
      });
}

// Sets the outputs from `first` on to `tuple`: InvalidArgument (TensorFlow's
// "Mismatch stage/unstage") when their number or types differ.
absl::Status SetTupleOutputs(OpKernelContext* ctx, int first,
                             const StagedTuple& tuple) {
  const int n = ctx->num_outputs() - first;
  if (static_cast<int>(tuple.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("Mismatch stage/unstage: ", tuple.size(), " vs. ", n));
  }
  for (int i = 0; i < n; ++i) {
    const DataType want = ctx->op_kernel().output_type(first + i);
    if (tuple[i].dtype() != want) {
      return absl::InvalidArgumentError(
          absl::StrCat("Mismatch stage/unstage: component ", i,
                       " was staged as ", DataTypeString(tuple[i].dtype()),
                       " but dtypes asks for ", DataTypeString(want)));
    }
    ctx->set_output(first + i, tuple[i]);
  }
  return absl::OkStatus();
}

// The callback of a Put: its status; `keep` holds the area or map until
// then.
template <typename Resource>
auto PutCallback(OpKernelContext* ctx, AsyncOpKernel::DoneCallback done,
                 std::shared_ptr<Resource> keep) {
  return [ctx, done = std::move(done), keep = std::move(keep)](absl::Status s) {
    if (!s.ok()) ctx->SetStatus(std::move(s));
    done();
  };
}

// The callback of a Get or Peek: the tuple to the outputs, or its error.
template <typename Resource>
auto GetCallback(OpKernelContext* ctx, AsyncOpKernel::DoneCallback done,
                 std::shared_ptr<Resource> keep) {
  return [ctx, done = std::move(done), keep = std::move(keep)](absl::Status s,
                                                               StagedTuple t) {
    if (s.ok()) s = SetTupleOutputs(ctx, 0, t);
    if (!s.ok()) ctx->SetStatus(std::move(s));
    done();
  };
}

class StagingKernel : public AsyncOpKernel {
 public:
  explicit StagingKernel(OpKernelConstruction* c) : AsyncOpKernel(c) {
    c->SetStatus(attrs_.Read(c));
  }

 protected:
  AreaAttrs attrs_;
};

class StageOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto area = GetArea(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, area.status(), done);
    StagedTuple tuple;
    for (int i = 0; i < ctx->num_inputs(); ++i) tuple.push_back(ctx->input(i));
    (*area)->Put(std::move(tuple), ctx->cancellation_manager(),
                 PutCallback(ctx, done, *area));
  }
};

class UnstageOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto area = GetArea(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, area.status(), done);
    (*area)->Get(ctx->cancellation_manager(), GetCallback(ctx, done, *area));
  }
};

class StagePeekOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto area = GetArea(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, area.status(), done);
    const Tensor& index = ctx->input(0);
    DFX_OP_REQUIRES_ASYNC(ctx, index.dims() == 0,
                          absl::InvalidArgumentError("index must be scalar"),
                          done);
    const int32_t i = index.scalar<int32_t>();
    DFX_OP_REQUIRES_ASYNC(
        ctx, i >= 0,
        absl::InvalidArgumentError(
            absl::StrCat("index must not be negative, got ", i,
                         " (TensorFlow's StagePeek waits for ever on it)")),
        done);
    (*area)->Peek(i, ctx->cancellation_manager(),
                  GetCallback(ctx, done, *area));
  }
};

class StageSizeOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto area = GetArea(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, area.status(), done);
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>((*area)->Size())));
    done();
  }
};

class StageClearOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto area = GetArea(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, area.status(), done);
    (*area)->Clear();
    done();
  }
};

// --- Maps

absl::StatusOr<int64_t> KeyInput(OpKernelContext* ctx, int i) {
  const Tensor& key = ctx->input(i);
  if (key.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key must hold one int64, got shape ", key.shape().DebugString()));
  }
  return key.data<int64_t>()[0];
}

std::vector<int32_t> IndicesInput(OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  return std::vector<int32_t>(t.data<int32_t>(),
                              t.data<int32_t>() + t.NumElements());
}

// MapPeek, MapUnstage, MapUnstageNoKey give one output per index.
absl::Status CheckIndexCount(OpKernelContext* ctx, int first,
                             const std::vector<int32_t>& indices) {
  const int n = ctx->num_outputs() - first;
  if (static_cast<int>(indices.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output/indices size mismatch: ", n, " vs. ", indices.size()));
  }
  return absl::OkStatus();
}

template <bool Ordered>
class MapStageOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto map = GetMap<Ordered>(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, map.status(), done);
    absl::StatusOr<int64_t> key = KeyInput(ctx, 0);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, key.status(), done);
    StagedTuple values;
    for (int i = 2; i < ctx->num_inputs(); ++i) {
      values.push_back(ctx->input(i));
    }
    (*map)->Put(*key, IndicesInput(ctx, 1), std::move(values),
                ctx->cancellation_manager(), PutCallback(ctx, done, *map));
  }
};

// MapPeek (remove false) and MapUnstage.
template <bool Ordered, bool Remove>
class MapGetOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto map = GetMap<Ordered>(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, map.status(), done);
    absl::StatusOr<int64_t> key = KeyInput(ctx, 0);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, key.status(), done);
    std::vector<int32_t> indices = IndicesInput(ctx, 1);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckIndexCount(ctx, 0, indices), done);
    (*map)->Get(*key, std::move(indices), Remove, ctx->cancellation_manager(),
                GetCallback(ctx, done, *map));
  }
};

template <bool Ordered>
class MapUnstageNoKeyOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto map = GetMap<Ordered>(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, map.status(), done);
    std::vector<int32_t> indices = IndicesInput(ctx, 0);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckIndexCount(ctx, 1, indices), done);
    (*map)->GetAny(
        std::move(indices), ctx->cancellation_manager(),
        [ctx, done, keep = *map](absl::Status s, int64_t key, StagedTuple t) {
          if (s.ok()) {
            ctx->set_output(0, Tensor::Scalar<int64_t>(key));
            s = SetTupleOutputs(ctx, 1, t);
          }
          if (!s.ok()) ctx->SetStatus(std::move(s));
          done();
        });
  }
};

// MapSize (incomplete false) and MapIncompleteSize.
template <bool Ordered, bool Incomplete>
class MapSizeOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto map = GetMap<Ordered>(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, map.status(), done);
    const int64_t size = Incomplete ? (*map)->IncompleteSize() : (*map)->Size();
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(size)));
    done();
  }
};

template <bool Ordered>
class MapClearOp : public StagingKernel {
 public:
  using StagingKernel::StagingKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto map = GetMap<Ordered>(ctx, attrs_);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, map.status(), done);
    (*map)->Clear();
    done();
  }
};

template <bool Ordered>
void RegisterMapKernels(KernelRegistry* r, const std::string& prefix) {
  RegisterKernel<MapStageOp<Ordered>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapStage")));
  RegisterKernel<MapGetOp<Ordered, false>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapPeek")));
  RegisterKernel<MapGetOp<Ordered, true>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapUnstage")));
  RegisterKernel<MapUnstageNoKeyOp<Ordered>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapUnstageNoKey")));
  RegisterKernel<MapSizeOp<Ordered, false>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapSize")));
  RegisterKernel<MapSizeOp<Ordered, true>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapIncompleteSize")));
  RegisterKernel<MapClearOp<Ordered>>(
      r, KernelDefBuilder(absl::StrCat(prefix, "MapClear")));
}

}  // namespace

void RegisterStagingKernels(KernelRegistry* r) {
  RegisterKernel<StageOp>(r, KernelDefBuilder("Stage"));
  RegisterKernel<UnstageOp>(r, KernelDefBuilder("Unstage"));
  RegisterKernel<StagePeekOp>(r, KernelDefBuilder("StagePeek"));
  RegisterKernel<StageSizeOp>(r, KernelDefBuilder("StageSize"));
  RegisterKernel<StageClearOp>(r, KernelDefBuilder("StageClear"));
  RegisterMapKernels<false>(r, "");
  RegisterMapKernels<true>(r, "Ordered");
}

}  // namespace dfx::data_flow

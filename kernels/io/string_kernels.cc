#include "kernels/io/string_kernels.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "re2/re2.h"

namespace dfx::io_internal {
namespace {

// InvalidArgument unless input i of `ctx` is a scalar.
absl::Status RequireScalar(OpKernelContext* ctx, int i, const char* name) {
  if (ctx->input(i).dims() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be a scalar, got shape ",
                   ctx->input(i).shape().DebugString()));
}

// "%s-%05d-of-%05d" of basename, shard, num_shards.
class ShardedFilenameOp : public OpKernel {
 public:
  explicit ShardedFilenameOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx, 0, "basename"));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx, 1, "shard"));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx, 2, "num_shards"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<std::string>() = absl::StrFormat(
        "%s-%05d-of-%05d", ctx->input(0).scalar<std::string>(),
        ctx->input(1).scalar<int32_t>(), ctx->input(2).scalar<int32_t>());
  }
};

// "%s-?????-of-%05d": a glob matching every shard's file name.
class ShardedFilespecOp : public OpKernel {
 public:
  explicit ShardedFilespecOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx, 0, "basename"));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx, 1, "num_shards"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<std::string>() = absl::StrFormat(
        "%s-\?\?\?\?\?-of-%05d", ctx->input(0).scalar<std::string>(),
        ctx->input(1).scalar<int32_t>());
  }
};

// Element-wise join of N string tensors; scalars broadcast, the others
// must all have one shape.
class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    TensorShape shape;  // a scalar until a non-scalar input is seen
    bool have_shape = false;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      if (in.dims() == 0) continue;
      if (!have_shape) {
        shape = in.shape();
        have_shape = true;
      } else {
        DFX_OP_REQUIRES(ctx, in.shape() == shape,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Input shapes do not match: ", shape.DebugString(),
                            " vs. ", in.shape().DebugString())));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::string* result = out->data<std::string>();
    const int64_t elements = out->NumElements();
    for (int64_t e = 0; e < elements; ++e) {
      std::string& s = result[e];
      for (int i = 0; i < n; ++i) {
        const Tensor& in = ctx->input(i);
        if (i > 0) s.append(separator_);
        s.append(in.data<std::string>()[in.dims() == 0 ? 0 : e]);
      }
    }
  }

 private:
  std::string separator_;
};

// Whether each string matches `pattern` (RE2 syntax) as a whole.
class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    absl::Status s = ctx->GetAttr("pattern", &pattern);
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      return;
    }
    re_ = std::make_unique<RE2>(pattern, RE2::Quiet);
    if (!re_->ok()) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Invalid pattern: ", pattern, ", error: ", re_->error())));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* strings = in.data<std::string>();
    bool* matches = out->data<bool>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      matches[i] = RE2::FullMatch(strings[i], *re_);
    }
  }

 private:
  std::unique_ptr<RE2> re_;
};

}  // namespace

void RegisterIoStringKernels(KernelRegistry* registry) {
  RegisterKernel<ShardedFilenameOp>(registry,
                                    KernelDefBuilder("ShardedFilename"));
  RegisterKernel<ShardedFilespecOp>(registry,
                                    KernelDefBuilder("ShardedFilespec"));
  RegisterKernel<StringJoinOp>(registry, KernelDefBuilder("StringJoin"));
  RegisterKernel<StaticRegexFullMatchOp>(
      registry, KernelDefBuilder("StaticRegexFullMatch"));
}

}  // namespace dfx::io_internal

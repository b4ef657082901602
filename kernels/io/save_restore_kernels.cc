// SaveV2, RestoreV2 and MergeV2Checkpoints over the tensor bundle of
// checkpoint/tensor_bundle.h; RestoreV2 reads a V1 checkpoint
// (checkpoint/tensor_slice_v1.h) when the prefix has no V2 index. The files are written and read by the process
// that runs the kernel, so a Saver run from a client against a cluster
// writes them on the servers, as in TensorFlow. Every prefix goes through
// the process's file policy first (runtime/file_policy.h: dfx server
// --data-dir).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_bundle.h"
#include "checkpoint/tensor_slice_v1.h"
#include "kernels/io/string_kernels.h"
#include "kernels/kernels.h"
#include "runtime/file_policy.h"

namespace dfx {
namespace {

constexpr int kFixedInputs = 3;  // prefix, tensor_names, shape_and_slices

// The input checks SaveV2 and RestoreV2 share, with TensorFlow's wording.
absl::Status ValidateInputs(bool is_save, OpKernelContext* ctx) {
  const Tensor& prefix = ctx->input(0);
  const Tensor& names = ctx->input(1);
  const Tensor& slices = ctx->input(2);
  if (prefix.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input prefix should have a single element, got ",
                     prefix.NumElements(), " instead."));
  }
  if (names.dims() != 1 || slices.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor_names and shape_and_slices should be an 1-D tensors, "
        "got ",
        names.shape().DebugString(), " and ", slices.shape().DebugString(),
        " instead."));
  }
  if (names.NumElements() != slices.NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor_names and shape_and_slices have different number of "
        "elements: ",
        names.NumElements(), " vs. ", slices.NumElements()));
  }
  if (is_save && ctx->num_inputs() != names.NumElements() + kFixedInputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("Got ", names.NumElements(), " tensor names but ",
                     ctx->num_inputs() - kFixedInputs, " tensors."));
  }
  return absl::OkStatus();
}

// dfx saves and restores whole tensors; a slice spec ("dim0 dim1 slice")
// belongs to a partitioned variable.
absl::Status RequireWholeTensor(absl::string_view op, absl::string_view name,
                                const std::string& spec) {
  if (spec.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      op, " of tensor '", name, "' with shape_and_slices '", spec,
      "': dfx saves and restores whole tensors only (partitioned variables "
      "are not supported); pass an empty string"));
}

class SaveV2Op : public OpKernel {
 public:
  explicit SaveV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(true);
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, ValidateInputs(/*is_save=*/true, ctx));
    const std::string& prefix = *ctx->input(0).data<std::string>();
    const std::string* names = ctx->input(1).data<std::string>();
    const std::string* specs = ctx->input(2).data<std::string>();
    const int num_tensors = static_cast<int>(ctx->input(1).NumElements());
    for (int i = 0; i < num_tensors; ++i) {
      DFX_OP_REQUIRES_OK(ctx, RequireWholeTensor("SaveV2", names[i], specs[i]));
    }
    absl::StatusOr<std::string> path = ResolveDataPrefix(name(), prefix);
    DFX_OP_REQUIRES_OK(ctx, path.status());
    absl::StatusOr<std::unique_ptr<BundleWriter>> writer =
        BundleWriter::Create(*std::move(path));
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    for (int i = 0; i < num_tensors; ++i) {
      DFX_OP_REQUIRES_OK(
          ctx, (*writer)->Add(names[i], ctx->input(kFixedInputs + i)));
    }
    DFX_OP_REQUIRES_OK(ctx, (*writer)->Finish());
  }
};

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(true);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& names_tensor = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, names_tensor.NumElements() == num_outputs(),
        absl::InvalidArgumentError(absl::StrCat(
            "Got ", names_tensor.NumElements(), " tensor names, but ",
            num_outputs(), " expected dtypes.")));
    DFX_OP_REQUIRES_OK(ctx, ValidateInputs(/*is_save=*/false, ctx));
    const std::string& prefix = *ctx->input(0).data<std::string>();
    const std::string* names = names_tensor.data<std::string>();
    const std::string* specs = ctx->input(2).data<std::string>();
    const int n = num_outputs();
    absl::StatusOr<std::string> path = ResolveDataPrefix(name(), prefix);
    DFX_OP_REQUIRES_OK(ctx, path.status());
    // As TensorFlow: without a V2 index, the prefix is a V1 checkpoint's
    // file pattern (what tf.compat.v1.train.Saver restores old models with).
    if (!MatchesBundleIndex(*path)) {
      RestoreV1(ctx, *path, prefix, names, specs);
      return;
    }
    for (int i = 0; i < n; ++i) {
      DFX_OP_REQUIRES_OK(ctx,
                         RequireWholeTensor("RestoreV2", names[i], specs[i]));
    }
    absl::StatusOr<std::unique_ptr<BundleReader>> reader =
        BundleReader::Open(*std::move(path));
    DFX_OP_REQUIRES_OK(ctx, reader.status());

    // Check every name and dtype first, then read in file order.
    std::vector<BundleEntryProto> entries(n);
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<BundleEntryProto> entry = (*reader)->GetEntry(names[i]);
      DFX_OP_REQUIRES_OK(ctx, entry.status());
      DFX_OP_REQUIRES(
          ctx, entry->dtype() == output_type(i),
          absl::InvalidArgumentError(absl::StrCat(
              "tensor_name = ", names[i], "; expected dtype ",
              DataTypeString(output_type(i)), " does not equal original dtype ",
              DataTypeString(entry->dtype()))));
      entries[i] = *std::move(entry);
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return std::make_pair(entries[a].shard_id(), entries[a].offset()) <
             std::make_pair(entries[b].shard_id(), entries[b].offset());
    });
    for (int i : order) {
      absl::StatusOr<TensorShape> shape =
          TensorShape::FromProto(entries[i].shape());
      DFX_OP_REQUIRES_OK(ctx, shape.status());
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(i, *shape, &out));
      DFX_OP_REQUIRES_OK(ctx, (*reader)->LookupInto(names[i], out));
    }
  }

 private:
  // Each tensor (or the slice its spec names) from the V1 checkpoint files
  // matching `path` (the resolved `prefix`), each matched file checked
  // against the file policy.
  void RestoreV1(OpKernelContext* ctx, const std::string& path,
                 const std::string& prefix, const std::string* names,
                 const std::string* specs) {
    auto check_path = [this](const std::string& p) {
      return ResolveDataPath(name(), p).status();
    };
    absl::StatusOr<std::unique_ptr<TensorSliceReaderV1>> reader =
        TensorSliceReaderV1::Open(path, /*preferred_shard=*/-1, check_path);
    DFX_OP_REQUIRES_OK(ctx, reader.status());
    for (int i = 0; i < num_outputs(); ++i) {
      absl::StatusOr<Tensor> t = RestoreTensorV1(
          reader->get(), prefix, names[i], specs[i], output_type(i));
      DFX_OP_REQUIRES_OK(ctx, t.status());
      ctx->set_output(i, *std::move(t));
    }
  }
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(true);
    ctx->SetStatus(ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    ctx->SetStatus(ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& prefixes = ctx->input(0);
    const Tensor& destination = ctx->input(1);
    DFX_OP_REQUIRES(ctx, prefixes.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input checkpoint_prefixes should be an 1-D tensor, "
                        "got ",
                        prefixes.shape().DebugString(), " instead.")));
    DFX_OP_REQUIRES(ctx, destination.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input destination_prefix should be a scalar tensor, "
                        "got ",
                        destination.shape().DebugString(), " instead.")));
    std::vector<std::string> sources;
    for (const std::string& prefix : prefixes.span<std::string>()) {
      absl::StatusOr<std::string> path = ResolveDataPrefix(name(), prefix);
      DFX_OP_REQUIRES_OK(ctx, path.status());
      sources.push_back(*std::move(path));
    }
    absl::StatusOr<std::string> merged =
        ResolveDataPrefix(name(), destination.scalar<std::string>());
    DFX_OP_REQUIRES_OK(ctx, merged.status());
    DFX_OP_REQUIRES_OK(ctx, MergeBundles(sources, *merged, delete_old_dirs_,
                                         allow_missing_files_));
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

}  // namespace

void RegisterIoKernels(KernelRegistry* registry) {
  RegisterKernel<SaveV2Op>(registry, KernelDefBuilder("SaveV2"));
  RegisterKernel<RestoreV2Op>(registry, KernelDefBuilder("RestoreV2"));
  RegisterKernel<MergeV2CheckpointsOp>(registry,
                                       KernelDefBuilder("MergeV2Checkpoints"));
  io_internal::RegisterIoStringKernels(registry);
}

}  // namespace dfx

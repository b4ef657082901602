// TensorFlow's V1 checkpoint kernels: Save and SaveSlices write one
// checkpoint file, Restore and RestoreSlice read a tensor (or a slice of
// one) from the files matching a pattern (checkpoint/tensor_slice_v1.h).
// As SaveV2 and RestoreV2, the files are those of the process running the
// kernel, and every path goes through the process's file policy
// (runtime/file_policy.h: dfx server --data-dir): the file name of Save,
// the pattern of Restore and each file it matches.
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_slice_v1.h"
#include "kernels/kernels.h"
#include "runtime/file_policy.h"

namespace dfx {
namespace {

// Save (save_slices false) and SaveSlices.
template <bool kSaveSlices>
class SaveOp : public OpKernel {
 public:
  explicit SaveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(true);
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr int kFixedInputs = kSaveSlices ? 3 : 2;
    const Tensor& filename = ctx->input(0);
    // TensorFlow's wording, missing space included.
    DFX_OP_REQUIRES(
        ctx, filename.NumElements() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Input 0 (filename) must be a string scalar; got a tensor of ",
            filename.NumElements(), "elements")));
    const Tensor& names_t = ctx->input(1);
    const int64_t n = names_t.NumElements();
    const std::string* specs = nullptr;
    if (kSaveSlices) {
      const Tensor& specs_t = ctx->input(2);
      DFX_OP_REQUIRES(ctx, specs_t.NumElements() == n,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected ", n,
                          " elements for the tensor shapes and slices but got ",
                          specs_t.NumElements())));
      specs = specs_t.data<std::string>();
    }
    DFX_OP_REQUIRES(
        ctx, ctx->num_inputs() == n + kFixedInputs,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected totally ", n + kFixedInputs,
            " inputs as input #1 (which is a string tensor of saved names) "
            "contains ",
            n, " names, but received ", ctx->num_inputs(), " inputs")));
    absl::StatusOr<std::string> path =
        ResolveDataPrefix(name(), filename.data<std::string>()[0]);
    DFX_OP_REQUIRES_OK(ctx, path.status());

    // In name order, as TensorFlow: the order of the file's metadata.
    const std::string* names = names_t.data<std::string>();
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return names[a] < names[b]; });
    TensorSliceWriterV1 writer(*std::move(path));
    for (int i : order) {
      const Tensor& data = ctx->input(kFixedInputs + i);
      TensorShape shape = data.shape();
      TensorSliceV1 slice = TensorSliceV1::Full(data.dims());
      if (kSaveSlices && !specs[i].empty()) {
        absl::StatusOr<ShapeAndSliceV1> parsed = ParseShapeAndSliceV1(specs[i]);
        DFX_OP_REQUIRES_OK(ctx, parsed.status());
        DFX_OP_REQUIRES(
            ctx, parsed->slice_shape.IsSameSize(data.shape()),
            absl::InvalidArgumentError(absl::StrCat(
                "Slice in shape_and_slice specification does not match the "
                "shape of the tensor to  save: ",
                specs[i], ", tensor: ", data.shape().DebugString())));
        shape = parsed->shape;
        slice = std::move(parsed->slice);
      }
      DFX_OP_REQUIRES_OK(ctx, writer.Add(names[i], shape, slice, data));
    }
    DFX_OP_REQUIRES_OK(ctx, writer.Finish());
  }
};

// Restore (restore_slice false) and RestoreSlice.
template <bool kRestoreSlice>
class RestoreOp : public OpKernel {
 public:
  explicit RestoreOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(true);
    ctx->SetStatus(ctx->GetAttr("preferred_shard", &preferred_shard_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& pattern = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, pattern.NumElements() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Input 0 (file_pattern) must be a string scalar; got a tensor of ",
            pattern.NumElements(), " elements")));
    // TensorFlow reads element 0 of these without checking there is one.
    DFX_OP_REQUIRES(ctx, ctx->input(1).NumElements() >= 1,
                    absl::InvalidArgumentError(
                        "Input 1 (tensor_name) must have at least 1 element"));
    std::string spec;
    if (kRestoreSlice) {
      DFX_OP_REQUIRES(
          ctx, ctx->input(2).NumElements() >= 1,
          absl::InvalidArgumentError(
              "Input 2 (shape_and_slice) must have at least 1 element"));
      spec = ctx->input(2).data<std::string>()[0];
    }
    const std::string& pattern_s = pattern.data<std::string>()[0];
    absl::StatusOr<std::string> resolved = ResolveDataPath(name(), pattern_s);
    DFX_OP_REQUIRES_OK(ctx, resolved.status());
    auto check_path = [this](const std::string& p) {
      return ResolveDataPath(name(), p).status();
    };
    absl::StatusOr<std::unique_ptr<TensorSliceReaderV1>> reader =
        TensorSliceReaderV1::Open(*resolved, preferred_shard_, check_path);
    DFX_OP_REQUIRES_OK(ctx, reader.status());
    absl::StatusOr<Tensor> t = RestoreTensorV1(
        reader->get(), pattern_s, ctx->input(1).data<std::string>()[0], spec,
        output_type(0));
    DFX_OP_REQUIRES_OK(ctx, t.status());
    ctx->set_output(0, *std::move(t));
  }

 private:
  int64_t preferred_shard_ = -1;
};

}  // namespace

void RegisterCkptV1Kernels(KernelRegistry* registry) {
  RegisterKernel<SaveOp<false>>(registry, KernelDefBuilder("Save"));
  RegisterKernel<SaveOp<true>>(registry, KernelDefBuilder("SaveSlices"));
  RegisterKernel<RestoreOp<false>>(registry, KernelDefBuilder("Restore"));
  RegisterKernel<RestoreOp<true>>(registry, KernelDefBuilder("RestoreSlice"));
}

}  // namespace dfx

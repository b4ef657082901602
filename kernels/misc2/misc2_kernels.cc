// The misc2 family's kernels (ops in graph/ops/misc2_ops.cc):
// TensorListPushBackBatch, DeviceIndex, DevicePlacementOp,
// IsTensorFloat32Enabled, CheckPinned, DisableCopyOnRead,
// IsResourceHandleRefCounting, MakeWeakResourceHandle, ImmutableConst,
// IteratorGetDevice (and ExperimentalIteratorGetDevice) and Abort. Send and
// Recv share _Send's and _Recv's kernels (kernels/sendrecv/).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/list/list_util.h"
#include "kernels/state/variable_util.h"
#include "runtime/device.h"
#include "runtime/file_policy.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor_list.h"
#include "runtime/variant.h"

namespace dfx {
namespace {

// ---------------------------------------------------------------------------
// TensorListPushBackBatch: row b of `tensor` appended to list b of the
// vector `input_handles`; the lists come out as a new vector (each a copy
// sharing the old elements, as TensorFlow copies lists it cannot reuse).

class TensorListPushBackBatchOp : public OpKernel {
 public:
  explicit TensorListPushBackBatchOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("element_dtype", &element_dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lists = ctx->input(0);
    const Tensor& input = ctx->input(1);
    DFX_OP_REQUIRES(ctx, input.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected tensor to be at least a vector, but saw "
                        "shape: ",
                        input.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, lists.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected input_handles to be a vector, but saw "
                        "shape: ",
                        lists.shape().DebugString())));
    const int64_t batch = lists.NumElements();
    DFX_OP_REQUIRES(ctx, input.dim_size(0) == batch,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected tensor.shape[0] == input_handles.size, but "
                        "saw ",
                        input.dim_size(0), " vs. ", batch)));
    TensorShape element_shape = input.shape();
    element_shape.RemoveDim(0);
    const Variant* in = lists.data<Variant>();
    std::vector<const TensorList*> batch_lists;
    batch_lists.reserve(batch);
    for (int64_t b = 0; b < batch; ++b) {
      const TensorList* l = in[b].get<TensorList>();
      DFX_OP_REQUIRES(ctx, l != nullptr,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input handle at index ", b, " is not a list. Saw: '",
                          in[b].DebugString(), "'")));
      DFX_OP_REQUIRES(
          ctx, ShapesCompatible(l->element_shape, element_shape),
          absl::InvalidArgumentError(absl::StrCat(
              "Tried to append a tensor with incompatible shape to a list at "
              "index ",
              b, ". Op element shape: ", element_shape.DebugString(),
              " list shape: ", l->element_shape.DebugString())));
      DFX_OP_REQUIRES(ctx, l->element_dtype == element_dtype_,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid data type at index ", b, "; op elements ",
                          DataTypeString(element_dtype_), " but list elements ",
                          DataTypeString(l->element_dtype))));
      DFX_OP_REQUIRES_OK(ctx, list_internal::CheckListLength(
                                  static_cast<int64_t>(l->tensors.size()) + 1));
      batch_lists.push_back(l);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({batch}), &out));
    Variant* o = out->data<Variant>();
    for (int64_t b = 0; b < batch; ++b) {
      absl::StatusOr<Tensor> row =
          list_internal::CopyRows(ctx, input, b, /*rows=*/1, /*drop_dim=*/true);
      DFX_OP_REQUIRES_OK(ctx, row.status());
      TensorList list = *batch_lists[b];
      list.tensors.push_back(*std::move(row));
      o[b] = Variant::Make<TensorList>(std::move(list));
    }
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

// ---------------------------------------------------------------------------
// Device and runtime queries.

// The index of this kernel's device type in device_names, or its length
// when absent (tf.switch_case on devices picks the default branch then).
class DeviceIndexOp : public OpKernel {
 public:
  explicit DeviceIndexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("device_names", &device_names_));
  }

  void Compute(OpKernelContext* ctx) override {
    const std::string& type = ctx->device()->device_type();
    int32_t index = static_cast<int32_t>(device_names_.size());
    for (size_t i = 0; i < device_names_.size(); ++i) {
      if (device_names_[i] == type) {
        index = static_cast<int32_t>(i);
        break;
      }
    }
    ctx->set_output(0, Tensor::Scalar<int32_t>(index));
  }

 private:
  std::vector<std::string> device_names_;
};

// The full name of the device the kernel runs on
// ("/job:localhost/replica:0/task:0/device:CPU:0").
class DevicePlacementOp : public OpKernel {
 public:
  explicit DevicePlacementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<std::string>(ctx->device()->name()));
  }
};

// TensorFlow's default (tf.config.experimental.enable_tensor_float_32_
// execution is on unless a program turns it off); dfx's CPU kernels compute
// in full float32 either way and a graph cannot change the setting.
class IsTensorFloat32EnabledOp : public OpKernel {
 public:
  explicit IsTensorFloat32EnabledOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<bool>(true));
  }
};

// The producer version of the GraphDef the node came in: graph import
// (graph/graph_def_import.cc) stamps it on the node as _graph_def_version.
// A node that did not come through import (a kernel test) answers
// TensorFlow 2.21's own version, what a graph it builds is stamped with.
class GraphDefVersionOp : public OpKernel {
 public:
  static constexpr int32_t kTensorFlowGraphDefVersion = 2474;

  explicit GraphDefVersionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    int64_t v = kTensorFlowGraphDefVersion;
    if (FindNodeAttr(ctx->def(), "_graph_def_version") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("_graph_def_version", &v));
    }
    version_ = static_cast<int32_t>(v);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(version_));
  }

 private:
  int32_t version_ = kTensorFlowGraphDefVersion;
};

// On CPU, TensorFlow's kernel only fails: pinned host memory is a CUDA
// notion.
class CheckPinnedOp : public OpKernel {
 public:
  explicit CheckPinnedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::FailedPreconditionError(
        "to check pinnedness, must be built with `--config=cuda`"));
  }
};

// ---------------------------------------------------------------------------
// Resource handles. dfx names every resource by container and name in its
// device's ResourceMgr; none is reference counted through its handles, so a
// handle is never ref-counting and its weak form is the handle itself (as
// TensorFlow answers for the handles VarHandleOp makes).

class DisableCopyOnReadOp : public OpKernel {
 public:
  explicit DisableCopyOnReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  // dfx's variables copy on write (a reader keeps its snapshot): there is no
  // copy-on-read mode to leave. The variable must exist, as in TensorFlow.
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, LookupVariableToRead(ctx, 0).status());
  }
};

class IsResourceHandleRefCountingOp : public OpKernel {
 public:
  explicit IsResourceHandleRefCountingOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0).status());
    ctx->set_output(0, Tensor::Scalar<bool>(false));
  }
};

class MakeWeakResourceHandleOp : public OpKernel {
 public:
  explicit MakeWeakResourceHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

// IteratorGetDevice: the device of the iterator the handle names, which is
// the kernel's own (HandleFromInput refuses a handle of another device).
class IteratorGetDeviceOp : public OpKernel {
 public:
  explicit IteratorGetDeviceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, handle.status());
    ResourceMgr* rm = ctx->resource_manager();
    DFX_OP_REQUIRES(ctx, rm != nullptr,
                    absl::FailedPreconditionError("no resource manager"));
    const std::string container = (*handle)->container().empty()
                                      ? rm->default_container()
                                      : (*handle)->container();
    bool found = false;
    for (const ResourceMgr::Entry& e : rm->List()) {
      if (e.container == container && e.name == (*handle)->name() &&
          e.type_name == "IteratorResource") {
        found = true;
        break;
      }
    }
    DFX_OP_REQUIRES(ctx, found,
                    absl::NotFoundError(absl::StrCat(
                        "Resource ", container, "/", (*handle)->name(),
                        "/IteratorResource does not exist.")));
    ctx->set_output(0, Tensor::Scalar<std::string>(ctx->device()->name()));
  }
};

// ---------------------------------------------------------------------------
// Abort. TensorFlow's kernel ends the process (LOG(FATAL), or exit(0) with
// exit_without_error); a dfx server runs other sessions' steps, so the step
// fails with Aborted instead and the process lives on.

class AbortOp : public OpKernel {
 public:
  explicit AbortOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("error_msg", &error_msg_));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("exit_without_error", &exit_without_error_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::AbortedError(
        exit_without_error_
            ? absl::StrCat("Abort_op asked to exit without error; ", error_msg_)
            : absl::StrCat("Abort_op intentional failure; ", error_msg_)));
  }

 private:
  std::string error_msg_;
  bool exit_without_error_ = false;
};

// ---------------------------------------------------------------------------
// ImmutableConst: the tensor is the first bytes of a file, mapped into
// memory (TensorFlow's Env::NewReadOnlyMemoryRegionFromFile). The path goes
// through the server's --data-dir (runtime/file_policy.h).

class ImmutableConstOp : public OpKernel {
 public:
  explicit ImmutableConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("memory_region_name", &region_name_));
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    if (dtype_ == DT_RESOURCE || dtype_ == DT_VARIANT) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Resource and variant dtypes are invalid for this op."));
      return;
    }
    TensorShapeProto proto;
    ctx->SetStatus(ctx->GetAttr("shape", &proto));
    if (!ctx->status().ok()) return;
    absl::StatusOr<TensorShape> shape = TensorShape::FromProto(proto);
    if (!shape.ok()) {
      ctx->SetStatus(shape.status());
      return;
    }
    shape_ = *std::move(shape);
  }

  void Compute(OpKernelContext* ctx) override {
    // TensorFlow's plain Env has no file system for the memmapped package
    // scheme (a session built around a MemmappedEnv serves it).
    DFX_OP_REQUIRES(
        ctx, !absl::StartsWith(region_name_, "memmapped_package://"),
        absl::UnimplementedError("File system scheme 'memmapped_package' not "
                                 "implemented (file: '" +
                                 region_name_ + "')"));
    absl::StatusOr<std::string> path = ResolveDataPath(name(), region_name_);
    DFX_OP_REQUIRES_OK(ctx, path.status());
    const int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      ctx->SetStatus(
          absl::Status(err == ENOENT ? absl::StatusCode::kNotFound
                                     : absl::StatusCode::kFailedPrecondition,
                       absl::StrCat(*path, "; ", std::strerror(err))));
      return;
    }
    struct stat st;
    const bool sized = ::fstat(fd, &st) == 0;
    const size_t length = sized ? static_cast<size_t>(st.st_size) : 0;
    if (!sized || !S_ISREG(st.st_mode)) {
      ::close(fd);
      ctx->SetStatus(absl::FailedPreconditionError(
          absl::StrCat(*path, " is not a regular file")));
      return;
    }
    if (dtype_ == DT_STRING) {
      ::close(fd);
      ctx->SetStatus(absl::UnimplementedError(
          "Sorry, DT_STRING is not currently supported for ImmutableConstOp."));
      return;
    }
    const size_t needed = static_cast<size_t>(shape_.num_elements()) *
                          static_cast<size_t>(DataTypeSize(dtype_));
    if (needed > length) {
      ::close(fd);
      ctx->SetStatus(absl::InternalError(
          absl::StrCat("Readonly memory region has wrong length (", length,
                       ") when allocating ", needed)));
      return;
    }
    if (length == 0) {  // mmap refuses an empty mapping; nothing to read.
      ::close(fd);
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape_, &out));
      return;
    }
    // Private and writable: a kernel that comes to own the buffer (a
    // variable assigned from it, then updated in place: EnsureUnshared
    // asks only whether the buffer is shared) writes into its own
    // copy-on-write pages, never into the file.
    void* data =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    DFX_OP_REQUIRES(ctx, data != MAP_FAILED,
                    absl::InternalError(absl::StrCat(
                        "mmap of ", *path, " failed: ", std::strerror(err))));
    // A page-aligned mapping meets every dtype's alignment. As in
    // TensorFlow, the pages are the file's: a file cut short while a
    // tensor still maps it faults on the next read (SIGBUS), so such files
    // must not change while a graph uses them.
    ctx->set_output(
        0, Tensor::FromExternal(dtype_, shape_, data, length,
                                [data, length] { ::munmap(data, length); }));
  }

 private:
  std::string region_name_;
  DataType dtype_ = DT_FLOAT;
  TensorShape shape_;
};

}  // namespace

void RegisterMisc2Kernels(KernelRegistry* r) {
  // TensorFlow 2.21's CPU types (its quantized and variant kernels aside).
  RegisterKernel<TensorListPushBackBatchOp>(
      r,
      KernelDefBuilder("TensorListPushBackBatch")
          .TypeConstraint(
              "element_dtype",
              {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_UINT8,
               DT_INT16, DT_UINT16, DT_INT32, DT_UINT32, DT_INT64, DT_UINT64,
               DT_BOOL, DT_COMPLEX64, DT_COMPLEX128, DT_STRING, DT_VARIANT}));
  RegisterKernel<DeviceIndexOp>(r, KernelDefBuilder("DeviceIndex"));
  RegisterKernel<DevicePlacementOp>(r, KernelDefBuilder("DevicePlacementOp"));
  RegisterKernel<IsTensorFloat32EnabledOp>(
      r, KernelDefBuilder("IsTensorFloat32Enabled"));
  RegisterKernel<GraphDefVersionOp>(r, KernelDefBuilder("GraphDefVersion"));
  RegisterKernel<CheckPinnedOp>(r, KernelDefBuilder("CheckPinned"));
  RegisterKernel<DisableCopyOnReadOp>(r, KernelDefBuilder("DisableCopyOnRead"));
  RegisterKernel<IsResourceHandleRefCountingOp>(
      r, KernelDefBuilder("IsResourceHandleRefCounting"));
  RegisterKernel<MakeWeakResourceHandleOp>(
      r, KernelDefBuilder("MakeWeakResourceHandle"));
  RegisterKernel<ImmutableConstOp>(r, KernelDefBuilder("ImmutableConst"));
  RegisterKernel<IteratorGetDeviceOp>(r, KernelDefBuilder("IteratorGetDevice"));
  RegisterKernel<IteratorGetDeviceOp>(
      r, KernelDefBuilder("ExperimentalIteratorGetDevice"));
  RegisterKernel<AbortOp>(r, KernelDefBuilder("Abort"));
}

}  // namespace dfx

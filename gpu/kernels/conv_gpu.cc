// Conv2D on a GPU through cuDNN (float32, float16, bfloat16; NHWC and
// NCHW; strides, dilations, groups, SAME/VALID/EXPLICIT padding),
// enqueued on the device's compute stream. TensorFlow's HWIO filter is
// transposed to cuDNN's KRSC (NHWC) or KCRS (NCHW) first, and padding that
// is not the same on both sides (SAME with an even window, say) is applied
// to a padded copy of the input, since cuDNN pads symmetrically.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "gpu/cuda_status.h"
#include "gpu/gpu_device.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/layout_gpu.h"
#include "graph/types.h"
#include "kernels/conv/conv_util.h"

namespace dfx::gpu {
namespace {

using conv_internal::ConvAttrs;
using conv_internal::ConvGeom;

// Workspace cuDNN's algorithm may use, at most.
constexpr size_t kMaxWorkspace = size_t{1} << 30;

absl::Status DnnStatus(cudnnStatus_t s, absl::string_view what) {
  if (s == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  std::string message =
      absl::StrCat(what, ": cuDNN error ", cudnnGetErrorString(s));
  if (s == CUDNN_STATUS_ALLOC_FAILED) {
    return absl::ResourceExhaustedError(std::move(message));
  }
  if (s == CUDNN_STATUS_NOT_SUPPORTED) {
    return absl::UnimplementedError(std::move(message));
  }
  return absl::InternalError(std::move(message));
}

using DnnHandle = LockedHandle<cudnnHandle_t>;

absl::StatusOr<DnnHandle*> DnnFor(const GpuDevice& device) {
  return DnnHandle::For(device, [&](cudnnHandle_t* handle) {
    return DnnStatus(cudnnCreate(handle),
                     absl::StrCat(device.name(), ": creating a cuDNN handle"));
  });
}

// RAII for cuDNN's descriptors.
template <typename D, cudnnStatus_t (*Create)(D*), cudnnStatus_t (*Destroy)(D)>
class Descriptor {
 public:
  Descriptor() { status_ = DnnStatus(Create(&d_), "creating a descriptor"); }
  ~Descriptor() {
    if (status_.ok()) Destroy(d_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  D get() const { return d_; }
  const absl::Status& status() const { return status_; }

 private:
  D d_{};
  absl::Status status_;
};
using TensorDesc = Descriptor<cudnnTensorDescriptor_t,
                              cudnnCreateTensorDescriptor,
                              cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t,
                              cudnnCreateFilterDescriptor,
                              cudnnDestroyFilterDescriptor>;
using ConvDesc = Descriptor<cudnnConvolutionDescriptor_t,
                            cudnnCreateConvolutionDescriptor,
                            cudnnDestroyConvolutionDescriptor>;

cudnnDataType_t DnnType(DataType dtype) {
  switch (dtype) {
    case DT_HALF: return CUDNN_DATA_HALF;
    case DT_BFLOAT16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

class GpuConv2DOp : public OpKernel {
 public:
  explicit GpuConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(conv_internal::ReadConvAttrs(*ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ConvGeom g;
    DFX_OP_REQUIRES_OK(ctx, Geometry(input.shape(), filter.shape(), &g));
    const bool nchw = attrs_.nchw;
    const TensorShape out_shape =
        nchw ? TensorShape({g.batch, g.out_depth, g.out_rows, g.out_cols})
             : TensorShape({g.batch, g.out_rows, g.out_cols, g.out_depth});
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    DFX_OP_REQUIRES_OK(ctx, Run(ctx, *device, input, filter, g, output));
  }

 private:
  // The convolution's geometry, TensorFlow's checks and messages.
  absl::Status Geometry(const TensorShape& input, const TensorShape& filter,
                        ConvGeom* g) const {
    DFX_RETURN_IF_ERROR(conv_internal::ConvInputAndFilter(
        attrs_, input, filter, /*depthwise=*/false, g));
    if (g->out_depth % g->groups != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output depth must be evenly divisible by number of groups: ",
          g->out_depth, " vs ", g->groups));
    }
    return conv_internal::ComputeConvOutput(attrs_, g);
  }

  absl::Status Run(OpKernelContext* ctx, GpuDevice* device,
                   const Tensor& input, const Tensor& filter,
                   const ConvGeom& g, Tensor* output) const {
    const DataType dtype = input.dtype();
    const int elem = DataTypeSize(dtype);
    const bool nchw = attrs_.nchw;
    ScopedActivateDevice activate(device->cuda_ordinal());
    DFX_RETURN_IF_ERROR(activate.status());
    cudaStream_t stream = device->compute_stream()->get();

    // HWIO -> KRSC (O,H,W,I) for NHWC, KCRS (O,I,H,W) for NCHW.
    const int64_t hwio[4] = {g.filter_rows, g.filter_cols,
                             filter.dim_size(2), g.out_depth};
    const int to_krsc[4] = {3, 0, 1, 2}, to_kcrs[4] = {3, 2, 0, 1};
    DFX_ASSIGN_OR_RETURN(Tensor dnn_filter,
                         Tensor::Allocate(ctx->allocator(), dtype,
                                          filter.shape()));
    DFX_RETURN_IF_ERROR(CudaStatus(
        LaunchPermute4(stream, filter.raw_data(), dnn_filter.raw_data(), elem,
                       hwio, nchw ? to_kcrs : to_krsc),
        "transposing the filter"));

    // Unequal padding: a zero-padded copy of the input, then none.
    const Tensor* x = &input;
    Tensor padded;
    int64_t rows = g.in_rows, cols = g.in_cols;
    int64_t pad_rows = g.pad_top, pad_cols = g.pad_left;
    if (g.pad_top != g.pad_bottom || g.pad_left != g.pad_right) {
      rows += g.pad_top + g.pad_bottom;
      cols += g.pad_left + g.pad_right;
      const TensorShape shape =
          nchw ? TensorShape({g.batch, g.in_depth, rows, cols})
               : TensorShape({g.batch, rows, cols, g.in_depth});
      DFX_ASSIGN_OR_RETURN(padded,
                           Tensor::Allocate(ctx->allocator(), dtype, shape));
      const int64_t dims[4] = {input.dim_size(0), input.dim_size(1),
                               input.dim_size(2), input.dim_size(3)};
      DFX_RETURN_IF_ERROR(CudaStatus(
          LaunchPad4(stream, input.raw_data(), padded.raw_data(), elem, dims,
                     nchw, g.pad_top, g.pad_bottom, g.pad_left, g.pad_right),
          "padding the input"));
      x = &padded;
      pad_rows = pad_cols = 0;
    }

    const cudnnTensorFormat_t format =
        nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    const cudnnDataType_t type = DnnType(dtype);
    TensorDesc x_desc, y_desc;
    FilterDesc w_desc;
    ConvDesc conv_desc;
    for (const absl::Status* s : {&x_desc.status(), &y_desc.status(),
                                  &w_desc.status(), &conv_desc.status()}) {
      DFX_RETURN_IF_ERROR(*s);
    }
    auto i32 = [](int64_t v) { return static_cast<int>(v); };
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetTensor4dDescriptor(x_desc.get(), format, type, i32(g.batch),
                                   i32(g.in_depth), i32(rows), i32(cols)),
        "the input's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetTensor4dDescriptor(y_desc.get(), format, type, i32(g.batch),
                                   i32(g.out_depth), i32(g.out_rows),
                                   i32(g.out_cols)),
        "the output's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetFilter4dDescriptor(w_desc.get(), type, format,
                                   i32(g.out_depth), i32(filter.dim_size(2)),
                                   i32(g.filter_rows), i32(g.filter_cols)),
        "the filter's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetConvolution2dDescriptor(
            conv_desc.get(), i32(pad_rows), i32(pad_cols), i32(g.stride_rows),
            i32(g.stride_cols), i32(g.dilation_rows), i32(g.dilation_cols),
            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "the convolution's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetConvolutionGroupCount(conv_desc.get(), i32(g.groups)),
        "the group count"));
    // float32: FP32 math unless TF32 is on; 16-bit types: tensor cores.
    const cudnnMathType_t math =
        dtype != DT_FLOAT ? CUDNN_TENSOR_OP_MATH
        : TensorFloat32ExecutionEnabled() ? CUDNN_DEFAULT_MATH
                                          : CUDNN_FMA_MATH;
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetConvolutionMathType(conv_desc.get(), math), "the math type"));

    DFX_ASSIGN_OR_RETURN(DnnHandle * dnn, DnnFor(*device));
    return dnn->Run([&](cudnnHandle_t h) -> absl::Status {
      DFX_RETURN_IF_ERROR(
          DnnStatus(cudnnSetStream(h, stream), "cudnnSetStream"));
      // cuDNN's heuristics, best first (asked once per geometry, dtype and
      // math: the query costs about a millisecond): the first that runs
      // within the workspace limit.
      DFX_ASSIGN_OR_RETURN(
          const std::vector<cudnnConvolutionFwdAlgoPerf_t>* perf,
          Algorithms(h, g, dtype, math, x_desc.get(), w_desc.get(),
                     conv_desc.get(), y_desc.get()));
      for (const cudnnConvolutionFwdAlgoPerf_t& candidate : *perf) {
        const cudnnConvolutionFwdAlgoPerf_t* p = &candidate;
        Tensor workspace;
        if (p->memory > 0) {
          absl::StatusOr<Tensor> ws = Tensor::Allocate(
              ctx->allocator(), DT_INT8,
              TensorShape({static_cast<int64_t>(p->memory)}));
          if (!ws.ok()) continue;  // a leaner algorithm may fit
          workspace = *std::move(ws);
        }
        DFX_RETURN_IF_ERROR(DnnStatus(
            cudnnSetConvolutionMathType(conv_desc.get(), p->mathType),
            "the algorithm's math type"));
        const float one = 1, zero = 0;
        return DnnStatus(
            cudnnConvolutionForward(
                h, &one, x_desc.get(), x->raw_data(), w_desc.get(),
                dnn_filter.raw_data(), conv_desc.get(), p->algo,
                workspace.NumElements() > 0 ? workspace.raw_data() : nullptr,
                p->memory, &zero, y_desc.get(), output->raw_data()),
            absl::StrCat("cudnnConvolutionForward (algorithm ",
                         static_cast<int>(p->algo), ")"));
      }
      return absl::UnimplementedError(absl::StrCat(
          "cuDNN has no algorithm for this convolution within ",
          kMaxWorkspace >> 20, " MiB of workspace: input ",
          ctx->input(0).shape().DebugString(), ", filter ",
          ctx->input(1).shape().DebugString()));
    });
  }

  // cuDNN's usable algorithms for a convolution, best first, from its
  // heuristics the first time and from the cache after.
  absl::StatusOr<const std::vector<cudnnConvolutionFwdAlgoPerf_t>*> Algorithms(
      cudnnHandle_t h, const ConvGeom& g, DataType dtype, cudnnMathType_t math,
      cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
      cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y) const {
    const AlgoKey key{g, dtype, math};
    absl::MutexLock lock(&mu_);
    auto it = algorithms_.find(key);
    if (it != algorithms_.end()) return &it->second;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnGetConvolutionForwardAlgorithm_v7(
            h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
        "choosing an algorithm"));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> usable;
    for (int i = 0; i < found; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS &&
          perf[i].memory <= kMaxWorkspace) {
        usable.push_back(perf[i]);
      }
    }
    // Node-based: the map's values stay where they are as it grows.
    return &algorithms_.emplace(key, std::move(usable)).first->second;
  }

  struct AlgoKey {
    ConvGeom geom;
    DataType dtype;
    cudnnMathType_t math;
    bool operator==(const AlgoKey& o) const {
      return geom == o.geom && dtype == o.dtype && math == o.math;
    }
    template <typename H>
    friend H AbslHashValue(H h, const AlgoKey& k) {
      return H::combine(std::move(h), k.geom, static_cast<int>(k.dtype),
                        static_cast<int>(k.math));
    }
  };

  ConvAttrs attrs_;
  mutable absl::Mutex mu_;
  mutable absl::node_hash_map<AlgoKey, std::vector<cudnnConvolutionFwdAlgoPerf_t>>
      algorithms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterGpuConvKernels(KernelRegistry* registry) {
  RegisterKernel<GpuConv2DOp>(
      registry, KernelDefBuilder("Conv2D").Device("GPU").TypeConstraint(
                    "T", {DT_FLOAT, DT_HALF, DT_BFLOAT16}));
}

}  // namespace dfx::gpu

// Conv2D and its two gradients on a GPU through cuDNN (float32, float16,
// bfloat16; NHWC and NCHW; strides, dilations, groups, SAME/VALID/EXPLICIT
// padding), enqueued on the device's compute stream; the depthwise
// convolutions and their gradients as the grouped convolutions they are
// (groups = input depth, TensorFlow's [H, W, C, M] filter being the HWIO
// filter [H, W, 1, C * M] with output channel c * M + m). TensorFlow's HWIO
// filter is transposed to cuDNN's KRSC (NHWC) or KCRS (NCHW) first, and padding
// that is not the same on both sides (SAME with an even window, say) is applied
// to a padded copy of the input, since cuDNN pads symmetrically.
#include <cudnn.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "gpu/cuda_status.h"
#include "gpu/gpu_device.h"
#include "gpu/kernels/depthwise_gpu.h"
#include "gpu/kernels/dtype_dispatch.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/layout_gpu.h"
#include "graph/types.h"
#include "kernels/array/array_util.h"
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

enum class ConvPass { kForward, kBackwardData, kBackwardFilter };

// cuDNN's algorithm-performance record for each pass.
template <ConvPass kPass>
struct PassTraits;
template <>
struct PassTraits<ConvPass::kForward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
};
template <>
struct PassTraits<ConvPass::kBackwardData> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
};
template <>
struct PassTraits<ConvPass::kBackwardFilter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
};

// The descriptors of one convolution: x (the input, or its padded copy),
// y (the output or its gradient), w (the filter in cuDNN's layout).
struct DnnProblem {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on cuDNN, and the
// three DepthwiseConv2dNative* ops when `depthwise` (the same passes with
// groups = in_depth; TensorFlow's depthwise kernels take no dilations and
// equal row and column strides, and their input_sizes has 4 values).
// TensorFlow's HWIO filter is cuDNN's KRSC (NHWC) or KCRS (NCHW) after a
// transpose; padding that differs between the two sides is applied to a
// padded copy of the input (forward, filter gradient) or taken off a
// padded input gradient (data gradient), since cuDNN pads both sides
// alike.
template <ConvPass kPass>
class GpuConvOp : public OpKernel {
 public:
  GpuConvOp(OpKernelConstruction* ctx, bool depthwise)
      : OpKernel(ctx),
        depthwise_(depthwise),
        direct_(depthwise && DirectDepthwiseRequested()) {
    ctx->SetStatus(conv_internal::ReadConvAttrs(*ctx, &attrs_));
    if (!ctx->status().ok() || !depthwise_) return;
    // TensorFlow's depthwise kernels (CPU and GPU alike) and dfx's CPU
    // kernel (kernels/conv/convolution_ops.cc), with their messages.
    if (attrs_.stride_rows != attrs_.stride_cols) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Current implementation only supports equal length strides in "
          "the row and column dimensions."));
    } else if (attrs_.dilation_rows != 1 || attrs_.dilation_cols != 1) {
      ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
          "Current kernel implementation does not support dilations, "
          "received [1 ",
          attrs_.dilation_rows, " ", attrs_.dilation_cols, " 1]")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    // The activation's shape, the filter's, and the output's (forward) or
    // the gradient's (backward).
    TensorShape input_shape, filter_shape;
    if (kPass == ConvPass::kForward) {
      input_shape = ctx->input(0).shape();
      filter_shape = ctx->input(1).shape();
    } else if (kPass == ConvPass::kBackwardData) {
      DFX_OP_REQUIRES_OK(ctx, SizesShape(ctx->input(0), "input_sizes",
                                         &ctx->input(2), &ctx->input(1),
                                         &input_shape));
      filter_shape = ctx->input(1).shape();
    } else {
      input_shape = ctx->input(0).shape();
      DFX_OP_REQUIRES_OK(ctx, SizesShape(ctx->input(1), "filter_sizes",
                                         nullptr, nullptr, &filter_shape));
    }
    ConvGeom g;
    DFX_OP_REQUIRES_OK(ctx, Geometry(input_shape, filter_shape, &g));
    const bool nchw = attrs_.nchw;
    const TensorShape out_shape =
        nchw ? TensorShape({g.batch, g.out_depth, g.out_rows, g.out_cols})
             : TensorShape({g.batch, g.out_rows, g.out_cols, g.out_depth});
    if (kPass != ConvPass::kForward) {
      const Tensor& dy = ctx->input(2);
      DFX_OP_REQUIRES(
          ctx, dy.shape() == out_shape,
          absl::InvalidArgumentError(absl::StrCat(
              type_string(), ": out_backprop has shape ",
              dy.shape().DebugString(), ", but the input ",
              input_shape.DebugString(), " and the filter ",
              filter_shape.DebugString(), " give an output of shape ",
              out_shape.DebugString())));
    }
    const TensorShape& result_shape =
        kPass == ConvPass::kForward        ? out_shape
        : kPass == ConvPass::kBackwardData ? input_shape
                                           : filter_shape;
    Tensor* result = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, result_shape, &result));
    if (result->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    if (out_shape.num_elements() == 0 || g.in_depth == 0) {
      // An empty sum: zeros (a gradient with nothing flowing into it).
      DFX_OP_REQUIRES_OK(
          ctx, CudaStatus(cudaMemsetAsync(result->raw_data(), 0,
                                          result->TotalBytes(),
                                          launch.stream()),
                          "zeroing the convolution's result"));
      return;
    }
    // A depthwise convolution cuDNN does not serve (float64; no usable
    // algorithm or CUDNN_STATUS_NOT_SUPPORTED, Unimplemented; another
    // cuDNN error for a grouping it rejects) runs on the direct kernels,
    // and so does every one with DFX_GPU_DEPTHWISE_DIRECT=1. Running out
    // of memory is reported as it is; so is cuDNN's error when the direct
    // kernels fail too.
    if (depthwise_ && (direct_ || output_type(0) == DT_DOUBLE)) {
      DFX_OP_REQUIRES_OK(ctx, RunDirect(*ctx, launch.stream(), g, result));
      return;
    }
    absl::Status status = Run(ctx, *device, launch.stream(), g, result);
    if (depthwise_ && !status.ok() && !absl::IsResourceExhausted(status) &&
        RunDirect(*ctx, launch.stream(), g, result).ok()) {
      status = absl::OkStatus();
    }
    DFX_OP_REQUIRES_OK(ctx, status);
  }

 private:
  // A shape given as a host int32/int64 vector (input_sizes,
  // filter_sizes). Conv2DBackpropInput also takes [rows, cols], the batch
  // from out_backprop and the depth from the filter.
  absl::Status SizesShape(const Tensor& sizes, const char* what,
                          const Tensor* out_backprop, const Tensor* filter,
                          TensorShape* shape) const {
    if (sizes.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), ": ", what, " input must be 1-dim, not ",
          sizes.dims()));
    }
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         array_internal::ReadInts(sizes));
    if (!depthwise_ && out_backprop != nullptr && dims.size() == 2 &&
        out_backprop->dims() == 4 && filter->dims() == 4) {
      const int64_t rows = dims[0], cols = dims[1];
      dims = attrs_.nchw ? std::vector<int64_t>{out_backprop->dim_size(0),
                                                filter->dim_size(2), rows,
                                                cols}
                         : std::vector<int64_t>{out_backprop->dim_size(0),
                                                rows, cols,
                                                filter->dim_size(2)};
    }
    if (dims.size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), " requires ", what, " to contain 4 values",
          !depthwise_ && out_backprop != nullptr ? " or 2 values" : "",
          ", but got: ", dims.size()));
    }
    DFX_ASSIGN_OR_RETURN(*shape, TensorShape::Build(dims));
    return absl::OkStatus();
  }

  // The convolution's geometry, TensorFlow's checks and messages.
  absl::Status Geometry(const TensorShape& input, const TensorShape& filter,
                        ConvGeom* g) const {
    DFX_RETURN_IF_ERROR(conv_internal::ConvInputAndFilter(attrs_, input, filter,
                                                          depthwise_, g));
    if (g->out_depth % g->groups != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output depth must be evenly divisible by number of groups: ",
          g->out_depth, " vs ", g->groups));
    }
    return conv_internal::ComputeConvOutput(attrs_, g);
  }

  // The descriptors for `g` with an input of rows x cols and symmetric
  // padding pad_rows, pad_cols.
  absl::Status Describe(const ConvGeom& g, DataType dtype, int64_t rows,
                        int64_t cols, int64_t pad_rows, int64_t pad_cols,
                        int64_t filter_in_depth, DnnProblem* p) const {
    for (const absl::Status* s : {&p->x.status(), &p->y.status(),
                                  &p->w.status(), &p->conv.status()}) {
      DFX_RETURN_IF_ERROR(*s);
    }
    const cudnnTensorFormat_t format =
        attrs_.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    const cudnnDataType_t type = DnnType(dtype);
    auto i32 = [](int64_t v) { return static_cast<int>(v); };
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetTensor4dDescriptor(p->x.get(), format, type, i32(g.batch),
                                   i32(g.in_depth), i32(rows), i32(cols)),
        "the input's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetTensor4dDescriptor(p->y.get(), format, type, i32(g.batch),
                                   i32(g.out_depth), i32(g.out_rows),
                                   i32(g.out_cols)),
        "the output's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetFilter4dDescriptor(p->w.get(), type, format, i32(g.out_depth),
                                   i32(filter_in_depth), i32(g.filter_rows),
                                   i32(g.filter_cols)),
        "the filter's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetConvolution2dDescriptor(
            p->conv.get(), i32(pad_rows), i32(pad_cols), i32(g.stride_rows),
            i32(g.stride_cols), i32(g.dilation_rows), i32(g.dilation_cols),
            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "the convolution's descriptor"));
    DFX_RETURN_IF_ERROR(DnnStatus(
        cudnnSetConvolutionGroupCount(p->conv.get(), i32(g.groups)),
        "the group count"));
    // float32: FP32 math unless TF32 is on; 16-bit types: tensor cores.
    p->math = dtype != DT_FLOAT ? CUDNN_TENSOR_OP_MATH
              : TensorFloat32ExecutionEnabled() ? CUDNN_DEFAULT_MATH
                                                : CUDNN_FMA_MATH;
    return DnnStatus(cudnnSetConvolutionMathType(p->conv.get(), p->math),
                     "the math type");
  }

  static bool DirectDepthwiseRequested() {
    const char* v = std::getenv("DFX_GPU_DEPTHWISE_DIRECT");
    return v != nullptr && std::string(v) == "1";
  }

  // The depthwise pass on the direct kernels (gpu/kernels/depthwise_gpu.h).
  absl::Status RunDirect(const OpKernelContext& ctx, cudaStream_t stream,
                         const ConvGeom& g, Tensor* result) const {
    DepthwiseShape s;
    s.batch = g.batch;
    s.in_rows = g.in_rows;
    s.in_cols = g.in_cols;
    s.in_depth = g.in_depth;
    s.multiplier = g.in_depth == 0 ? 0 : g.out_depth / g.in_depth;
    s.filter_rows = g.filter_rows;
    s.filter_cols = g.filter_cols;
    s.out_rows = g.out_rows;
    s.out_cols = g.out_cols;
    s.stride_rows = g.stride_rows;
    s.stride_cols = g.stride_cols;
    s.pad_top = g.pad_top;
    s.pad_left = g.pad_left;
    s.nchw = attrs_.nchw;
    const cudaError_t e = ByFloatType(output_type(0), [&](auto t) {
      using T = decltype(t);
      auto in = [&](int i) {
        return static_cast<const T*>(ctx.input(i).raw_data());
      };
      T* out = static_cast<T*>(result->raw_data());
      if constexpr (kPass == ConvPass::kForward) {
        return LaunchDepthwiseForward(stream, s, in(0), in(1), out);
      } else if constexpr (kPass == ConvPass::kBackwardData) {
        return LaunchDepthwiseBackpropInput(stream, s, in(1), in(2), out);
      } else {
        return LaunchDepthwiseBackpropFilter(stream, s, in(0), in(2), out);
      }
    });
    return CudaStatus(e, absl::StrCat(type_string(),
                                      " on the direct "
                                      "depthwise kernel"));
  }

  absl::Status Run(OpKernelContext* ctx, GpuDevice* device,
                   cudaStream_t stream, const ConvGeom& g,
                   Tensor* result) const {
    const DataType dtype = output_type(0);
    const int elem = DataTypeSize(dtype);
    const bool nchw = attrs_.nchw;
    const int64_t filter_in_depth = g.in_depth_per_group();
    // HWIO <-> KRSC (O,H,W,I) for NHWC, KCRS (O,I,H,W) for NCHW.
    const int64_t hwio[4] = {g.filter_rows, g.filter_cols, filter_in_depth,
                             g.out_depth};
    const int to_krsc[4] = {3, 0, 1, 2}, to_kcrs[4] = {3, 2, 0, 1};
    const TensorShape filter_shape(
        {g.filter_rows, g.filter_cols, filter_in_depth, g.out_depth});
    DFX_ASSIGN_OR_RETURN(Tensor dnn_filter,
                         Tensor::Allocate(ctx->allocator(), dtype,
                                          filter_shape));
    if (kPass != ConvPass::kBackwardFilter) {
      DFX_RETURN_IF_ERROR(CudaStatus(
          LaunchPermute4(stream, ctx->input(1).raw_data(),
                         dnn_filter.raw_data(), elem, hwio,
                         nchw ? to_kcrs : to_krsc),
          "transposing the filter"));
    }

    // Unequal padding: cuDNN works on the padded input (or its gradient).
    const bool uneven = g.pad_top != g.pad_bottom || g.pad_left != g.pad_right;
    int64_t rows = g.in_rows, cols = g.in_cols;
    int64_t pad_rows = g.pad_top, pad_cols = g.pad_left;
    int64_t act_dims[4];  // the activation's dims, in its layout
    if (nchw) {
      act_dims[0] = g.batch;
      act_dims[1] = g.in_depth;
      act_dims[2] = g.in_rows;
      act_dims[3] = g.in_cols;
    } else {
      act_dims[0] = g.batch;
      act_dims[1] = g.in_rows;
      act_dims[2] = g.in_cols;
      act_dims[3] = g.in_depth;
    }
    Tensor padded;
    if (uneven) {
      rows += g.pad_top + g.pad_bottom;
      cols += g.pad_left + g.pad_right;
      pad_rows = pad_cols = 0;
      const TensorShape shape =
          nchw ? TensorShape({g.batch, g.in_depth, rows, cols})
               : TensorShape({g.batch, rows, cols, g.in_depth});
      DFX_ASSIGN_OR_RETURN(padded,
                           Tensor::Allocate(ctx->allocator(), dtype, shape));
      if (kPass != ConvPass::kBackwardData) {
        DFX_RETURN_IF_ERROR(CudaStatus(
            LaunchPad4(stream, ctx->input(0).raw_data(), padded.raw_data(),
                       elem, act_dims, nchw, g.pad_top, g.pad_bottom,
                       g.pad_left, g.pad_right),
            "padding the input"));
      }
    }
    DnnProblem p;
    DFX_RETURN_IF_ERROR(Describe(g, dtype, rows, cols, pad_rows, pad_cols,
                                 filter_in_depth, &p));
    // The activation cuDNN reads (forward, filter gradient) or writes
    // (data gradient).
    void* x = uneven ? padded.raw_data()
              : kPass == ConvPass::kBackwardData
                  ? result->raw_data()
                  : const_cast<void*>(ctx->input(0).raw_data());
    void* w = dnn_filter.raw_data();
    void* y = kPass == ConvPass::kForward
                  ? result->raw_data()
                  : const_cast<void*>(ctx->input(2).raw_data());

    DFX_ASSIGN_OR_RETURN(DnnHandle * dnn, DnnFor(*device));
    DFX_RETURN_IF_ERROR(dnn->Run([&](cudnnHandle_t h) -> absl::Status {
      DFX_RETURN_IF_ERROR(
          DnnStatus(cudnnSetStream(h, stream), "cudnnSetStream"));
      // cuDNN's heuristics, best first (asked once per geometry, dtype and
      // math: the query costs about a millisecond): the first that runs
      // within the workspace limit.
      DFX_ASSIGN_OR_RETURN(const std::vector<Perf>* perf,
                           Algorithms(h, g, dtype, p));
      for (const Perf& candidate : *perf) {
        Tensor workspace;
        if (candidate.memory > 0) {
          absl::StatusOr<Tensor> ws = Tensor::Allocate(
              ctx->allocator(), DT_INT8,
              TensorShape({static_cast<int64_t>(candidate.memory)}));
          if (!ws.ok()) continue;  // a leaner algorithm may fit
          workspace = *std::move(ws);
        }
        DFX_RETURN_IF_ERROR(DnnStatus(
            cudnnSetConvolutionMathType(p.conv.get(), candidate.mathType),
            "the algorithm's math type"));
        void* ws = workspace.NumElements() > 0 ? workspace.raw_data()
                                               : nullptr;
        const float one = 1, zero = 0;
        const std::string what = absl::StrCat(
            type_string(), " on cuDNN (algorithm ",
            static_cast<int>(candidate.algo), ")");
        if constexpr (kPass == ConvPass::kForward) {
          return DnnStatus(
              cudnnConvolutionForward(h, &one, p.x.get(), x, p.w.get(), w,
                                      p.conv.get(), candidate.algo, ws,
                                      candidate.memory, &zero, p.y.get(), y),
              what);
        } else if constexpr (kPass == ConvPass::kBackwardData) {
          return DnnStatus(
              cudnnConvolutionBackwardData(
                  h, &one, p.w.get(), w, p.y.get(), y, p.conv.get(),
                  candidate.algo, ws, candidate.memory, &zero, p.x.get(), x),
              what);
        } else {
          return DnnStatus(
              cudnnConvolutionBackwardFilter(
                  h, &one, p.x.get(), x, p.y.get(), y, p.conv.get(),
                  candidate.algo, ws, candidate.memory, &zero, p.w.get(), w),
              what);
        }
      }
      return absl::UnimplementedError(absl::StrCat(
          "cuDNN has no algorithm for this ", type_string(), " within ",
          kMaxWorkspace >> 20, " MiB of workspace"));
    }));

    if (kPass == ConvPass::kBackwardData && uneven) {
      // The gradient of the real input: the padded gradient's interior.
      const int64_t row_off = g.pad_top, col_off = g.pad_left;
      int64_t strides[4];  // the padded tensor's strides, in act_dims order
      const int64_t pd[4] = {
          g.batch, nchw ? g.in_depth : rows, nchw ? rows : cols,
          nchw ? cols : g.in_depth};
      strides[3] = 1;
      for (int k = 2; k >= 0; --k) strides[k] = strides[k + 1] * pd[k + 1];
      const int64_t offset =
          nchw ? row_off * strides[2] + col_off * strides[3]
               : row_off * strides[1] + col_off * strides[2];
      DFX_RETURN_IF_ERROR(CudaStatus(
          LaunchStridedCopy(stream,
                            static_cast<const char*>(padded.raw_data()) +
                                offset * elem,
                            result->raw_data(), elem, 4, act_dims, strides),
          "cropping the input gradient"));
    }
    if (kPass == ConvPass::kBackwardFilter) {
      // KRSC [O,H,W,I] or KCRS [O,I,H,W] back to HWIO.
      const int64_t krsc[4] = {g.out_depth, g.filter_rows, g.filter_cols,
                               filter_in_depth};
      const int64_t kcrs[4] = {g.out_depth, filter_in_depth, g.filter_rows,
                               g.filter_cols};
      const int from_krsc[4] = {1, 2, 3, 0}, from_kcrs[4] = {2, 3, 1, 0};
      DFX_RETURN_IF_ERROR(CudaStatus(
          LaunchPermute4(stream, dnn_filter.raw_data(), result->raw_data(),
                         elem, nchw ? kcrs : krsc,
                         nchw ? from_kcrs : from_krsc),
          "transposing the filter gradient"));
    }
    return absl::OkStatus();
  }

  using Perf = typename PassTraits<kPass>::Perf;

  // cuDNN's usable algorithms for a convolution, best first, from its
  // heuristics the first time and from the cache after.
  absl::StatusOr<const std::vector<Perf>*> Algorithms(
      cudnnHandle_t h, const ConvGeom& g, DataType dtype,
      const DnnProblem& p) const {
    const AlgoKey key{g, dtype, p.math};
    absl::MutexLock lock(&mu_);
    auto it = algorithms_.find(key);
    if (it != algorithms_.end()) return &it->second;
    Perf perf[PassTraits<kPass>::kCount];
    int found = 0;
    cudnnStatus_t s;
    if constexpr (kPass == ConvPass::kForward) {
      s = cudnnGetConvolutionForwardAlgorithm_v7(
          h, p.x.get(), p.w.get(), p.conv.get(), p.y.get(),
          PassTraits<kPass>::kCount, &found, perf);
    } else if constexpr (kPass == ConvPass::kBackwardData) {
      s = cudnnGetConvolutionBackwardDataAlgorithm_v7(
          h, p.w.get(), p.y.get(), p.conv.get(), p.x.get(),
          PassTraits<kPass>::kCount, &found, perf);
    } else {
      s = cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          h, p.x.get(), p.y.get(), p.conv.get(), p.w.get(),
          PassTraits<kPass>::kCount, &found, perf);
    }
    DFX_RETURN_IF_ERROR(DnnStatus(s, "choosing an algorithm"));
    std::vector<Perf> usable;
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

  const bool depthwise_;
  const bool direct_;  // depthwise on the direct kernels only
  ConvAttrs attrs_;
  mutable absl::Mutex mu_;
  mutable absl::node_hash_map<AlgoKey, std::vector<Perf>> algorithms_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterGpuConvKernels(KernelRegistry* registry) {
  for (const bool depthwise : {false, true}) {
    // float64 depthwise convolutions run on the direct kernels only.
    const DataTypeVector types =
        depthwise ? DataTypeVector{DT_FLOAT, DT_HALF, DT_BFLOAT16, DT_DOUBLE}
                  : DataTypeVector{DT_FLOAT, DT_HALF, DT_BFLOAT16};
    const std::string prefix = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
    RegisterWith<GpuConvOp<ConvPass::kForward>>(
        registry,
        KernelDefBuilder(prefix).Device("GPU").TypeConstraint("T", types),
        depthwise);
    RegisterWith<GpuConvOp<ConvPass::kBackwardData>>(
        registry,
        KernelDefBuilder(prefix + "BackpropInput")
            .Device("GPU")
            .TypeConstraint("T", types)
            .HostMemory("input_sizes"),
        depthwise);
    RegisterWith<GpuConvOp<ConvPass::kBackwardFilter>>(
        registry,
        KernelDefBuilder(prefix + "BackpropFilter")
            .Device("GPU")
            .TypeConstraint("T", types)
            .HostMemory("filter_sizes"),
        depthwise);
  }
}

}  // namespace dfx::gpu

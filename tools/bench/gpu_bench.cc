#include "tools/bench/gpu_bench.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#if DFX_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <utility>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gpu/gpu_device.h"
#include "gpu/kernels/gpu_kernels.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "rpc/bulk_transport.h"
#include "rpc/held_tensors.h"
#include "runtime/more_devices.h"
#if DFX_HAVE_CUDNN
#include <cudnn.h>
#endif
#endif

namespace dfx {
namespace {

int GpuUsage() {
  std::fprintf(stderr, "usage: dfx_bench gpu [--sizes 4096,8192] [--iters N]\n");
  return 2;
}

#if DFX_HAVE_CUDA

bool Ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("gpu bench: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

bool Ok(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return true;
  std::printf("gpu bench: %s: %s\n", what, cublasGetStatusString(s));
  return false;
}

// Seconds `iters` calls of the kernel for `node` on `inputs` take, as the
// executor makes them (three calls first to warm up); each enqueues and
// returns, so the clock stops when the compute stream is done. Negative
// after printing the error.
double TimeKernel(gpu::GpuDevice* gpu, NodeDef node,
                  const std::vector<Tensor>& inputs, int iters) {
  auto op = OpRegistry::Global()->LookUpOrError(node.op());
  if (!op.ok()) return -1;
  AddDefaultAttrs((*op)->op_def, &node);
  auto kernel = StandardKernelRegistry()->CreateKernel(node, (*op)->op_def, gpu);
  if (!kernel.ok()) {
    std::printf("gpu bench: %s\n", kernel.status().ToString().c_str());
    return -1;
  }
  auto run = [&]() {
    OpKernelContext::Params params;
    params.op_kernel = kernel->get();
    params.device = gpu;
    params.inputs = inputs;
    OpKernelContext ctx(&params);
    (*kernel)->Compute(&ctx);
    if (!ctx.status().ok()) {
      std::printf("gpu bench: %s\n", ctx.status().ToString().c_str());
      return false;
    }
    return true;
  };
  for (int i = 0; i < 3; ++i) {
    if (!run()) return -1;
  }
  if (!gpu->compute_stream()->BlockHostUntilDone(absl::Minutes(1)).ok()) {
    return -1;
  }
  const absl::Time start = absl::Now();
  for (int i = 0; i < iters; ++i) {
    if (!run()) return -1;
  }
  const absl::Status done =
      gpu->compute_stream()->BlockHostUntilDone(absl::Minutes(5));
  if (!done.ok()) {
    std::printf("gpu bench: %s\n", done.ToString().c_str());
    return -1;
  }
  return absl::ToDoubleSeconds(absl::Now() - start);
}

// A host tensor of `n`x`n` values in [-1, 1) (bfloat16: the float's top
// half).
Tensor HostMatrix(DataType dtype, int64_t n, uint32_t seed) {
  Tensor t(dtype, TensorShape({n, n}));
  uint32_t x = seed;
  for (int64_t i = 0; i < n * n; ++i) {
    x = x * 1664525u + 1013904223u;
    const float v = static_cast<float>(x >> 8) / float(1 << 23) - 1.0f;
    if (dtype == DT_FLOAT) {
      t.data<float>()[i] = v;
    } else {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const uint16_t top = static_cast<uint16_t>(bits >> 16);
      std::memcpy(static_cast<char*>(t.raw_data()) + 2 * i, &top, 2);
    }
  }
  return t;
}

// dfx's MatMul kernel, called as the executor calls it (each call
// allocates its output and enqueues), against cuBLAS enqueued back to back
// on the same device buffers.
bool BenchMatMul(gpu::GpuDevice* gpu, DataType dtype, bool tf32, int64_t n,
                 int iters) {
  gpu::SetTensorFloat32Execution(tf32);
  auto a = gpu->CopyFromHost(HostMatrix(dtype, n, 1));
  auto b = gpu->CopyFromHost(HostMatrix(dtype, n, 2));
  if (!a.ok() || !b.ok()) {
    std::printf("gpu bench: %s\n", (a.ok() ? b : a).status().ToString().c_str());
    return false;
  }
  NodeDef node;
  node.set_name("mm");
  node.set_op("MatMul");
  (*node.mutable_attr())["T"].set_type(dtype);
  const double flops = 2.0 * n * n * n * iters;
  const double seconds = TimeKernel(gpu, node, {*a, *b}, iters);
  if (seconds < 0) return false;
  const double dfx_tflops = flops / seconds / 1e12;

  // cuBLAS, enqueued back to back on the same stream, one wait at the end.
  gpu::ScopedActivateDevice activate(gpu->cuda_ordinal());
  cudaStream_t stream = gpu->compute_stream()->get();
  cublasHandle_t handle = nullptr;
  void* c = nullptr;
  const size_t elem = dtype == DT_FLOAT ? 4 : 2;
  if (!Ok(cublasCreate(&handle), "cublasCreate") ||
      !Ok(cublasSetStream(handle, stream), "cublasSetStream") ||
      !Ok(cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                         : CUBLAS_DEFAULT_MATH),
          "cublasSetMathMode") ||
      !Ok(cudaMalloc(&c, n * n * elem), "cudaMalloc")) {
    return false;
  }
  auto gemm = [&]() {
    const float one = 1, zero = 0;
    const int m = static_cast<int>(n);
    if (dtype == DT_FLOAT) {
      return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one,
                         static_cast<const float*>(b->raw_data()), m,
                         static_cast<const float*>(a->raw_data()), m, &zero,
                         static_cast<float*>(c), m);
    }
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one,
                        b->raw_data(), CUDA_R_16BF, m, a->raw_data(),
                        CUDA_R_16BF, m, &zero, c, CUDA_R_16BF, m,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  bool ok = true;
  for (int i = 0; i < 3 && ok; ++i) ok = Ok(gemm(), "cuBLAS GEMM");
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const absl::Time start = absl::Now();
  for (int i = 0; i < iters && ok; ++i) ok = Ok(gemm(), "cuBLAS GEMM");
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double direct_tflops =
      flops / absl::ToDoubleSeconds(absl::Now() - start) / 1e12;
  cudaFree(c);
  cublasDestroy(handle);
  if (!ok) return false;
  std::printf("MatMul %lld %s: dfx %.1f TFLOP/s, cuBLAS %.1f TFLOP/s, "
              "ratio %.3f (goal >= 0.9)\n",
              static_cast<long long>(n),
              dtype == DT_FLOAT ? (tf32 ? "float32 TF32" : "float32")
                                : "bfloat16",
              dfx_tflops, direct_tflops, dfx_tflops / direct_tflops);
  return true;
}

#if DFX_HAVE_CUDNN
bool Ok(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return true;
  std::printf("gpu bench: %s: %s\n", what, cudnnGetErrorString(s));
  return false;
}

// dfx's Conv2D kernel (float32, 3x3, stride 1, SAME, NHWC: a ResNet-50
// layer) against cuDNN called directly with its heuristics' first algorithm on
// the same buffers (the filter already in cuDNN's layout).
bool BenchConv(gpu::GpuDevice* gpu, int64_t batch, int64_t size,
               int64_t channels, int iters) {
  const int64_t n = batch, h = size, w = size, c = channels;
  Tensor host_x(DT_FLOAT, TensorShape({n, h, w, c}));
  Tensor host_w(DT_FLOAT, TensorShape({3, 3, c, c}));
  for (Tensor* t : {&host_x, &host_w}) {
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      t->data<float>()[i] = static_cast<float>((i * 7919) % 2001) / 1000.0f - 1;
    }
  }
  auto x = gpu->CopyFromHost(host_x);
  auto f = gpu->CopyFromHost(host_w);
  if (!x.ok() || !f.ok()) return false;
  NodeDef node;
  node.set_name("conv");
  node.set_op("Conv2D");
  (*node.mutable_attr())["T"].set_type(DT_FLOAT);
  for (int i = 0; i < 4; ++i) {
    (*node.mutable_attr())["strides"].mutable_list()->add_i(1);
  }
  (*node.mutable_attr())["padding"].set_s("SAME");
  const double flops = 2.0 * n * h * w * c * c * 9 * iters;
  const double seconds = TimeKernel(gpu, node, {*x, *f}, iters);
  if (seconds < 0) return false;
  const double dfx_tflops = flops / seconds / 1e12;

  // cuDNN directly: KRSC filter (transposed on the host once), FP32 math.
  gpu::ScopedActivateDevice activate(gpu->cuda_ordinal());
  cudaStream_t stream = gpu->compute_stream()->get();
  Tensor host_krsc(DT_FLOAT, TensorShape({c, 3, 3, c}));
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t s2 = 0; s2 < 3; ++s2)
      for (int64_t i = 0; i < c; ++i)
        for (int64_t o = 0; o < c; ++o)
          host_krsc.data<float>()[((o * 3 + r) * 3 + s2) * c + i] =
              host_w.data<float>()[((r * 3 + s2) * c + i) * c + o];
  auto krsc = gpu->CopyFromHost(host_krsc);
  if (!krsc.ok()) return false;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t xd = nullptr, yd = nullptr;
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
  const int ni = static_cast<int>(n), ci = static_cast<int>(c),
            hi = static_cast<int>(h), wi = static_cast<int>(w);
  bool ok = Ok(cudnnCreate(&handle), "cudnnCreate") &&
            Ok(cudnnSetStream(handle, stream), "cudnnSetStream") &&
            Ok(cudnnCreateTensorDescriptor(&xd), "descriptor") &&
            Ok(cudnnCreateTensorDescriptor(&yd), "descriptor") &&
            Ok(cudnnCreateFilterDescriptor(&wd), "descriptor") &&
            Ok(cudnnCreateConvolutionDescriptor(&cd), "descriptor") &&
            Ok(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC,
                                          CUDNN_DATA_FLOAT, ni, ci, hi, wi),
               "x") &&
            Ok(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC,
                                          CUDNN_DATA_FLOAT, ni, ci, hi, wi),
               "y") &&
            Ok(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT,
                                          CUDNN_TENSOR_NHWC, ci, ci, 3, 3),
               "w") &&
            Ok(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1,
                                               CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT),
               "conv") &&
            Ok(cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH), "math");
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  ok = ok && Ok(cudnnGetConvolutionForwardAlgorithm_v7(
                    handle, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                    &found, perf),
                "algorithm");
  int pick = -1;
  for (int i = 0; ok && i < found; ++i) {
    if (perf[i].status == CUDNN_STATUS_SUCCESS &&
        perf[i].memory <= (size_t{1} << 30)) {
      pick = i;
      break;
    }
  }
  void* ws = nullptr;
  void* y = nullptr;
  ok = ok && pick >= 0 &&
       Ok(cudaMalloc(&y, n * h * w * c * 4), "cudaMalloc") &&
       (perf[pick].memory == 0 ||
        Ok(cudaMalloc(&ws, perf[pick].memory), "cudaMalloc")) &&
       Ok(cudnnSetConvolutionMathType(cd, perf[pick].mathType), "math");
  auto conv = [&]() {
    const float one = 1, zero = 0;
    return Ok(cudnnConvolutionForward(handle, &one, xd, x->raw_data(), wd,
                                      krsc->raw_data(), cd, perf[pick].algo,
                                      ws, perf[pick].memory, &zero, yd, y),
              "cudnnConvolutionForward");
  };
  for (int i = 0; i < 3 && ok; ++i) ok = conv();
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const absl::Time start = absl::Now();
  for (int i = 0; i < iters && ok; ++i) ok = conv();
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double direct_tflops =
      flops / absl::ToDoubleSeconds(absl::Now() - start) / 1e12;
  cudaFree(ws);
  cudaFree(y);
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroy(handle);
  if (!ok) return false;
  std::printf("Conv2D 3x3 %lldx%lldx%lld batch %lld float32: dfx %.1f "
              "TFLOP/s, cuDNN %.1f TFLOP/s, ratio %.3f (goal >= 0.9)\n",
              static_cast<long long>(h), static_cast<long long>(w),
              static_cast<long long>(c), static_cast<long long>(n),
              dfx_tflops, direct_tflops, dfx_tflops / direct_tflops);
  return true;
}

// Seconds `iters` calls of `call` (which enqueues on `stream` and says
// whether it could) take after three to warm up; negative on an error.
template <typename Call>
double TimeDirect(cudaStream_t stream, int iters, Call call) {
  bool ok = true;
  for (int i = 0; i < 3 && ok; ++i) ok = call();
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const absl::Time start = absl::Now();
  for (int i = 0; i < iters && ok; ++i) ok = call();
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return ok ? absl::ToDoubleSeconds(absl::Now() - start) : -1;
}

// A device tensor of `shape` with values in [-1, 1).
absl::StatusOr<Tensor> DeviceValues(gpu::GpuDevice* gpu,
                                    const TensorShape& shape) {
  Tensor host(DT_FLOAT, shape);
  for (int64_t i = 0; i < host.NumElements(); ++i) {
    host.data<float>()[i] = static_cast<float>((i * 7919) % 2001) / 1000.0f - 1;
  }
  return gpu->CopyFromHost(host);
}

// `dfx_seconds` and `dnn_seconds`: for `iters` calls each.
void PrintVersus(const char* what, int iters, double dfx_seconds,
                 double dnn_seconds) {
  std::printf(
      "%s: dfx's direct kernel %.3f ms, cuDNN %.3f ms a call, cuDNN/dfx "
      "time %.2f (above 1: the direct kernel is faster)\n",
      what, dfx_seconds * 1e3 / iters, dnn_seconds * 1e3 / iters,
      dnn_seconds / dfx_seconds);
}

// The direct pooling, softmax and batch-norm kernels (dfx's default)
// against cuDNN's, called directly on the same buffers, float32 NHWC:
// what decides whether these kernels should move to cuDNN. Informational:
// an error here is printed and does not fail the bench.
void BenchDirectVersusDnn(gpu::GpuDevice* gpu, int iters) {
  gpu::ScopedActivateDevice activate(gpu->cuda_ordinal());
  cudaStream_t stream = gpu->compute_stream()->get();
  cudnnHandle_t handle = nullptr;
  if (!Ok(cudnnCreate(&handle), "cudnnCreate") ||
      !Ok(cudnnSetStream(handle, stream), "cudnnSetStream")) {
    if (handle != nullptr) cudnnDestroy(handle);
    return;
  }
  cudnnTensorDescriptor_t xd = nullptr, yd = nullptr, sd = nullptr;
  cudnnPoolingDescriptor_t pd = nullptr;
  const float one = 1, zero = 0;
  bool ok = Ok(cudnnCreateTensorDescriptor(&xd), "descriptor") &&
            Ok(cudnnCreateTensorDescriptor(&yd), "descriptor") &&
            Ok(cudnnCreateTensorDescriptor(&sd), "descriptor") &&
            Ok(cudnnCreatePoolingDescriptor(&pd), "descriptor");
  void* y = nullptr;
  // Pooling: ResNet-50's first, 3x3 stride 2 over 112x112x64, batch 32
  // (cuDNN with padding 1 on both sides: TensorFlow's SAME pads 0 and 1,
  // which cuDNN cannot express; the same output size and work).
  const int n = 32, c = 64, h = 112, w = 112, oh = 56, ow = 56;
  auto x = DeviceValues(gpu, TensorShape({n, h, w, c}));
  ok = ok && x.ok() &&
       Ok(cudaMalloc(&y, size_t{4} * n * oh * ow * c), "cudaMalloc") &&
       Ok(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n,
                                     c, h, w),
          "x") &&
       Ok(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n,
                                     c, oh, ow),
          "y");
  for (const bool max : {true, false}) {
    if (!ok) break;
    NodeDef node;
    node.set_name("pool");
    node.set_op(max ? "MaxPool" : "AvgPool");
    (*node.mutable_attr())["T"].set_type(DT_FLOAT);
    for (int v : {1, 3, 3, 1}) {
      (*node.mutable_attr())["ksize"].mutable_list()->add_i(v);
    }
    for (int v : {1, 2, 2, 1}) {
      (*node.mutable_attr())["strides"].mutable_list()->add_i(v);
    }
    (*node.mutable_attr())["padding"].set_s("SAME");
    const double dfx = TimeKernel(gpu, node, {*x}, iters);
    ok = dfx > 0 && Ok(cudnnSetPooling2dDescriptor(
                           pd,
                           max ? CUDNN_POOLING_MAX
                               : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                           CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2),
                       "pooling");
    const double dnn = !ok ? -1 : TimeDirect(stream, iters, [&] {
      return Ok(cudnnPoolingForward(handle, pd, &one, xd, x->raw_data(), &zero,
                                    yd, y),
                "cudnnPoolingForward");
    });
    ok = ok && dnn > 0;
    if (ok) {
      PrintVersus(max ? "MaxPool 3x3/2 112x112x64 batch 32 float32"
                      : "AvgPool 3x3/2 112x112x64 batch 32 float32",
                  iters, dfx, dnn);
    }
  }
  cudaFree(y);
  y = nullptr;
  // Softmax over 1000 classes, 4096 rows.
  const int rows = 4096, classes = 1000;
  auto logits = DeviceValues(gpu, TensorShape({rows, classes}));
  ok = ok && logits.ok() &&
       Ok(cudaMalloc(&y, size_t{4} * rows * classes), "cudaMalloc") &&
       Ok(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                     rows, classes, 1, 1),
          "logits");
  if (ok) {
    NodeDef node;
    node.set_name("softmax");
    node.set_op("Softmax");
    (*node.mutable_attr())["T"].set_type(DT_FLOAT);
    const double dfx = TimeKernel(gpu, node, {*logits}, iters);
    const double dnn = dfx <= 0 ? -1 : TimeDirect(stream, iters, [&] {
      return Ok(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE,
                                    CUDNN_SOFTMAX_MODE_INSTANCE, &one, xd,
                                    logits->raw_data(), &zero, xd, y),
                "cudnnSoftmaxForward");
    });
    ok = dnn > 0;
    if (ok) PrintVersus("Softmax 4096x1000 float32", iters, dfx, dnn);
  }
  cudaFree(y);
  y = nullptr;
  // FusedBatchNormV3, training, over 32x56x56x64.
  const int bn = 32, bh = 56, bw = 56, bc = 64;
  auto bx = DeviceValues(gpu, TensorShape({bn, bh, bw, bc}));
  auto stats = DeviceValues(gpu, TensorShape({bc}));
  void* saved = nullptr;
  ok = ok && bx.ok() && stats.ok() &&
       Ok(cudaMalloc(&y, size_t{4} * bn * bh * bw * bc), "cudaMalloc") &&
       Ok(cudaMalloc(&saved, size_t{4} * 4 * bc), "cudaMalloc") &&
       Ok(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                                     bn, bc, bh, bw),
          "x") &&
       Ok(cudnnSetTensor4dDescriptor(sd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                                     bc, 1, 1),
          "scale");
  if (ok) {
    NodeDef node;
    node.set_name("bn");
    node.set_op("FusedBatchNormV3");
    (*node.mutable_attr())["T"].set_type(DT_FLOAT);
    (*node.mutable_attr())["U"].set_type(DT_FLOAT);
    (*node.mutable_attr())["epsilon"].set_f(1e-3f);
    (*node.mutable_attr())["is_training"].set_b(true);
    const double dfx =
        TimeKernel(gpu, node, {*bx, *stats, *stats, *stats, *stats}, iters);
    float* s = static_cast<float*>(saved);
    const double dnn = dfx <= 0 ? -1 : TimeDirect(stream, iters, [&] {
      return Ok(
          cudnnBatchNormalizationForwardTraining(
              handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, bx->raw_data(),
              xd, y, sd, stats->raw_data(), stats->raw_data(), 1.0, s, s + bc,
              1e-3, s + 2 * bc, s + 3 * bc),
          "cudnnBatchNormalizationForwardTraining");
    });
    if (dnn > 0) {
      PrintVersus("FusedBatchNormV3 training 32x56x56x64 float32", iters, dfx,
                  dnn);
    }
  }
  cudaFree(saved);
  cudaFree(y);
  cudnnDestroyPoolingDescriptor(pd);
  cudnnDestroyTensorDescriptor(sd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroy(handle);
}

// dfx's DepthwiseConv2dNative (a MobileNet layer: 3x3, stride 1, SAME,
// 112x112x32, batch 32) on cuDNN's grouped convolution (the default)
// against the direct kernels (DFX_GPU_DEPTHWISE_DIRECT=1, what TensorFlow
// does outside float16). Informational.
void BenchDepthwise(gpu::GpuDevice* gpu, int iters) {
  for (const DataType dtype : {DT_FLOAT, DT_HALF}) {
    Tensor host_x(DT_FLOAT, TensorShape({32, 112, 112, 32}));
    Tensor host_w(DT_FLOAT, TensorShape({3, 3, 32, 1}));
    for (Tensor* t : {&host_x, &host_w}) {
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        t->data<float>()[i] =
            static_cast<float>((i * 7919) % 2001) / 1000.0f - 1;
      }
    }
    if (dtype == DT_HALF) {
      for (Tensor* t : {&host_x, &host_w}) {
        Tensor h(DT_HALF, t->shape());
        for (int64_t i = 0; i < t->NumElements(); ++i) {
          h.data<Eigen::half>()[i] = Eigen::half(t->data<float>()[i]);
        }
        *t = h;
      }
    }
    auto x = gpu->CopyFromHost(host_x);
    auto w = gpu->CopyFromHost(host_w);
    if (!x.ok() || !w.ok()) return;
    NodeDef node;
    node.set_name("depthwise");
    node.set_op("DepthwiseConv2dNative");
    (*node.mutable_attr())["T"].set_type(dtype);
    for (int i = 0; i < 4; ++i) {
      (*node.mutable_attr())["strides"].mutable_list()->add_i(1);
    }
    (*node.mutable_attr())["padding"].set_s("SAME");
    const double dnn = TimeKernel(gpu, node, {*x, *w}, iters);
    setenv("DFX_GPU_DEPTHWISE_DIRECT", "1", 1);
    const double direct = TimeKernel(gpu, node, {*x, *w}, iters);
    unsetenv("DFX_GPU_DEPTHWISE_DIRECT");
    if (dnn <= 0 || direct <= 0) return;
    std::printf(
        "DepthwiseConv2dNative 3x3 112x112x32 batch 32 %s: cuDNN "
        "grouped %.3f ms, direct kernel %.3f ms, direct/cuDNN time "
        "%.2f (above 1: cuDNN, the default, is faster)\n",
        dtype == DT_FLOAT ? "float32" : "float16", dnn * 1e3 / iters,
        direct * 1e3 / iters, direct / dnn);
  }
}
#endif  // DFX_HAVE_CUDNN

// Best of five of `f`, in GB/s for `bytes`.
template <typename F>
double Rate(int64_t bytes, F f) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const absl::Time start = absl::Now();
    if (!f()) return 0;
    best = std::max(best, bytes / 1e9 / absl::ToDoubleSeconds(absl::Now() - start));
  }
  return best;
}

bool BenchCopies(gpu::GpuDevice* gpu) {
  const int64_t bytes = int64_t{256} << 20;
  Tensor pageable(DT_INT8, TensorShape({bytes}));
  std::memset(pageable.raw_data(), 1, bytes);  // touched: no page faults
  Tensor on_gpu, pinned;
  const double staged = Rate(bytes, [&] {
    auto t = gpu->CopyFromHost(pageable);
    if (t.ok()) on_gpu = *t;
    return t.ok();
  });
  const double to_host = Rate(bytes, [&] {
    auto t = gpu->CopyToHost(on_gpu);
    if (t.ok()) pinned = *t;
    return t.ok();
  });
  const double from_pinned =
      Rate(bytes, [&] { return gpu->CopyFromHost(pinned).ok(); });
  gpu::ScopedActivateDevice activate(gpu->cuda_ordinal());
  void* raw = nullptr;
  if (!Ok(cudaMallocHost(&raw, bytes), "cudaMallocHost")) return false;
  std::memset(raw, 1, bytes);
  void* dev = on_gpu.raw_data();
  cudaStream_t h2d = gpu->host_to_device_stream()->get();
  cudaStream_t d2h = gpu->device_to_host_stream()->get();
  const double raw_in = Rate(bytes, [&] {
    return Ok(cudaMemcpyAsync(dev, raw, bytes, cudaMemcpyHostToDevice, h2d),
              "cudaMemcpyAsync") &&
           Ok(cudaStreamSynchronize(h2d), "cudaStreamSynchronize");
  });
  const double raw_out = Rate(bytes, [&] {
    return Ok(cudaMemcpyAsync(raw, dev, bytes, cudaMemcpyDeviceToHost, d2h),
              "cudaMemcpyAsync") &&
           Ok(cudaStreamSynchronize(d2h), "cudaStreamSynchronize");
  });
  cudaFreeHost(raw);
  if (staged == 0 || to_host == 0 || from_pinned == 0 || raw_in == 0 ||
      raw_out == 0) {
    return false;
  }
  std::printf("copy 256 MiB to GPU from pinned: dfx %.1f GB/s, "
              "cudaMemcpyAsync %.1f GB/s, ratio %.3f (goal >= 0.9)\n",
              from_pinned, raw_in, from_pinned / raw_in);
  std::printf("copy 256 MiB to host (pinned): dfx %.1f GB/s, "
              "cudaMemcpyAsync %.1f GB/s, ratio %.3f (goal >= 0.9)\n",
              to_host, raw_out, to_host / raw_out);
  std::printf("copy 256 MiB to GPU from pageable memory (staged): dfx %.1f "
              "GB/s, %.3f of pinned cudaMemcpyAsync\n",
              staged, staged / raw_in);
  return true;
}

// A 256 MiB GPU tensor fetched by another task over the bulk plane's TCP
// on 127.0.0.1, through what RecvTensor uses (HeldTensors, BulkServer,
// BulkClient; both ends in this process, the step around them left out):
// as dfx serves it now, in staged 8 MiB ranges whose device-to-host copies
// overlap the sending of the range before, against the way it was served
// before, in the same run: the whole tensor copied to pinned host memory,
// then sent.
bool BenchTaskTransfer(gpu::GpuDevice* gpu) {
  const int64_t bytes = int64_t{256} << 20;
  Tensor pattern(DT_INT8, TensorShape({bytes}));
  for (int64_t i = 0; i < bytes; ++i) {
    pattern.data<int8_t>()[i] = static_cast<int8_t>(i * 7);
  }
  absl::StatusOr<Tensor> on_gpu = gpu->CopyFromHost(pattern);
  if (!on_gpu.ok()) {
    std::printf("GPU tensor to another task: %s\n",
                on_gpu.status().ToString().c_str());
    return false;
  }
  HeldTensors held;
  BulkServer::Options server_options;
  server_options.held = &held;
  server_options.local = false;  // TCP, as between hosts
  absl::StatusOr<std::unique_ptr<BulkServer>> server =
      BulkServer::Start(server_options);
  if (!server.ok()) {
    std::printf("GPU tensor to another task: %s\n",
                server.status().ToString().c_str());
    return false;
  }
  BulkClient client;
  Tensor received(DT_INT8, TensorShape({bytes}));
  std::memset(received.raw_data(), 0, bytes);  // touched: no page faults
  auto fetch = [&](uint64_t ticket) {
    BulkClient::Fetch f;
    f.address = (*server)->address();
    f.ticket = ticket;
    f.dst = received.raw_data();
    f.length = static_cast<uint64_t>(bytes);
    f.deadline = absl::Now() + absl::Minutes(1);
    absl::Notification done;
    absl::Status status;
    client.FetchAsync(f, [&](const absl::Status& s) {
      status = s;
      done.Notify();
    });
    done.WaitForNotification();  // the fetch's deadline bounds it
    if (!status.ok()) {
      std::printf("GPU tensor to another task: %s\n",
                  status.ToString().c_str());
    }
    return status.ok();
  };
  const double staged = Rate(bytes, [&] {
    return fetch(held.Hold(1, "bench", *on_gpu, 0, nullptr, gpu));
  });
  const bool exact = std::memcmp(received.raw_data(), pattern.raw_data(),
                                 static_cast<size_t>(bytes)) == 0;
  const double whole = Rate(bytes, [&] {
    absl::StatusOr<Tensor> host = gpu->CopyToHost(*on_gpu);
    return host.ok() && fetch(held.Hold(1, "bench", *host));
  });
  if (staged == 0 || whole == 0) return false;
  std::printf(
      "GPU tensor 256 MiB to another task (bulk TCP, 127.0.0.1): "
      "dfx %.2f GB/s (ranges copied while sent), copy whole then "
      "send %.2f GB/s, ratio %.2f%s\n",
      staged, whole, staged / whole, exact ? "" : " (RECEIVED BYTES DIFFER)");
  return exact;
}

#endif  // DFX_HAVE_CUDA

}  // namespace

int RunGpuBench(int argc, char** argv) {
  std::vector<int64_t> sizes = {4096, 8192};
  int iters = 20;
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (absl::string_view s : absl::StrSplit(argv[++i], ',')) {
        int64_t v = 0;
        if (!absl::SimpleAtoi(s, &v) || v <= 0 || v > 65536) return GpuUsage();
        sizes.push_back(v);
      }
    } else if (flag == "--iters" && i + 1 < argc) {
      iters = std::atoi(argv[++i]);
      if (iters <= 0) return GpuUsage();
    } else {
      return GpuUsage();
    }
  }
#if DFX_HAVE_CUDA
  std::string why;
  if (gpu::VisibleGpuCount(&why) == 0) {
    std::printf("gpu bench: no GPU visible (%s); nothing measured\n",
                why.c_str());
    return 0;
  }
  CpuDeviceOptions cpu;
  GpuDeviceOptions options;
  ScopedMoreDevices gpus(gpu::GpuDeviceFactory(options));
  auto mgr = DeviceMgr::NewCpu(cpu);
  if (!mgr.ok()) {
    std::printf("gpu bench: %s\n", mgr.status().ToString().c_str());
    return 1;
  }
  auto found = (*mgr)->LookupDevice("/device:GPU:0");
  auto* gpu = found.ok() ? dynamic_cast<gpu::GpuDevice*>(*found) : nullptr;
  if (gpu == nullptr) {
    std::printf("gpu bench: no GPU:0 device\n");
    return 1;
  }
  std::printf("%s\n", gpu->attributes().physical_device_desc().c_str());
  bool ok = true;
  const bool tf32_before = gpu::TensorFloat32ExecutionEnabled();
  for (const auto& [dtype, tf32] :
       {std::pair{DT_FLOAT, false}, std::pair{DT_FLOAT, true},
        std::pair{DT_BFLOAT16, false}}) {
    for (int64_t n : sizes) ok = BenchMatMul(gpu, dtype, tf32, n, iters) && ok;
  }
  gpu::SetTensorFloat32Execution(tf32_before);
#if DFX_HAVE_CUDNN
  // ResNet-50's 3x3 layers.
  for (const auto& [size, channels] :
       {std::pair{56, 64}, std::pair{28, 128}, std::pair{14, 256},
        std::pair{7, 512}}) {
    ok = BenchConv(gpu, 32, size, channels, iters) && ok;
  }
  BenchDirectVersusDnn(gpu, iters);
  BenchDepthwise(gpu, iters);
#else
  std::printf("Conv2D: this dfx was built without cuDNN\n");
#endif
  ok = BenchCopies(gpu) && ok;
  ok = BenchTaskTransfer(gpu) && ok;
  return ok ? 0 : 1;
#else
  (void)iters;
  std::printf("gpu bench: this dfx was built without CUDA\n");
  return 1;
#endif
}

}  // namespace dfx

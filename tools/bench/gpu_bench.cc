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

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gpu/gpu_device.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/more_devices.h"
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
bool BenchMatMul(gpu::GpuDevice* gpu, DataType dtype, int64_t n, int iters) {
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
  auto op = OpRegistry::Global()->LookUpOrError("MatMul");
  if (!op.ok()) return false;
  AddDefaultAttrs((*op)->op_def, &node);
  auto kernel = StandardKernelRegistry()->CreateKernel(node, (*op)->op_def, gpu);
  if (!kernel.ok()) {
    std::printf("gpu bench: %s\n", kernel.status().ToString().c_str());
    return false;
  }
  const std::vector<Tensor> inputs = {*a, *b};
  auto run_dfx = [&]() {
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
  const double flops = 2.0 * n * n * n * iters;
  for (int i = 0; i < 3; ++i) {
    if (!run_dfx()) return false;
  }
  if (!gpu->compute_stream()->BlockHostUntilDone(absl::Minutes(1)).ok()) {
    return false;
  }
  absl::Time start = absl::Now();
  for (int i = 0; i < iters; ++i) {
    if (!run_dfx()) return false;
  }
  // The kernels enqueue and return; the products are done when the stream
  // is.
  const absl::Status done =
      gpu->compute_stream()->BlockHostUntilDone(absl::Minutes(5));
  if (!done.ok()) {
    std::printf("gpu bench: %s\n", done.ToString().c_str());
    return false;
  }
  const double dfx_tflops = flops / absl::ToDoubleSeconds(absl::Now() - start) / 1e12;

  // cuBLAS, enqueued back to back on the same stream, one wait at the end.
  gpu::ScopedActivateDevice activate(gpu->cuda_ordinal());
  cudaStream_t stream = gpu->compute_stream()->get();
  cublasHandle_t handle = nullptr;
  void* c = nullptr;
  const size_t elem = dtype == DT_FLOAT ? 4 : 2;
  if (!Ok(cublasCreate(&handle), "cublasCreate") ||
      !Ok(cublasSetStream(handle, stream), "cublasSetStream") ||
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
  start = absl::Now();
  for (int i = 0; i < iters && ok; ++i) ok = Ok(gemm(), "cuBLAS GEMM");
  ok = ok && Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double direct_tflops =
      flops / absl::ToDoubleSeconds(absl::Now() - start) / 1e12;
  cudaFree(c);
  cublasDestroy(handle);
  if (!ok) return false;
  std::printf("MatMul %lld %s: dfx %.1f TFLOP/s, cuBLAS %.1f TFLOP/s, "
              "ratio %.3f (goal >= 0.9)\n",
              static_cast<long long>(n), dtype == DT_FLOAT ? "float32" : "bfloat16",
              dfx_tflops, direct_tflops, dfx_tflops / direct_tflops);
  return true;
}

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
  for (DataType dtype : {DT_FLOAT, DT_BFLOAT16}) {
    for (int64_t n : sizes) ok = BenchMatMul(gpu, dtype, n, iters) && ok;
  }
  std::printf("MatMul TF32: not yet (no TF32 option in dfx); Conv2D: not yet "
              "(no GPU convolution kernel)\n");
  ok = BenchCopies(gpu) && ok;
  return ok ? 0 : 1;
#else
  (void)iters;
  std::printf("gpu bench: this dfx was built without CUDA\n");
  return 1;
#endif
}

}  // namespace dfx

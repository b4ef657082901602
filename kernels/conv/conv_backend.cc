#include "kernels/conv/conv_backend.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace dfx::conv_internal {
namespace {

// ---------------------------------------------------------------------------
// Direct loops, for the dtypes oneDNN has no primitive for (double, int32)
// and as the fallback when oneDNN declines a geometry. Acc is the
// accumulation type. Each loop writes every element of its result.

template <typename T, typename Acc>
void ReferenceForward(const Device& device, const ConvGeom& g, const T* in,
                      const T* filter, T* out) {
  const int64_t icg = g.in_depth_per_group(), ocg = g.out_depth_per_group();
  const int64_t ic = g.in_depth, oc = g.out_depth;
  const int64_t pixels = g.batch * g.out_rows * g.out_cols;
  const double cost =
      2.0 * static_cast<double>(g.filter_rows * g.filter_cols * icg * oc) + 1;
  ParallelForCost(device, pixels, cost, [&](int64_t first, int64_t last) {
    std::vector<Acc> acc(static_cast<size_t>(oc));
    for (int64_t p = first; p < last; ++p) {
      const int64_t ow = p % g.out_cols;
      const int64_t oh = (p / g.out_cols) % g.out_rows;
      const int64_t n = p / (g.out_cols * g.out_rows);
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
        const int64_t ih = oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
        if (ih < 0 || ih >= g.in_rows) continue;
        for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
          const int64_t iw =
              ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
          if (iw < 0 || iw >= g.in_cols) continue;
          const T* x = in + ((n * g.in_rows + ih) * g.in_cols + iw) * ic;
          const T* f = filter + (kh * g.filter_cols + kw) * icg * oc;
          for (int64_t grp = 0; grp < g.groups; ++grp) {
            Acc* a = acc.data() + grp * ocg;
            for (int64_t i = 0; i < icg; ++i) {
              const Acc xv = static_cast<Acc>(x[grp * icg + i]);
              const T* frow = f + i * oc + grp * ocg;
              for (int64_t o = 0; o < ocg; ++o) {
                a[o] += xv * static_cast<Acc>(frow[o]);
              }
            }
          }
        }
      }
      T* y = out + p * oc;
      for (int64_t o = 0; o < oc; ++o) y[o] = static_cast<T>(acc[o]);
    }
  });
}

template <typename T, typename Acc>
void ReferenceBackwardData(const Device& device, const ConvGeom& g,
                           const T* filter, const T* out_grad, T* in_grad) {
  const int64_t icg = g.in_depth_per_group(), ocg = g.out_depth_per_group();
  const int64_t ic = g.in_depth, oc = g.out_depth;
  const int64_t pixels = g.batch * g.in_rows * g.in_cols;
  const double cost =
      2.0 * static_cast<double>(g.filter_rows * g.filter_cols * icg * oc) /
          static_cast<double>(g.stride_rows * g.stride_cols) +
      1;
  ParallelForCost(device, pixels, cost, [&](int64_t first, int64_t last) {
    std::vector<Acc> acc(static_cast<size_t>(ic));
    for (int64_t p = first; p < last; ++p) {
      const int64_t iw = p % g.in_cols;
      const int64_t ih = (p / g.in_cols) % g.in_rows;
      const int64_t n = p / (g.in_cols * g.in_rows);
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
        const int64_t th = ih + g.pad_top - kh * g.dilation_rows;
        if (th < 0 || th % g.stride_rows != 0) continue;
        const int64_t oh = th / g.stride_rows;
        if (oh >= g.out_rows) continue;
        for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
          const int64_t tw = iw + g.pad_left - kw * g.dilation_cols;
          if (tw < 0 || tw % g.stride_cols != 0) continue;
          const int64_t ow = tw / g.stride_cols;
          if (ow >= g.out_cols) continue;
          const T* dy = out_grad + ((n * g.out_rows + oh) * g.out_cols + ow) * oc;
          const T* f = filter + (kh * g.filter_cols + kw) * icg * oc;
          for (int64_t grp = 0; grp < g.groups; ++grp) {
            const T* dyg = dy + grp * ocg;
            for (int64_t i = 0; i < icg; ++i) {
              const T* frow = f + i * oc + grp * ocg;
              Acc s = 0;
              for (int64_t o = 0; o < ocg; ++o) {
                s += static_cast<Acc>(dyg[o]) * static_cast<Acc>(frow[o]);
              }
              acc[grp * icg + i] += s;
            }
          }
        }
      }
      T* dx = in_grad + p * ic;
      for (int64_t c = 0; c < ic; ++c) dx[c] = static_cast<T>(acc[c]);
    }
  });
}

template <typename T, typename Acc>
void ReferenceBackwardFilter(const Device& device, const ConvGeom& g,
                             const T* in, const T* out_grad, T* filter_grad) {
  const int64_t icg = g.in_depth_per_group(), ocg = g.out_depth_per_group();
  const int64_t ic = g.in_depth, oc = g.out_depth;
  const int64_t units = g.filter_rows * g.filter_cols * icg;
  const double cost =
      2.0 * static_cast<double>(g.batch * g.out_rows * g.out_cols * oc) + 1;
  ParallelForCost(device, units, cost, [&](int64_t first, int64_t last) {
    std::vector<Acc> acc(static_cast<size_t>(oc));
    for (int64_t u = first; u < last; ++u) {
      const int64_t i = u % icg;
      const int64_t kw = (u / icg) % g.filter_cols;
      const int64_t kh = u / (icg * g.filter_cols);
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t oh = 0; oh < g.out_rows; ++oh) {
          const int64_t ih =
              oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
          if (ih < 0 || ih >= g.in_rows) continue;
          for (int64_t ow = 0; ow < g.out_cols; ++ow) {
            const int64_t iw =
                ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
            if (iw < 0 || iw >= g.in_cols) continue;
            const T* x = in + ((n * g.in_rows + ih) * g.in_cols + iw) * ic;
            const T* dy =
                out_grad + ((n * g.out_rows + oh) * g.out_cols + ow) * oc;
            for (int64_t grp = 0; grp < g.groups; ++grp) {
              const Acc xv = static_cast<Acc>(x[grp * icg + i]);
              const T* dyg = dy + grp * ocg;
              Acc* a = acc.data() + grp * ocg;
              for (int64_t o = 0; o < ocg; ++o) {
                a[o] += xv * static_cast<Acc>(dyg[o]);
              }
            }
          }
        }
      }
      T* dw = filter_grad + u * oc;
      for (int64_t o = 0; o < oc; ++o) dw[o] = static_cast<T>(acc[o]);
    }
  });
}

template <typename T, typename Acc>
void RunReferencePointers(const Device& device, ConvPass pass,
                          const ConvGeom& g, T* input, T* filter, T* output) {
  switch (pass) {
    case ConvPass::kForward:
      ReferenceForward<T, Acc>(device, g, input, filter, output);
      break;
    case ConvPass::kBackwardData:
      ReferenceBackwardData<T, Acc>(device, g, filter, output, input);
      break;
    case ConvPass::kBackwardFilter:
      ReferenceBackwardFilter<T, Acc>(device, g, input, output, filter);
      break;
  }
}

template <typename T, typename Acc>
void RunReference(const Device& device, ConvPass pass, const ConvGeom& g,
                  Tensor* input, Tensor* filter, Tensor* output) {
  RunReferencePointers<T, Acc>(device, pass, g, input->data<T>(),
                               filter->data<T>(), output->data<T>());
}

// ---------------------------------------------------------------------------
// oneDNN.

// oneDNN's CPU runtime here is OpenMP: a primitive runs on an OpenMP team of
// omp_get_max_threads() of its calling thread. omp_set_num_threads sets that
// for the calling thread's next parallel regions: 1 for the chunks that run
// on the intra-op pool, the pool's size for a pass run whole. libgomp is
// loaded as oneDNN's dependency; looking it up at run time keeps this file
// free of OpenMP build flags.
void SetOpenMpThreads(int n) {
  using SetFn = void (*)(int);
  static const SetFn set_threads = reinterpret_cast<SetFn>(
      dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set_threads != nullptr) set_threads(n);
}

const dnnl::engine& CpuEngine() {
  static const dnnl::engine* engine =
      new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

using dnnl::memory;
using Dims = memory::dims;

memory::desc ActivationDesc(int64_t n, int64_t c, int64_t h, int64_t w,
                            memory::format_tag tag) {
  return memory::desc({n, c, h, w}, memory::data_type::f32, tag);
}

// The filter as (G)OIHW dims: with format_tag::hwio / hwigo that is the
// layout TensorFlow stores, [KH, KW, in/groups, out].
memory::desc WeightsDesc(const ConvGeom& g, bool user) {
  if (g.groups == 1) {
    return memory::desc(
        {g.out_depth, g.in_depth, g.filter_rows, g.filter_cols},
        memory::data_type::f32,
        user ? memory::format_tag::hwio : memory::format_tag::any);
  }
  return memory::desc({g.groups, g.out_depth_per_group(),
                       g.in_depth_per_group(), g.filter_rows, g.filter_cols},
                      memory::data_type::f32,
                      user ? memory::format_tag::hwigo
                           : memory::format_tag::any);
}

// One tensor argument of a primitive: TensorFlow's layout (`user`), the
// layout the primitive chose (`prim`), and the reorder between them when
// they differ (user -> prim for what the pass reads, prim -> user for what
// it writes).
struct Operand {
  int arg = 0;
  bool written = false;
  memory::desc user, prim;
  bool reorder = false;
  dnnl::primitive reorder_primitive;
};

// A primitive for one pass and geometry. Operands, in order: the input (or
// its gradient), the filter (or its gradient), the output (or its gradient).
// oneDNN picks blocked layouts (format_tag::any): on AVX2 its blocked
// kernels beat the plain NHWC ones by more than the reorders cost.
struct DnnlConv {
  dnnl::primitive primitive;
  Operand operands[3];
  memory::desc scratchpad_md;
  std::string impl;
};

void SetOperand(const memory::desc& user, const memory::desc& prim, int arg,
                bool written, Operand* op) {
  const dnnl::engine& engine = CpuEngine();
  op->arg = arg;
  op->written = written;
  op->user = user;
  op->prim = prim;
  op->reorder = user != prim;
  if (op->reorder) {
    op->reorder_primitive =
        written ? dnnl::reorder(dnnl::reorder::primitive_desc(engine, prim,
                                                              engine, user))
                : dnnl::reorder(dnnl::reorder::primitive_desc(engine, user,
                                                              engine, prim));
  }
}

// A forward pass with fewer output pixels than this (over its images) runs
// on TensorFlow's layouts as they are. The blocked layouts oneDNN prefers
// cost a reorder of the filter on every call, as much memory traffic as the
// filter's size whatever the output's; with few output pixels (the last
// stages of a ResNet or VGG on small images: 1x1 to 4x4 outputs of 3x3x512x512
// filters) that reorder took 20 times the convolution itself, where a GEMM on
// the plain filter reads it once. Not for grouped (depthwise) passes: their
// filters are small, and oneDNN's GEMM runs them a group at a time, many
// times slower than its depthwise kernels.
constexpr int64_t kPlainForwardPixels = 64;

bool PlainForward(const ConvGeom& g) {
  return g.groups == 1 &&
         g.batch * g.out_rows * g.out_cols < kPlainForwardPixels;
}

std::unique_ptr<DnnlConv> CreateDnnlConv(ConvPass pass, const ConvGeom& g) {
  const dnnl::engine& engine = CpuEngine();
  auto conv = std::make_unique<DnnlConv>();
  const auto nhwc = memory::format_tag::nhwc;
  const auto any = memory::format_tag::any;
  const memory::desc user_src =
      ActivationDesc(g.batch, g.in_depth, g.in_rows, g.in_cols, nhwc);
  const memory::desc user_dst =
      ActivationDesc(g.batch, g.out_depth, g.out_rows, g.out_cols, nhwc);
  const memory::desc user_weights = WeightsDesc(g, true);
  const memory::desc any_src =
      ActivationDesc(g.batch, g.in_depth, g.in_rows, g.in_cols, any);
  const memory::desc any_dst =
      ActivationDesc(g.batch, g.out_depth, g.out_rows, g.out_cols, any);
  const memory::desc any_weights = WeightsDesc(g, false);
  const Dims strides = {g.stride_rows, g.stride_cols};
  const Dims dilates = {g.dilation_rows - 1, g.dilation_cols - 1};
  const Dims pad_l = {g.pad_top, g.pad_left};
  const Dims pad_r = {g.pad_bottom, g.pad_right};
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);

  switch (pass) {
    case ConvPass::kForward: {
      const bool plain = PlainForward(g);
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference,
          dnnl::algorithm::convolution_direct, plain ? user_src : any_src,
          plain ? user_weights : any_weights, plain ? user_dst : any_dst,
          strides, dilates, pad_l, pad_r);
      dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
      SetOperand(user_src, pd.src_desc(), DNNL_ARG_SRC, false,
                 &conv->operands[0]);
      SetOperand(user_weights, pd.weights_desc(), DNNL_ARG_WEIGHTS, false,
                 &conv->operands[1]);
      SetOperand(user_dst, pd.dst_desc(), DNNL_ARG_DST, true,
                 &conv->operands[2]);
      conv->scratchpad_md = pd.scratchpad_desc();
      conv->impl = pd.impl_info_str();
      conv->primitive = dnnl::convolution_forward(pd);
      break;
    }
    case ConvPass::kBackwardData: {
      dnnl::convolution_forward::desc hint_desc(
          dnnl::prop_kind::forward_training,
          dnnl::algorithm::convolution_direct, any_src, any_weights, any_dst,
          strides, dilates, pad_l, pad_r);
      dnnl::convolution_forward::primitive_desc hint(hint_desc, engine);
      dnnl::convolution_backward_data::desc desc(
          dnnl::algorithm::convolution_direct, any_src, any_weights, any_dst,
          strides, dilates, pad_l, pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(desc, attr, engine,
                                                         hint);
      SetOperand(user_src, pd.diff_src_desc(), DNNL_ARG_DIFF_SRC, true,
                 &conv->operands[0]);
      SetOperand(user_weights, pd.weights_desc(), DNNL_ARG_WEIGHTS, false,
                 &conv->operands[1]);
      SetOperand(user_dst, pd.diff_dst_desc(), DNNL_ARG_DIFF_DST, false,
                 &conv->operands[2]);
      conv->scratchpad_md = pd.scratchpad_desc();
      conv->impl = pd.impl_info_str();
      conv->primitive = dnnl::convolution_backward_data(pd);
      break;
    }
    case ConvPass::kBackwardFilter: {
      dnnl::convolution_forward::desc hint_desc(
          dnnl::prop_kind::forward_training,
          dnnl::algorithm::convolution_direct, any_src, any_weights, any_dst,
          strides, dilates, pad_l, pad_r);
      dnnl::convolution_forward::primitive_desc hint(hint_desc, engine);
      dnnl::convolution_backward_weights::desc desc(
          dnnl::algorithm::convolution_direct, any_src, any_weights, any_dst,
          strides, dilates, pad_l, pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, attr, engine,
                                                            hint);
      SetOperand(user_src, pd.src_desc(), DNNL_ARG_SRC, false,
                 &conv->operands[0]);
      SetOperand(user_weights, pd.diff_weights_desc(), DNNL_ARG_DIFF_WEIGHTS,
                 true, &conv->operands[1]);
      SetOperand(user_dst, pd.diff_dst_desc(), DNNL_ARG_DIFF_DST, false,
                 &conv->operands[2]);
      conv->scratchpad_md = pd.scratchpad_desc();
      conv->impl = pd.impl_info_str();
      conv->primitive = dnnl::convolution_backward_weights(pd);
      break;
    }
  }
  return conv;
}

struct CacheKey {
  ConvPass pass;
  ConvGeom geom;
  bool operator==(const CacheKey& o) const {
    return pass == o.pass && geom == o.geom;
  }
  template <typename H>
  friend H AbslHashValue(H h, const CacheKey& k) {
    return H::combine(std::move(h), static_cast<int>(k.pass), k.geom);
  }
};

// Multiply-adds times two, in double: no overflow for any geometry.
double ConvFlops(const ConvGeom& g) {
  return 2.0 * static_cast<double>(g.batch) *
         static_cast<double>(g.out_rows) * static_cast<double>(g.out_cols) *
         static_cast<double>(g.out_depth) *
         static_cast<double>(g.filter_rows) *
         static_cast<double>(g.filter_cols) *
         static_cast<double>(g.in_depth_per_group());
}

// A kernel sees few shapes (a split pass adds a few band geometries); past
// this many it forgets them all.
constexpr size_t kMaxCachedPrimitives = 64;

absl::Status AllocateBytes(OpKernelContext* ctx, size_t bytes, Tensor* out) {
  return ctx->allocate_temp(
      DT_UINT8, TensorShape({static_cast<int64_t>(std::max<size_t>(bytes, 1))}),
      out);
}

}  // namespace

class ConvRunner::Impl {
 public:
  // Null when oneDNN has no primitive for this geometry.
  std::shared_ptr<const DnnlConv> Lookup(ConvPass pass, const ConvGeom& geom) {
    const CacheKey key{pass, geom};
    absl::MutexLock lock(&mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::shared_ptr<const DnnlConv> conv;
    try {
      conv = CreateDnnlConv(pass, geom);
    } catch (const dnnl::error&) {
      conv = nullptr;  // the reference loops serve this geometry
    }
    if (cache_.size() >= kMaxCachedPrimitives) cache_.clear();
    cache_.emplace(key, conv);
    return conv;
  }

  // Runs the float pass: split into chunks (images, or bands of rows of one
  // image) that run single-threaded on the intra-op pool, or as
  // one oneDNN call on `IntraOpThreads` OpenMP threads when the pass has no
  // split. Splitting over the pool rather than handing oneDNN an OpenMP team
  // keeps a kernel on the threads the session configured, and balances when
  // the machine is loaded: an OpenMP team waits for its slowest thread at
  // every barrier, where the pool's threads take chunks as they come free.
  absl::Status RunFloat(OpKernelContext* ctx, ConvPass pass,
                        const ConvGeom& geom, Tensor* input, Tensor* filter,
                        Tensor* output) {
    const Device& device = *ctx->device();
    const ThreadPool* pool = device.intra_op_pool();
    const int threads = (pool == nullptr || pool->CurrentThreadId() >= 0)
                            ? 1
                            : IntraOpThreads(device);
    float* in = input->data<float>();
    float* filt = filter->data<float>();
    float* out = output->data<float>();
    std::vector<Chunk> chunks = PlanChunks(pass, geom, threads);
    if (chunks.empty()) {
      return RunChunk(ctx, pass, geom, in, filt, out, threads);
    }
    if (chunks.size() == 1) {
      const Chunk& c = chunks[0];
      return RunChunk(ctx, pass, c.geom, in + c.in_offset, filt,
                      out + c.out_offset, 1);
    }
    // The filter gradient sums over images: each chunk writes its own
    // partial gradient, added up below.
    const bool partial = pass == ConvPass::kBackwardFilter;
    const int64_t filter_size = filter->NumElements();
    Tensor partials;
    if (partial) {
      DFX_RETURN_IF_ERROR(ctx->allocate_temp(
          DT_FLOAT,
          TensorShape({static_cast<int64_t>(chunks.size()), filter_size}),
          &partials));
    }
    std::vector<absl::Status> status(chunks.size());
    const double flops_per_chunk =
        ConvFlops(geom) / static_cast<double>(chunks.size());
    ParallelForCost(
        device, static_cast<int64_t>(chunks.size()), flops_per_chunk,
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            const Chunk& c = chunks[i];
            float* f = partial ? partials.data<float>() + i * filter_size
                               : filt;
            status[i] = RunChunk(ctx, pass, c.geom, in + c.in_offset, f,
                                 out + c.out_offset, 1);
          }
        });
    for (const absl::Status& s : status) DFX_RETURN_IF_ERROR(s);
    if (partial) {
      const float* p = partials.data<float>();
      const int64_t n = static_cast<int64_t>(chunks.size());
      ParallelForCost(device, filter_size, static_cast<double>(n),
                      [&](int64_t first, int64_t last) {
                        for (int64_t j = first; j < last; ++j) {
                          float sum = 0;
                          for (int64_t c = 0; c < n; ++c) {
                            sum += p[c * filter_size + j];
                          }
                          filt[j] = sum;
                        }
                      });
    }
    return absl::OkStatus();
  }

 private:
  // A part of a pass: its own geometry, and where its input and output
  // start (in elements) inside the whole tensors.
  struct Chunk {
    ConvGeom geom;
    int64_t in_offset = 0;
    int64_t out_offset = 0;
  };

  // Chunks for `threads` pool threads (with one thread, images in turn); a
  // single chunk for a small pass; none when the pass does not split (it
  // then runs whole on an OpenMP team of `threads`).
  static std::vector<Chunk> PlanChunks(ConvPass pass, const ConvGeom& g,
                                       int threads) {
    // Below a few million multiply-adds a split costs more than it saves.
    if (ConvFlops(g) < 4e6) return {Chunk{g, 0, 0}};
    // A forward pass on TensorFlow's layouts with few output pixels reads
    // a filter much larger than its images: split by images, every chunk
    // would read the whole filter from memory again. One call over the
    // whole batch reads it once (oneDNN splits the output channels among
    // its threads).
    if (pass == ConvPass::kForward && PlainForward(g)) return {};
    const int64_t in_image = g.in_rows * g.in_cols * g.in_depth;
    const int64_t out_image = g.out_rows * g.out_cols * g.out_depth;
    std::vector<Chunk> chunks;
    if (threads == 1) {
      // One image at a time (in turn): its reorders stay in cache.
      if (pass == ConvPass::kBackwardFilter) return {Chunk{g, 0, 0}};
      for (int64_t n = 0; n < g.batch; ++n) {
        Chunk c{g, n * in_image, n * out_image};
        c.geom.batch = 1;
        chunks.push_back(c);
      }
      return chunks;
    }
    // Whole images, when there are enough of them. The filter gradient
    // keeps one partial sum per chunk, so it makes about `threads` chunks.
    const int64_t wanted = pass == ConvPass::kBackwardFilter
                               ? threads
                               : static_cast<int64_t>(threads) * 4;
    if (g.batch >= threads) {
      const int64_t n = std::min<int64_t>(g.batch, wanted);
      const int64_t per = (g.batch + n - 1) / n;
      for (int64_t n0 = 0; n0 < g.batch; n0 += per) {
        Chunk c{g, n0 * in_image, n0 * out_image};
        c.geom.batch = std::min(per, g.batch - n0);
        chunks.push_back(c);
      }
      return chunks;
    }
    // Bands of rows of each image: output rows for the forward pass and the
    // filter gradient, input rows for the input gradient with unit row
    // stride. A strided input gradient of fewer images than threads runs
    // whole.
    const int64_t bands = (wanted + g.batch - 1) / g.batch;
    if (pass == ConvPass::kForward || pass == ConvPass::kBackwardFilter) {
      const int64_t per = (g.out_rows + bands - 1) / bands;
      const int64_t window = (g.filter_rows - 1) * g.dilation_rows + 1;
      for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t r0 = 0; r0 < g.out_rows; r0 += per) {
          const int64_t r1 = std::min(g.out_rows, r0 + per);
          const int64_t start = r0 * g.stride_rows - g.pad_top;
          const int64_t end = (r1 - 1) * g.stride_rows - g.pad_top + window;
          const int64_t in0 = std::clamp<int64_t>(start, 0, g.in_rows);
          const int64_t in1 = std::clamp<int64_t>(end, in0, g.in_rows);
          Chunk c{g, n * in_image + in0 * g.in_cols * g.in_depth,
                  n * out_image + r0 * g.out_cols * g.out_depth};
          c.geom.batch = 1;
          c.geom.in_rows = in1 - in0;
          c.geom.out_rows = r1 - r0;
          c.geom.pad_top = in0 - start;
          c.geom.pad_bottom = end - in1;
          chunks.push_back(c);
        }
      }
      return chunks;
    }
    if (pass == ConvPass::kBackwardData && g.stride_rows == 1) {
      const int64_t per = (g.in_rows + bands - 1) / bands;
      const int64_t window = (g.filter_rows - 1) * g.dilation_rows + 1;
      for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t i0 = 0; i0 < g.in_rows; i0 += per) {
          const int64_t i1 = std::min(g.in_rows, i0 + per);
          // Output rows whose windows reach input rows [i0, i1).
          const int64_t o0 =
              std::clamp<int64_t>(i0 + g.pad_top - window + 1, 0, g.out_rows);
          const int64_t o1 =
              std::clamp<int64_t>(i1 + g.pad_top, o0, g.out_rows);
          Chunk c{g, n * in_image + i0 * g.in_cols * g.in_depth,
                  n * out_image + o0 * g.out_cols * g.out_depth};
          c.geom.batch = 1;
          c.geom.in_rows = i1 - i0;
          c.geom.out_rows = o1 - o0;
          c.geom.pad_top = i0 + g.pad_top - o0;
          c.geom.pad_bottom =
              (c.geom.out_rows - 1) + window - c.geom.in_rows - c.geom.pad_top;
          chunks.push_back(c);
        }
      }
      return chunks;
    }
    return {};
  }

  // One oneDNN call (or the reference loops when oneDNN declines) on
  // `omp_threads` OpenMP threads. Pointers are the chunk's own.
  absl::Status RunChunk(OpKernelContext* ctx, ConvPass pass,
                        const ConvGeom& geom, float* input, float* filter,
                        float* output, int omp_threads) {
    float* result = pass == ConvPass::kForward        ? output
                    : pass == ConvPass::kBackwardData ? input
                                                      : filter;
    const int64_t result_size =
        pass == ConvPass::kForward
            ? geom.batch * geom.out_rows * geom.out_cols * geom.out_depth
        : pass == ConvPass::kBackwardData
            ? geom.batch * geom.in_rows * geom.in_cols * geom.in_depth
            : geom.filter_rows * geom.filter_cols *
                  geom.in_depth_per_group() * geom.out_depth;
    if (geom.in_rows <= 0 || geom.out_rows <= 0) {
      // A band of padding only, or of input no output window reaches.
      std::fill(result, result + result_size, 0.0f);
      return absl::OkStatus();
    }
    std::shared_ptr<const DnnlConv> conv = Lookup(pass, geom);
    if (conv == nullptr) {
      RunReferencePointers<float, float>(*ctx->device(), pass, geom, input,
                                         filter, output);
      return absl::OkStatus();
    }
    const dnnl::engine& engine = CpuEngine();
    Tensor scratchpad;
    DFX_RETURN_IF_ERROR(AllocateBytes(ctx, conv->scratchpad_md.get_size(),
                                      &scratchpad));
    float* data[3] = {input, filter, output};
    Tensor buffers[3];
    for (int i = 0; i < 3; ++i) {
      if (conv->operands[i].reorder) {
        DFX_RETURN_IF_ERROR(AllocateBytes(
            ctx, conv->operands[i].prim.get_size(), &buffers[i]));
      }
    }
    try {
      SetOpenMpThreads(omp_threads);
      dnnl::stream stream(engine);
      std::unordered_map<int, memory> args;
      memory user[3], prim[3];
      for (int i = 0; i < 3; ++i) {
        const Operand& op = conv->operands[i];
        user[i] = memory(op.user, engine, data[i]);
        prim[i] = op.reorder ? memory(op.prim, engine, buffers[i].raw_data())
                             : user[i];
        if (op.reorder && !op.written) {
          op.reorder_primitive.execute(
              stream, {{DNNL_ARG_FROM, user[i]}, {DNNL_ARG_TO, prim[i]}});
        }
        args.emplace(op.arg, prim[i]);
      }
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   memory(conv->scratchpad_md, engine, scratchpad.raw_data()));
      conv->primitive.execute(stream, args);
      for (int i = 0; i < 3; ++i) {
        const Operand& op = conv->operands[i];
        if (op.reorder && op.written) {
          op.reorder_primitive.execute(
              stream, {{DNNL_ARG_FROM, prim[i]}, {DNNL_ARG_TO, user[i]}});
        }
      }
      stream.wait();
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          absl::StrCat("oneDNN convolution failed: ", e.what()));
    }
    return absl::OkStatus();
  }

  absl::Mutex mu_;
  absl::flat_hash_map<CacheKey, std::shared_ptr<const DnnlConv>> cache_
      ABSL_GUARDED_BY(mu_);
};

ConvRunner::ConvRunner() : impl_(std::make_unique<Impl>()) {}
ConvRunner::~ConvRunner() = default;

bool ConvRunner::ReordersFilter(ConvPass pass, const ConvGeom& geom) {
  std::shared_ptr<const DnnlConv> conv = impl_->Lookup(pass, geom);
  return conv != nullptr && conv->operands[1].reorder;
}

std::string ConvRunner::ImplementationName(ConvPass pass,
                                           const ConvGeom& geom) {
  std::shared_ptr<const DnnlConv> conv = impl_->Lookup(pass, geom);
  return conv == nullptr ? "reference" : conv->impl;
}

absl::Status ConvRunner::Run(OpKernelContext* ctx, ConvPass pass,
                             const ConvGeom& geom, Tensor* input,
                             Tensor* filter, Tensor* output) {
  Tensor* result = pass == ConvPass::kForward        ? output
                   : pass == ConvPass::kBackwardData ? input
                                                     : filter;
  if (result->NumElements() == 0) return absl::OkStatus();
  if (input->NumElements() == 0 || filter->NumElements() == 0 ||
      output->NumElements() == 0) {
    // An empty sum.
    std::memset(result->raw_data(), 0, result->TotalBytes());
    return absl::OkStatus();
  }
  const Device& device = *ctx->device();
  switch (result->dtype()) {
    case DT_FLOAT:
      return impl_->RunFloat(ctx, pass, geom, input, filter, output);
    case DT_DOUBLE:
      RunReference<double, double>(device, pass, geom, input, filter, output);
      return absl::OkStatus();
    case DT_INT32:
      // Products and sums wrap around like TensorFlow's int32 arithmetic;
      // accumulating in int64 and truncating gives the same bits.
      RunReference<int32_t, int64_t>(device, pass, geom, input, filter,
                                     output);
      return absl::OkStatus();
    case DT_HALF:
    case DT_BFLOAT16: {
      // Widen to float, compute in float, round once at the end.
      Tensor* tensors[3] = {input, filter, output};
      Tensor widened[3];
      for (int i = 0; i < 3; ++i) {
        DFX_RETURN_IF_ERROR(
            ctx->allocate_temp(DT_FLOAT, tensors[i]->shape(), &widened[i]));
        if (tensors[i] != result) {
          ConvertElements(device, *tensors[i], &widened[i]);
        }
      }
      DFX_RETURN_IF_ERROR(impl_->RunFloat(ctx, pass, geom, &widened[0],
                                          &widened[1], &widened[2]));
      const int r = result == input ? 0 : result == filter ? 1 : 2;
      ConvertElements(device, widened[r], result);
      return absl::OkStatus();
    }
    default:
      return absl::UnimplementedError(absl::StrCat(
          "convolution of ", DataTypeString(result->dtype()),
          " is not supported"));
  }
}

}  // namespace dfx::conv_internal

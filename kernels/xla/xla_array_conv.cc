// XlaConv and XlaConvV2 (XLA's ConvGeneralDilated) and XlaEinsum.
//
// ConvGeneralDilated: the dimension numbers (a serialized
// xla.ConvolutionDimensionNumbers) name the batch, feature and spatial
// dims of the input, kernel and output. Each output element sums, over its
// group's input features and the kernel's window, the input at
// y * stride + k * rhs_dilation - padding_low in the input dilated by
// lhs_dilation (holes and padding read zero). feature_group_count splits
// the input features into groups, each with its share of the output
// features; batch_group_count splits the batch the same way. Plain loops
// over precomputed strides, one instantiation per output type.
//
// XlaEinsum: two operands, any labels TensorFlow's Einsum accepts
// (graph/ops/einsum_equation.h), summed over the labels the output lacks.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/einsum_equation.h"
#include "kernels/array/array_util.h"
#include "kernels/xla/xla_array_util.h"
#include "kernels/xla/xla_array_convert.h"
#include "proto/xla_data.pb.h"
#include "runtime/op_kernel.h"

namespace dfx::xla_array {
namespace {

using array_internal::ReadInts;

std::vector<int64_t> StridesOf(const TensorShape& s) {
  std::vector<int64_t> st(s.dims());
  int64_t acc = 1;
  for (int d = s.dims() - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s.dim_size(d);
  }
  return st;
}

// A convolution's geometry, every dim resolved.
struct ConvPlan {
  int n = 0;  // spatial dims
  int64_t batch = 0, in_feat = 0, out_feat = 0, kin_feat = 0;
  int64_t feature_groups = 1, batch_groups = 1;
  std::vector<int64_t> in_size, k_size, out_size, stride, lo, lhs_dil, rhs_dil;
  // Strides of each operand's dims, by role.
  int64_t lb = 0, lf = 0, kb = 0, kf = 0, ob = 0, of = 0;
  std::vector<int64_t> ls, ks, os;
  TensorShape out_shape;
};

absl::Status BadConv(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

// Checks that `dims` name each of a rank-`rank` operand's dims once.
absl::Status CheckPermutation(const std::vector<int64_t>& dims, int rank,
                              const char* what) {
  std::vector<bool> seen(rank, false);
  if (static_cast<int>(dims.size()) != rank) {
    return BadConv(absl::StrCat("the ", what, "'s dimension numbers name ",
                                dims.size(), " dims of a rank-", rank,
                                " operand"));
  }
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) {
      return BadConv(absl::StrCat("the ", what,
                                  "'s dimension numbers name "
                                  "dimension ",
                                  d, " out of range or twice"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<ConvPlan> PlanConv(const xla::ConvolutionDimensionNumbers& dn,
                                  const TensorShape& lhs,
                                  const TensorShape& rhs, OpKernelContext* ctx,
                                  int64_t batch_groups) {
  ConvPlan p;
  p.n = dn.input_spatial_dimensions_size();
  const int n = p.n;
  if (dn.kernel_spatial_dimensions_size() != n ||
      dn.output_spatial_dimensions_size() != n) {
    return BadConv(
        "the input, kernel and output dimension numbers name "
        "different numbers of spatial dims");
  }
  std::vector<int64_t> li = {dn.input_batch_dimension(),
                             dn.input_feature_dimension()};
  std::vector<int64_t> ki = {dn.kernel_input_feature_dimension(),
                             dn.kernel_output_feature_dimension()};
  std::vector<int64_t> oi = {dn.output_batch_dimension(),
                             dn.output_feature_dimension()};
  for (int i = 0; i < n; ++i) {
    li.push_back(dn.input_spatial_dimensions(i));
    ki.push_back(dn.kernel_spatial_dimensions(i));
    oi.push_back(dn.output_spatial_dimensions(i));
  }
  DFX_RETURN_IF_ERROR(CheckPermutation(li, lhs.dims(), "input"));
  DFX_RETURN_IF_ERROR(CheckPermutation(ki, rhs.dims(), "kernel"));
  DFX_RETURN_IF_ERROR(CheckPermutation(oi, n + 2, "output"));
  // The int inputs: strides, padding, dilations, feature_group_count.
  auto vec = [&](int input, const char* what,
                 int64_t len) -> absl::StatusOr<std::vector<int64_t>> {
    const Tensor& t = ctx->input(input);
    if (t.NumElements() != len) {
      return BadConv(absl::StrCat(what, " must have ", len,
                                  " elements, got shape ",
                                  t.shape().DebugString()));
    }
    return ReadInts(t);
  };
  DFX_ASSIGN_OR_RETURN(p.stride, vec(2, "window_strides", n));
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, vec(3, "padding", 2 * n));
  DFX_ASSIGN_OR_RETURN(p.lhs_dil, vec(4, "lhs_dilation", n));
  DFX_ASSIGN_OR_RETURN(p.rhs_dil, vec(5, "rhs_dilation", n));
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> groups,
                       vec(6, "feature_group_count", 1));
  p.feature_groups = groups[0];
  p.batch_groups = batch_groups;
  p.batch = lhs.dim_size(static_cast<int>(li[0]));
  p.in_feat = lhs.dim_size(static_cast<int>(li[1]));
  p.kin_feat = rhs.dim_size(static_cast<int>(ki[0]));
  p.out_feat = rhs.dim_size(static_cast<int>(ki[1]));
  if (p.feature_groups < 1 || p.batch_groups < 1) {
    return BadConv(absl::StrCat(
        "feature_group_count and batch_group_count must be positive, got ",
        p.feature_groups, " and ", p.batch_groups));
  }
  if (p.feature_groups > 1 && p.batch_groups > 1) {
    return BadConv(
        "feature_group_count and batch_group_count cannot both "
        "be above 1");
  }
  if (p.in_feat != p.kin_feat * p.feature_groups) {
    return BadConv(absl::StrCat("the input's ", p.in_feat,
                                " features are not the kernel's ", p.kin_feat,
                                " input features times feature_group_count ",
                                p.feature_groups));
  }
  if (p.out_feat % p.feature_groups != 0 || p.out_feat % p.batch_groups != 0) {
    return BadConv(absl::StrCat("the kernel's ", p.out_feat,
                                " output features are not a multiple of "
                                "the group count"));
  }
  if (p.batch % p.batch_groups != 0) {
    return BadConv(absl::StrCat("the input batch ", p.batch,
                                " is not a multiple of batch_group_count ",
                                p.batch_groups));
  }
  std::vector<int64_t> out_dims(n + 2);
  out_dims[oi[0]] = p.batch / p.batch_groups;
  out_dims[oi[1]] = p.out_feat;
  for (int i = 0; i < n; ++i) {
    if (p.stride[i] < 1 || p.lhs_dil[i] < 1 || p.rhs_dil[i] < 1) {
      return BadConv("window strides and dilations must be positive");
    }
    // Beyond 2^40 the size arithmetic could overflow.
    constexpr int64_t kLimit = int64_t{1} << 40;
    if (p.lhs_dil[i] > kLimit || p.rhs_dil[i] > kLimit ||
        std::abs(padding[2 * i]) > kLimit ||
        std::abs(padding[2 * i + 1]) > kLimit) {
      return BadConv("window dilations or padding too large");
    }
    p.in_size.push_back(lhs.dim_size(static_cast<int>(li[2 + i])));
    p.k_size.push_back(rhs.dim_size(static_cast<int>(ki[2 + i])));
    p.lo.push_back(padding[2 * i]);
    const int64_t dilated_in =
        p.in_size[i] == 0 ? 0 : (p.in_size[i] - 1) * p.lhs_dil[i] + 1;
    const int64_t padded = dilated_in + padding[2 * i] + padding[2 * i + 1];
    const int64_t window =
        p.k_size[i] == 0 ? 0 : (p.k_size[i] - 1) * p.rhs_dil[i] + 1;
    const int64_t out =
        padded < window ? 0 : (padded - window) / p.stride[i] + 1;
    if (padded < 0) {
      return BadConv("the padded input has a negative size");
    }
    p.out_size.push_back(out);
    out_dims[oi[2 + i]] = out;
  }
  DFX_ASSIGN_OR_RETURN(p.out_shape, TensorShape::Build(out_dims));
  const std::vector<int64_t> lst = StridesOf(lhs);
  const std::vector<int64_t> kst = StridesOf(rhs);
  const std::vector<int64_t> ost = StridesOf(p.out_shape);
  p.lb = lst[li[0]];
  p.lf = lst[li[1]];
  p.kb = kst[ki[0]];
  p.kf = kst[ki[1]];
  p.ob = ost[oi[0]];
  p.of = ost[oi[1]];
  for (int i = 0; i < n; ++i) {
    p.ls.push_back(lst[li[2 + i]]);
    p.ks.push_back(kst[ki[2 + i]]);
    p.os.push_back(ost[oi[2 + i]]);
  }
  return p;
}

template <typename T>
void RunConv(const ConvPlan& p, const T* l, const T* k, T* out) {
  const int n = p.n;
  const int64_t out_batch = p.batch / p.batch_groups;
  const int64_t fg_out = p.out_feat / p.feature_groups;
  const int64_t bg_out = p.out_feat / p.batch_groups;
  int64_t spatial_total = 1, window_total = 1;
  for (int i = 0; i < n; ++i) {
    spatial_total *= p.out_size[i];
    window_total *= p.k_size[i];
  }
  std::vector<int64_t> y(n), w(n);
  for (int64_t b = 0; b < out_batch; ++b) {
    for (int64_t o = 0; o < p.out_feat; ++o) {
      const int64_t fgroup = o / fg_out;
      const int64_t lhs_batch = (o / bg_out) * out_batch + b;
      std::fill(y.begin(), y.end(), 0);
      for (int64_t s = 0; s < spatial_total; ++s) {
        Acc<T> acc{};
        std::fill(w.begin(), w.end(), 0);
        for (int64_t win = 0; win < window_total; ++win) {
          int64_t loff = lhs_batch * p.lb, koff = o * p.kf;
          bool inside = true;
          for (int i = 0; i < n && inside; ++i) {
            const int64_t pos =
                y[i] * p.stride[i] + w[i] * p.rhs_dil[i] - p.lo[i];
            if (pos < 0 || pos % p.lhs_dil[i] != 0 ||
                pos / p.lhs_dil[i] >= p.in_size[i]) {
              inside = false;
            } else {
              loff += (pos / p.lhs_dil[i]) * p.ls[i];
              koff += w[i] * p.ks[i];
            }
          }
          if (inside) {
            for (int64_t c = 0; c < p.kin_feat; ++c) {
              acc += static_cast<Acc<T>>(
                         l[loff + (fgroup * p.kin_feat + c) * p.lf]) *
                     static_cast<Acc<T>>(k[koff + c * p.kb]);
            }
          }
          for (int i = n - 1; i >= 0; --i) {
            if (++w[i] < p.k_size[i]) break;
            w[i] = 0;
          }
        }
        int64_t ooff = b * p.ob + o * p.of;
        for (int i = 0; i < n; ++i) ooff += y[i] * p.os[i];
        out[ooff] = static_cast<T>(acc);
        for (int i = n - 1; i >= 0; --i) {
          if (++y[i] < p.out_size[i]) break;
          y[i] = 0;
        }
      }
    }
  }
}

absl::Status ParseProtoAttr(OpKernelConstruction* ctx, const char* attr,
                            google::protobuf::MessageLite* msg) {
  std::string bytes;
  DFX_RETURN_IF_ERROR(ctx->GetAttr(attr, &bytes));
  if (!msg->ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attr '", attr, "' is not a serialized xla.", msg->GetTypeName()));
  }
  return absl::OkStatus();
}

// XlaConv (kV2 false: one type T) and XlaConvV2.
template <bool kV2>
class XlaConvOp : public OpKernel {
 public:
  explicit XlaConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ParseProtoAttr(ctx, "dimension_numbers", &dn_));
    xla::PrecisionConfig precision;
    ctx->SetStatus(ParseProtoAttr(ctx, "precision_config", &precision));
    if constexpr (kV2) {
      ctx->SetStatus(ctx->GetAttr("batch_group_count", &batch_groups_));
    }
  }

  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& lhs = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFX_ASSIGN_OR_RETURN(ConvPlan plan, PlanConv(dn_, lhs.shape(), rhs.shape(),
                                                 ctx, batch_groups_));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, plan.out_shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const bool served = VisitDotType(out->dtype(), [&]<typename T>() {
      if (!kV2 ||
          (lhs.dtype() == out->dtype() && rhs.dtype() == out->dtype())) {
        RunConv<T>(plan, lhs.data<T>(), rhs.data<T>(), out->data<T>());
      } else {
        std::vector<T> l = ConvertTo<T>(lhs);
        std::vector<T> r = ConvertTo<T>(rhs);
        RunConv<T>(plan, l.data(), r.data(), out->data<T>());
      }
    });
    if (!served) {
      return absl::InvalidArgumentError(absl::StrCat(
          "no XLA CPU kernel for type ", DataTypeString(out->dtype())));
    }
    return absl::OkStatus();
  }

  xla::ConvolutionDimensionNumbers dn_;
  int64_t batch_groups_ = 1;
};

// XlaEinsum: out[o] = sum over the labels the output lacks of a[..] * b[..].
class XlaEinsumOp : public OpKernel {
 public:
  explicit XlaEinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    ctx->SetStatus(ctx->GetAttr("equation", &equation));
    auto eq = ParseEinsumEquation(equation, 2);
    if (!eq.ok()) {
      ctx->SetStatus(eq.status());
    } else {
      eq_ = *std::move(eq);
    }
  }

  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFX_ASSIGN_OR_RETURN(ResolvedEinsum r,
                         ResolveEinsum(eq_, {a.dims(), b.dims()}));
    const int nl = r.num_labels;
    std::vector<int64_t> size(nl, -1);
    std::vector<int64_t> astride(nl, 0), bstride(nl, 0);
    const Tensor* ops[2] = {&a, &b};
    for (int i = 0; i < 2; ++i) {
      const std::vector<int64_t> st = StridesOf(ops[i]->shape());
      for (int d = 0; d < ops[i]->dims(); ++d) {
        const int label = r.inputs[i][d];
        const int64_t dim = ops[i]->dim_size(d);
        const bool broadcast = label >= r.num_named;
        if (broadcast && dim == 1) continue;  // stride 0: broadcast
        if (size[label] >= 0 && size[label] != dim) {
          return absl::InvalidArgumentError(
              absl::StrCat("Expected dimension ", size[label], " at axis ", d,
                           " of input ", i, ", got ", dim));
        }
        size[label] = dim;
        (i == 0 ? astride : bstride)[label] += st[d];
      }
    }
    for (int64_t& s : size) {
      if (s < 0) s = 1;
    }
    std::vector<int64_t> out_dims;
    std::vector<bool> in_out(nl, false);
    for (int label : r.output) {
      out_dims.push_back(size[label]);
      in_out[label] = true;
    }
    // Labels in output order, then the summed ones.
    std::vector<int> order(r.output.begin(), r.output.end());
    for (int l = 0; l < nl; ++l) {
      if (!in_out[l]) order.push_back(l);
    }
    DFX_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    const int64_t total = out->NumElements();
    if (total == 0) return absl::OkStatus();
    int64_t inner = 1;
    for (size_t i = r.output.size(); i < order.size(); ++i) {
      inner *= size[order[i]];
    }
    auto run = [&]<typename T>() {
      const T* ap = a.data<T>();
      const T* bp = b.data<T>();
      T* op = out->data<T>();
      std::vector<int64_t> idx(order.size(), 0);
      for (int64_t o = 0; o < total; ++o) {
        Acc<T> acc{};
        for (int64_t s = 0; s < inner; ++s) {
          int64_t ao = 0, bo = 0;
          for (size_t i = 0; i < order.size(); ++i) {
            ao += idx[i] * astride[order[i]];
            bo += idx[i] * bstride[order[i]];
          }
          acc += static_cast<Acc<T>>(ap[ao]) * static_cast<Acc<T>>(bp[bo]);
          // The odometer over every label; the summed ones turn fastest.
          for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
            if (++idx[i] < size[order[i]]) break;
            idx[i] = 0;
          }
        }
        op[o] = static_cast<T>(acc);
      }
    };
    switch (a.dtype()) {
      case DT_FLOAT:
        run.template operator()<float>();
        break;
      case DT_BFLOAT16:
        run.template operator()<Eigen::bfloat16>();
        break;
      case DT_COMPLEX64:
        run.template operator()<std::complex<float>>();
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "XlaEinsum does not serve ", DataTypeString(a.dtype())));
    }
    return absl::OkStatus();
  }

  EinsumEquation eq_;
};

}  // namespace

void RegisterXlaConvKernels(KernelRegistry* registry) {
  const DataTypeVector ints = {DT_INT32, DT_INT64};
  for (const char* op : {"XlaConv", "XlaConvV2"}) {
    KernelDefBuilder def(op);
    def.TypeConstraint("Tindices", ints)
        .HostMemory("window_strides")
        .HostMemory("padding")
        .HostMemory("lhs_dilation")
        .HostMemory("rhs_dilation")
        .HostMemory("feature_group_count");
    if (std::string(op) == "XlaConv") {
      RegisterKernel<XlaConvOp<false>>(registry, def);
    } else {
      RegisterKernel<XlaConvOp<true>>(registry, def);
    }
  }
  RegisterKernel<XlaEinsumOp>(registry, KernelDefBuilder("XlaEinsum"));
}

}  // namespace dfx::xla_array

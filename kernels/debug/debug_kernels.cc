// The debug family's kernels: what tfdbg inserts on watched tensors.
// Copy/CopyHost (a deep copy), DebugIdentity, DebugNanCount and
// DebugNumericSummary (tfdbg v1: the tensor, or a summary of it, output and
// dumped to file:// debug URLs, debug_dump.h), DebugIdentityV2 (a pass-
// through; its DebugEvent files are not written), DebugNumericSummaryV2 (the
// tfdbg v2 health summaries), DebugGradientIdentity and
// DebugGradientRefIdentity. Semantics follow TensorFlow 2.21's
// kernels/debug_ops.h; numbers are computed in the same order, so the
// outputs equal TensorFlow's bit for bit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "kernels/debug/debug_dump.h"
#include "runtime/op_kernel.h"
#include "runtime/types.h"

namespace dfx {
namespace {

constexpr char kFileScheme[] = "file://";
constexpr char kGrpcScheme[] = "grpc://";

bool HasScheme(const std::string& url, const char* scheme) {
  return absl::StartsWith(absl::AsciiStrToLower(url), scheme);
}

absl::Status NoDebugServer(const std::string& node, const std::string& url) {
  return absl::UnimplementedError(absl::StrCat(
      "node ", node, ": debug URL ", url,
      ": dfx hosts no tfdbg debug server and sends no tensors over gRPC; "
      "use a file:// debug URL"));
}

// Copy and CopyHost: a copy of the input in a buffer of its own; tensors of
// types that cannot be copied bytewise (strings, resources, variants) are
// passed on, as TensorFlow's CopyOp does.
class CopyOp : public OpKernel {
 public:
  explicit CopyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    std::vector<std::string> specs;
    ctx->SetStatus(ctx->GetAttr("debug_ops_spec", &specs));
    for (const std::string& spec : specs) {
      // <debug_op>;<debug_url>;<gated_grpc>
      std::vector<std::string> items = absl::StrSplit(spec, ';');
      if (items.size() != 3) {
        ctx->SetStatus(absl::InternalError(absl::StrCat(
            "Unexpected number of semicolons in debug_ops_spec element: ",
            spec)));
        return;
      }
      // A gated gRPC watch is open only while a debug server asks for the
      // tensor; dfx talks to none, so only the other watches open the gate.
      if (!(items[2] == "1" && absl::StartsWith(items[1], kGrpcScheme))) {
        gate_open_ = true;
      }
    }
    if (specs.empty()) gate_open_ = true;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const DataType t = in.dtype();
    if (gate_open_ && in.IsInitialized() && t != DT_STRING &&
        t != DT_RESOURCE && t != DT_VARIANT) {
      ctx->set_output(0, in.DeepCopy());
    } else {
      ctx->set_output(0, in);
    }
  }

 private:
  bool gate_open_ = false;
};

// What DebugIdentity, DebugNanCount and DebugNumericSummary share: the
// watch key from the device_name and tensor_name attrs, and publishing a
// tensor to the file:// debug URLs.
class BaseDebugOp : public OpKernel {
 public:
  BaseDebugOp(const char* debug_op, OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    key_.debug_op = debug_op;
    std::string tensor_name;
    absl::Status s = ctx->GetAttr("debug_urls", &urls_);
    if (s.ok()) s = ctx->GetAttr("gated_grpc", &gated_grpc_);
    if (s.ok()) s = ctx->GetAttr("device_name", &key_.device_name);
    if (s.ok()) s = ctx->GetAttr("tensor_name", &tensor_name);
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      return;
    }
    std::vector<std::string> items = absl::StrSplit(tensor_name, ':');
    // TensorFlow's str_util::Split gives no parts for "".
    if (tensor_name.empty() || items.size() > 2) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Failed to parse tensor name: \"", tensor_name, "\"")));
      return;
    }
    key_.node_name = items[0];
    if (items.size() == 2 && !absl::SimpleAtoi(items[1], &key_.output_slot)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Invalid string value for output_slot: \"", items[1], "\"")));
      return;
    }
    for (const std::string& url : urls_) {
      if (HasScheme(url, kFileScheme)) continue;
      if (HasScheme(url, kGrpcScheme) || HasScheme(url, "memcbk://")) {
        ctx->SetStatus(NoDebugServer(def().name(), url));
      } else {
        ctx->SetStatus(absl::UnavailableError(
            absl::StrCat("Invalid debug target URL: ", url)));
      }
      return;
    }
  }

 protected:
  // Writes `tensor` to every debug URL; Internal naming each failure, as
  // TensorFlow's DebugIO::PublishDebugTensor.
  absl::Status Publish(const Tensor& tensor) const {
    if (urls_.empty()) return absl::OkStatus();
    const uint64_t now_us =
        static_cast<uint64_t>(absl::GetCurrentTimeNanos()) / 1000;
    std::vector<std::string> failures;
    for (const std::string& url : urls_) {
      absl::StatusOr<std::string> path = debug::DumpTensorToDir(
          key_, tensor, now_us, url.substr(sizeof(kFileScheme) - 1));
      if (!path.ok()) failures.emplace_back(path.status().message());
    }
    if (failures.empty()) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("node ", def().name(), ": publishing to ", failures.size(),
                     " of ", urls_.size(),
                     " debug target URLs failed, due to the following errors: ",
                     absl::StrJoin(failures, "; ")));
  }

 private:
  debug::DebugWatchKey key_;
  std::vector<std::string> urls_;
  bool gated_grpc_ = false;
};

class DebugIdentityOp : public BaseDebugOp {
 public:
  explicit DebugIdentityOp(OpKernelConstruction* ctx)
      : BaseDebugOp("DebugIdentity", ctx) {}
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Publish(ctx->input(0)));
    ctx->set_output(0, ctx->input(0));
  }
};

// The element as a double, as TensorFlow's static_cast<double>.
template <typename T>
double AsDouble(T x) {
  if constexpr (std::is_same_v<T, Eigen::half> ||
                std::is_same_v<T, Eigen::bfloat16>) {
    return static_cast<double>(static_cast<float>(x));
  } else {
    return static_cast<double>(x);
  }
}

template <typename T>
class DebugNanCountOp : public BaseDebugOp {
 public:
  explicit DebugNanCountOp(OpKernelConstruction* ctx)
      : BaseDebugOp("DebugNanCount", ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    int64_t nan_count = 0;
    if (in.IsInitialized()) {
      for (const T& x : in.span<T>()) nan_count += std::isnan(AsDouble(x));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &out));
    out->data<int64_t>()[0] = nan_count;
    DFX_OP_REQUIRES_OK(ctx, Publish(*out));
  }
};

// [initialized, elements, NaN, -Inf, negative, zero, positive, +Inf, min,
// max, mean, variance, dtype, rank, dims...]: finite elements at or beyond
// a finite lower_bound (upper_bound) count as -Inf (+Inf).
template <typename T>
class DebugNumericSummaryOp : public BaseDebugOp {
 public:
  explicit DebugNumericSummaryOp(OpKernelConstruction* ctx)
      : BaseDebugOp("DebugNumericSummary", ctx) {
    absl::Status s = ctx->GetAttr("lower_bound", &lower_bound_);
    if (s.ok()) s = ctx->GetAttr("upper_bound", &upper_bound_);
    if (s.ok()) s = ctx->GetAttr("mute_if_healthy", &mute_if_healthy_);
    ctx->SetStatus(std::move(s));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    int64_t initialized = 0, elements = 0, neg_inf = 0, negative = 0, zero = 0,
            positive = 0, pos_inf = 0, nan = 0, finite = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double sum = 0.0;
    double mean = std::numeric_limits<double>::quiet_NaN();
    double variance = std::numeric_limits<double>::quiet_NaN();
    if (in.IsInitialized()) {
      initialized = 1;
      absl::Span<const T> v = in.span<T>();
      elements = static_cast<int64_t>(v.size());
      const bool custom_lower = !std::isinf(lower_bound_);
      const bool custom_upper = !std::isinf(upper_bound_);
      for (const T& e : v) {
        const double x = AsDouble(e);
        if (std::isnan(x)) {
          ++nan;
        } else if (std::isinf(x)) {
          ++(x < 0.0 ? neg_inf : pos_inf);
        } else {
          if (custom_lower && x <= lower_bound_) {
            ++neg_inf;
          } else if (custom_upper && x >= upper_bound_) {
            ++pos_inf;
          } else if (x < 0.0) {
            ++negative;
          } else if (x > 0.0) {
            ++positive;
          } else {
            ++zero;
          }
          if (x < min) min = x;
          if (x > max) max = x;
          ++finite;
          sum += x;
        }
      }
      if (finite > 0) {
        mean = sum / static_cast<double>(finite);
        variance = 0.0;
        for (const T& e : v) {
          const double x = AsDouble(e);
          if (!std::isnan(x) && !std::isinf(x)) {
            variance += (x - mean) * (x - mean);
          }
        }
        variance /= static_cast<double>(finite);
      }
    }
    const int rank = in.dims();
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({14 + rank}), &out));
    double* o = out->data<double>();
    const int64_t counts[] = {initialized, elements, nan,      neg_inf,
                              negative,    zero,     positive, pos_inf};
    for (int i = 0; i < 8; ++i) o[i] = static_cast<double>(counts[i]);
    o[8] = min;
    o[9] = max;
    o[10] = mean;
    o[11] = variance;
    // The declared type: an uninitialized variable's tensor has none.
    o[12] = static_cast<double>(BaseType(input_type(0)));
    o[13] = static_cast<double>(rank);
    for (int d = 0; d < rank; ++d) {
      o[14 + d] = static_cast<double>(in.dim_size(d));
    }
    const bool mute =
        mute_if_healthy_ && nan == 0 && neg_inf == 0 && pos_inf == 0;
    if (!mute) DFX_OP_REQUIRES_OK(ctx, Publish(*out));
  }

 private:
  float lower_bound_ = 0;
  float upper_bound_ = 0;
  bool mute_if_healthy_ = false;
};

// tfdbg v2's identity: passes the tensor on. The DebugEvent files its
// dump roots name are not written: a dump root is Unimplemented.
class DebugIdentityV2Op : public OpKernel {
 public:
  explicit DebugIdentityV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    std::vector<std::string> urls;
    ctx->SetStatus(ctx->GetAttr("debug_urls", &urls));
    for (const std::string& url : urls) {
      if (!absl::StartsWith(url, kFileScheme)) {
        ctx->SetStatus(absl::InternalError(
            absl::StrCat("Unsupported debug URL schema in: ", url)));
        return;
      }
    }
    if (!urls.empty()) {
      ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
          "node ", def().name(), ": DebugIdentityV2 with dump root ",
          urls[0].substr(sizeof(kFileScheme) - 1),
          ": dfx does not write tfdbg v2 DebugEvent files; only the "
          "pass-through without debug_urls is supported")));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

// TensorDebugMode values of tensorflow/core/protobuf/debug_event.proto.
enum TensorDebugMode {
  kCurtHealth = 2,
  kConciseHealth = 3,
  kFullHealth = 4,
  kShape = 5,
  kReduceInfNanThreeSlots = 8,
};

template <typename T>
bool IsFinite(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isfinite(x);
  } else if constexpr (std::is_same_v<T, Eigen::half> ||
                       std::is_same_v<T, Eigen::bfloat16>) {
    return std::isfinite(static_cast<float>(x));
  } else {
    return true;
  }
}

template <typename T>
bool IsInf(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isinf(x);
  } else if constexpr (std::is_same_v<T, Eigen::half> ||
                       std::is_same_v<T, Eigen::bfloat16>) {
    return std::isinf(static_cast<float>(x));
  } else {
    return false;
  }
}

template <typename T>
bool IsNegative(T x) {
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return false;
  } else {
    return AsDouble(x) < 0.0;
  }
}

template <typename T>
bool IsZero(T x) {
  return AsDouble(x) == 0.0;
}

// The counters and slots are of the output type, incremented as
// TensorFlow's are (a float counter stops at 2^24).
template <typename Tin, typename Tout>
absl::Status SummarizeV2(OpKernelContext* ctx, int mode, int64_t tensor_id) {
  const Tensor& in = ctx->input(0);
  absl::Span<const Tin> v = in.span<Tin>();
  const Tout id = static_cast<Tout>(tensor_id);
  const Tout num_elem = static_cast<Tout>(in.NumElements());
  constexpr int64_t kMaxTensorId = int64_t{1}
                                   << std::numeric_limits<Tout>::digits;
  if (mode != kReduceInfNanThreeSlots && tensor_id > kMaxTensorId) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DebugNumericSummaryV2Op requires tensor_id to be less than or equal "
        "to (2^",
        std::numeric_limits<Tout>::digits, "). Given tensor_id:", tensor_id));
  }
  Tensor* out = nullptr;
  Tout* o = nullptr;
  auto allocate = [&](int64_t n) -> absl::Status {
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n}), &out));
    o = out->data<Tout>();
    for (int64_t i = 0; i < n; ++i) o[i] = Tout(0);
    return absl::OkStatus();
  };
  switch (mode) {
    case kCurtHealth: {
      DFX_RETURN_IF_ERROR(allocate(2));
      o[0] = id;
      for (const Tin& x : v) {
        if (!IsFinite(x)) {
          o[1] = Tout(1);
          break;
        }
      }
      return absl::OkStatus();
    }
    case kConciseHealth: {
      DFX_RETURN_IF_ERROR(allocate(5));
      o[0] = id;
      o[1] = num_elem;
      Tout counts[3] = {0, 0, 0};  // -inf, +inf, nan
      for (const Tin& x : v) {
        if (IsFinite(x)) continue;
        if (IsInf(x)) {
          ++counts[IsNegative(x) ? 0 : 1];
        } else {
          ++counts[2];
        }
      }
      for (int i = 0; i < 3; ++i) o[2 + i] = counts[i];
      return absl::OkStatus();
    }
    case kFullHealth: {
      DFX_RETURN_IF_ERROR(allocate(11));
      o[0] = id;
      o[1] = Tout(-1);  // the device id, which TensorFlow leaves -1
      o[2] = static_cast<Tout>(in.dtype());
      o[3] = static_cast<Tout>(in.dims());
      o[4] = num_elem;
      // -inf, +inf, nan, negative, zero, positive
      Tout counts[6] = {0, 0, 0, 0, 0, 0};
      for (const Tin& x : v) {
        if (IsFinite(x)) {
          ++counts[IsNegative(x) ? 3 : (IsZero(x) ? 4 : 5)];
        } else if (IsInf(x)) {
          ++counts[IsNegative(x) ? 0 : 1];
        } else {
          ++counts[2];
        }
      }
      for (int i = 0; i < 6; ++i) o[5 + i] = counts[i];
      return absl::OkStatus();
    }
    case kShape: {
      DFX_RETURN_IF_ERROR(allocate(10));
      const int rank = in.dims();
      o[0] = id;
      o[1] = static_cast<Tout>(in.dtype());
      o[2] = static_cast<Tout>(rank);
      o[3] = num_elem;
      // The last six dimensions, zero-padded on the right.
      const int first = rank > 6 ? rank - 6 : 0;
      for (int i = first, slot = 4; i < rank; ++i, ++slot) {
        o[slot] = static_cast<Tout>(in.dim_size(i));
      }
      return absl::OkStatus();
    }
    case kReduceInfNanThreeSlots: {
      DFX_RETURN_IF_ERROR(allocate(3));
      bool neg_inf = false, pos_inf = false, nan = false;
      for (const Tin& x : v) {
        if (IsFinite(x)) continue;
        if (IsInf(x)) {
          (IsNegative(x) ? neg_inf : pos_inf) = true;
        } else {
          nan = true;
        }
      }
      if (neg_inf) o[0] = -std::numeric_limits<Tout>::infinity();
      if (pos_inf) o[1] = std::numeric_limits<Tout>::infinity();
      if (nan) o[2] = std::numeric_limits<Tout>::quiet_NaN();
      return absl::OkStatus();
    }
    default:
      return absl::UnimplementedError(
          absl::StrCat("Unimplemented tensor debug mode: ", mode));
  }
}

template <typename Tin>
class DebugNumericSummaryV2Op : public OpKernel {
 public:
  explicit DebugNumericSummaryV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    absl::Status s = ctx->GetAttr("tensor_debug_mode", &mode_);
    if (s.ok()) s = ctx->GetAttr("tensor_id", &tensor_id_);
    ctx->SetStatus(std::move(s));
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx,
                       output_type(0) == DT_DOUBLE
                           ? SummarizeV2<Tin, double>(ctx, mode_, tensor_id_)
                           : SummarizeV2<Tin, float>(ctx, mode_, tensor_id_));
  }

 private:
  int mode_ = -1;
  int64_t tensor_id_ = -1;
};

class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

class ForwardRefOp : public OpKernel {
 public:
  explicit ForwardRefOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
};

template <template <typename> class Op, typename T>
void RegisterTyped(KernelRegistry* r, const char* op) {
  RegisterKernel<Op<T>>(r, KernelDefBuilder(op).TypeConstraint<T>("T"));
}

// The integer and real types TensorFlow's numeric debug kernels share.
template <template <typename> class Op>
void RegisterRealTypes(KernelRegistry* r, const char* op) {
  RegisterTyped<Op, float>(r, op);
  RegisterTyped<Op, double>(r, op);
  RegisterTyped<Op, int8_t>(r, op);
  RegisterTyped<Op, int16_t>(r, op);
  RegisterTyped<Op, int32_t>(r, op);
  RegisterTyped<Op, int64_t>(r, op);
  RegisterTyped<Op, uint8_t>(r, op);
  RegisterTyped<Op, uint16_t>(r, op);
  RegisterTyped<Op, uint32_t>(r, op);
  RegisterTyped<Op, uint64_t>(r, op);
}

}  // namespace

void RegisterDebugKernels(KernelRegistry* r) {
  RegisterKernel<CopyOp>(r, KernelDefBuilder("Copy"));
  RegisterKernel<CopyOp>(r, KernelDefBuilder("CopyHost"));
  RegisterKernel<DebugIdentityOp>(r, KernelDefBuilder("DebugIdentity"));
  RegisterKernel<DebugIdentityV2Op>(r, KernelDefBuilder("DebugIdentityV2"));
  RegisterKernel<ForwardOp>(r, KernelDefBuilder("DebugGradientIdentity"));
  RegisterKernel<ForwardRefOp>(r, KernelDefBuilder("DebugGradientRefIdentity"));
  // TensorFlow's CPU types: DebugNanCount has half and bfloat16 but not
  // bool, DebugNumericSummary bool but neither half type,
  // DebugNumericSummaryV2 all of them (and either output type).
  RegisterRealTypes<DebugNanCountOp>(r, "DebugNanCount");
  RegisterTyped<DebugNanCountOp, Eigen::half>(r, "DebugNanCount");
  RegisterTyped<DebugNanCountOp, Eigen::bfloat16>(r, "DebugNanCount");
  RegisterRealTypes<DebugNumericSummaryOp>(r, "DebugNumericSummary");
  RegisterTyped<DebugNumericSummaryOp, bool>(r, "DebugNumericSummary");
  RegisterRealTypes<DebugNumericSummaryV2Op>(r, "DebugNumericSummaryV2");
  RegisterTyped<DebugNumericSummaryV2Op, bool>(r, "DebugNumericSummaryV2");
  RegisterTyped<DebugNumericSummaryV2Op, Eigen::half>(r,
                                                      "DebugNumericSummaryV2");
  RegisterTyped<DebugNumericSummaryV2Op, Eigen::bfloat16>(
      r, "DebugNumericSummaryV2");
}

}  // namespace dfx

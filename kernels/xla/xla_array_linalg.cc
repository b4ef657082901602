// XlaSelfAdjointEig and XlaSvd: Jacobi methods, as XLA's own are, on each
// innermost matrix of the batch, computed in double and rounded to the
// element type (float, double, half or bfloat16; TensorFlow's bridge
// refuses the integers and its complex results are not meaningful, so dfx
// refuses both).
//
// XlaSelfAdjointEig: cyclic two-sided Jacobi on the matrix read from its
// lower or upper triangle; eigenvalues ascending, eigenvectors in v's
// columns. XlaSvd: one-sided (Hestenes) Jacobi on the taller orientation,
// singular values descending, u [m, m] and v [n, n] completed to
// orthonormal bases. Both stop after max_iter sweeps or when the
// off-diagonal mass falls under epsilon; signs of vectors are Jacobi's,
// not necessarily TensorFlow's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/xla/xla_array_util.h"
#include "runtime/op_kernel.h"

namespace dfx::xla_array {
namespace {

// A row-major n x n (or m x n) matrix of doubles.
using Mat = std::vector<double>;

// Cyclic Jacobi on symmetric `a` (n x n, overwritten): eigenvalues into
// `w`, eigenvectors into the columns of `v`.
void JacobiEig(int64_t n, Mat& a, int64_t max_iter, double eps,
               std::vector<double>* w, Mat* v) {
  v->assign(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) (*v)[i * n + i] = 1.0;
  double total = 0;
  for (double x : a) total += x * x;
  for (int64_t sweep = 0; sweep < max_iter; ++sweep) {
    double off = 0;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q)
        off += 2 * a[p * n + q] * a[p * n + q];
    }
    if (off <= eps * eps * total || off == 0) break;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) /
                         (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1);
        const double s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double vkp = (*v)[k * n + p], vkq = (*v)[k * n + q];
          (*v)[k * n + p] = c * vkp - s * vkq;
          (*v)[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  w->resize(n);
  for (int64_t i = 0; i < n; ++i) (*w)[i] = a[i * n + i];
}

// Orders columns of `v` (rows x n) by `key`, ascending or descending.
void SortColumns(int64_t rows, int64_t n, std::vector<double>* key, Mat* v,
                 bool descending) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return descending ? (*key)[x] > (*key)[y] : (*key)[x] < (*key)[y];
  });
  std::vector<double> k2(n);
  Mat v2(rows * n);
  for (int64_t j = 0; j < n; ++j) {
    k2[j] = (*key)[order[j]];
    for (int64_t r = 0; r < rows; ++r) v2[r * n + j] = (*v)[r * n + order[j]];
  }
  *key = std::move(k2);
  *v = std::move(v2);
}

// Makes the columns of `u` (m x m) orthonormal, keeping the first `good`
// as they are and replacing the rest by Gram-Schmidt on the unit vectors.
void CompleteBasis(int64_t m, int64_t good, Mat* u) {
  int64_t next_unit = 0;
  for (int64_t j = good; j < m; ++j) {
    while (true) {
      std::vector<double> c(m, 0.0);
      c[next_unit++ % m] = 1.0;
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t k = 0; k < j; ++k) {
          double dot = 0;
          for (int64_t r = 0; r < m; ++r) dot += (*u)[r * m + k] * c[r];
          for (int64_t r = 0; r < m; ++r) c[r] -= dot * (*u)[r * m + k];
        }
      }
      double norm = 0;
      for (double x : c) norm += x * x;
      norm = std::sqrt(norm);
      if (norm > 1e-6 || next_unit > 2 * m) {
        for (int64_t r = 0; r < m; ++r) (*u)[r * m + j] = c[r] / norm;
        break;
      }
    }
  }
}

// One-sided Jacobi SVD of `a` (m x n, m >= n): s (n), u (m x m), v (n x n).
void JacobiSvd(int64_t m, int64_t n, Mat a, int64_t max_iter, double eps,
               std::vector<double>* s, Mat* u, Mat* v) {
  v->assign(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) (*v)[i * n + i] = 1.0;
  for (int64_t sweep = 0; sweep < max_iter; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t r = 0; r < m; ++r) {
          alpha += a[r * n + p] * a[r * n + p];
          beta += a[r * n + q] * a[r * n + q];
          gamma += a[r * n + p] * a[r * n + q];
        }
        if (gamma == 0 || std::abs(gamma) <= eps * std::sqrt(alpha * beta)) {
          continue;
        }
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) /
                         (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t);
        const double sn = c * t;
        for (int64_t r = 0; r < m; ++r) {
          const double x = a[r * n + p], y = a[r * n + q];
          a[r * n + p] = c * x - sn * y;
          a[r * n + q] = sn * x + c * y;
        }
        for (int64_t r = 0; r < n; ++r) {
          const double x = (*v)[r * n + p], y = (*v)[r * n + q];
          (*v)[r * n + p] = c * x - sn * y;
          (*v)[r * n + q] = sn * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  s->assign(n, 0.0);
  for (int64_t j = 0; j < n; ++j) {
    double norm = 0;
    for (int64_t r = 0; r < m; ++r) norm += a[r * n + j] * a[r * n + j];
    (*s)[j] = std::sqrt(norm);
  }
  // Sort a's and v's columns together by the singular values.
  std::vector<double> key = *s;
  SortColumns(m, n, &key, &a, true);
  SortColumns(n, n, s, v, true);
  u->assign(m * m, 0.0);
  int64_t good = 0;
  const double tiny = (n > 0 ? (*s)[0] : 0) * 1e-12;
  for (int64_t j = 0; j < n; ++j) {
    if ((*s)[j] <= tiny || (*s)[j] == 0) break;
    for (int64_t r = 0; r < m; ++r) (*u)[r * m + j] = a[r * n + j] / (*s)[j];
    good = j + 1;
  }
  CompleteBasis(m, good, u);
}

// Calls fn.template operator()<T>() for the real floating types.
template <typename Fn>
bool VisitRealFloat(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT:
      fn.template operator()<float>();
      return true;
    case DT_DOUBLE:
      fn.template operator()<double>();
      return true;
    case DT_HALF:
      fn.template operator()<Eigen::half>();
      return true;
    case DT_BFLOAT16:
      fn.template operator()<Eigen::bfloat16>();
      return true;
    default:
      return false;
  }
}

absl::Status NotServed(DataType dtype, const char* op) {
  return absl::InvalidArgumentError(
      absl::StrCat(op, " serves real floating-point inputs only, not ",
                   DataTypeString(dtype)));
}

class XlaSelfAdjointEigOp : public OpKernel {
 public:
  explicit XlaSelfAdjointEigOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("lower", &lower_));
    ctx->SetStatus(ctx->GetAttr("max_iter", &max_iter_));
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
  }
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& a = ctx->input(0);
    const int rank = a.dims();
    if (rank < 2 || a.dim_size(rank - 1) != a.dim_size(rank - 2)) {
      return absl::InvalidArgumentError(
          absl::StrCat("XlaSelfAdjointEig needs square matrices, got shape ",
                       a.shape().DebugString()));
    }
    const int64_t n = a.dim_size(rank - 1);
    std::vector<int64_t> wdims(a.shape().dim_sizes().begin(),
                               a.shape().dim_sizes().end() - 1);
    DFX_ASSIGN_OR_RETURN(TensorShape wshape, TensorShape::Build(wdims));
    Tensor* w = nullptr;
    Tensor* v = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, wshape, &w));
    DFX_RETURN_IF_ERROR(ctx->allocate_output(1, a.shape(), &v));
    const int64_t batch = n == 0 ? 0 : a.NumElements() / (n * n);
    const bool served = VisitRealFloat(a.dtype(), [&]<typename T>() {
      const T* src = a.data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        Mat m(n * n);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            // The triangle `lower` names, mirrored.
            const bool use = lower_ ? i >= j : i <= j;
            m[i * n + j] = static_cast<double>(
                use ? src[b * n * n + i * n + j] : src[b * n * n + j * n + i]);
          }
        }
        std::vector<double> wv;
        Mat vecs;
        JacobiEig(n, m, max_iter_, epsilon_, &wv, &vecs);
        SortColumns(n, n, &wv, &vecs, false);
        for (int64_t i = 0; i < n; ++i) {
          w->data<T>()[b * n + i] = static_cast<T>(wv[i]);
        }
        for (int64_t i = 0; i < n * n; ++i) {
          v->data<T>()[b * n * n + i] = static_cast<T>(vecs[i]);
        }
      }
    });
    if (!served) return NotServed(a.dtype(), "XlaSelfAdjointEig");
    return absl::OkStatus();
  }

  bool lower_ = true;
  int64_t max_iter_ = 100;
  float epsilon_ = 1e-6f;
};

class XlaSvdOp : public OpKernel {
 public:
  explicit XlaSvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("max_iter", &max_iter_));
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
  }
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(Run(ctx)); }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const Tensor& a = ctx->input(0);
    const int rank = a.dims();
    if (rank < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "XlaSvd needs matrices, got shape ", a.shape().DebugString()));
    }
    const int64_t m = a.dim_size(rank - 2);
    const int64_t n = a.dim_size(rank - 1);
    const int64_t k = std::min(m, n);
    std::vector<int64_t> outer(a.shape().dim_sizes().begin(),
                               a.shape().dim_sizes().end() - 2);
    auto with = [&](std::vector<int64_t> tail) {
      std::vector<int64_t> d = outer;
      d.insert(d.end(), tail.begin(), tail.end());
      return TensorShape::Build(d);
    };
    DFX_ASSIGN_OR_RETURN(TensorShape sshape, with({k}));
    DFX_ASSIGN_OR_RETURN(TensorShape ushape, with({m, m}));
    DFX_ASSIGN_OR_RETURN(TensorShape vshape, with({n, n}));
    Tensor *s = nullptr, *u = nullptr, *v = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, sshape, &s));
    DFX_RETURN_IF_ERROR(ctx->allocate_output(1, ushape, &u));
    DFX_RETURN_IF_ERROR(ctx->allocate_output(2, vshape, &v));
    int64_t batch = 1;
    for (int64_t d : outer) batch *= d;
    const bool served = VisitRealFloat(a.dtype(), [&]<typename T>() {
      const T* src = a.data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        // Work on the taller orientation: A or its transpose.
        const bool tall = m >= n;
        const int64_t rows = tall ? m : n, cols = tall ? n : m;
        Mat x(rows * cols);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const double e = static_cast<double>(src[b * m * n + i * n + j]);
            if (tall) {
              x[i * n + j] = e;
            } else {
              x[j * m + i] = e;
            }
          }
        }
        std::vector<double> sv;
        Mat left, right;
        JacobiSvd(rows, cols, std::move(x), max_iter_, epsilon_, &sv, &left,
                  &right);
        // For the transpose, A = right * S * left^T: u is right
        // completed, v is left.
        Mat umat, vmat;
        if (tall) {
          umat = std::move(left);
          vmat = std::move(right);
        } else {
          umat = std::move(right);
          vmat = std::move(left);
        }
        for (int64_t i = 0; i < k; ++i) s->data<T>()[b * k + i] = T(sv[i]);
        for (int64_t i = 0; i < m * m; ++i) {
          u->data<T>()[b * m * m + i] = static_cast<T>(umat[i]);
        }
        for (int64_t i = 0; i < n * n; ++i) {
          v->data<T>()[b * n * n + i] = static_cast<T>(vmat[i]);
        }
      }
    });
    if (!served) return NotServed(a.dtype(), "XlaSvd");
    return absl::OkStatus();
  }

  int64_t max_iter_ = 100;
  float epsilon_ = 1e-6f;
};

}  // namespace

void RegisterXlaLinalgKernels(KernelRegistry* registry) {
  RegisterKernel<XlaSelfAdjointEigOp>(registry,
                                      KernelDefBuilder("XlaSelfAdjointEig"));
  RegisterKernel<XlaSvdOp>(registry, KernelDefBuilder("XlaSvd"));
}

}  // namespace dfx::xla_array

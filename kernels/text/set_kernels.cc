// tf.sets' kernels (SetSize, DenseToDenseSetOperation,
// DenseToSparseSetOperation, SparseToSparseSetOperation), ListDiff and
// EditDistance with TensorFlow 2.21's semantics and errors (set_kernels.cc,
// listdiff_op.cc, edit_distance_op.cc).
//
// Set elements are compared as int64 (every integer type the set ops
// serve fits) or as strings, so each set kernel is compiled twice, not once
// per dtype.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/text/text_util.h"

namespace dfx::text {
namespace {

std::string Bracketed(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// Element i of a set-op tensor as its comparison key.
template <typename K>
K KeyAt(const Tensor& t, int64_t i);
template <>
int64_t KeyAt<int64_t>(const Tensor& t, int64_t i) {
  return IntAt(t, i);
}
template <>
std::string KeyAt<std::string>(const Tensor& t, int64_t i) {
  return t.data<std::string>()[i];
}

template <typename K>
void PutKey(Tensor* t, int64_t i, const K& k);
template <>
void PutKey<int64_t>(Tensor* t, int64_t i, const int64_t& k) {
  SetIntAt(t, i, k);
}
template <>
void PutKey<std::string>(Tensor* t, int64_t i, const std::string& k) {
  t->data<std::string>()[i] = k;
}

// A sparse tensor read from three inputs (indices, values, dense shape).
struct SparseInput {
  const Tensor* indices = nullptr;
  const Tensor* values = nullptr;
  std::vector<int64_t> shape;
  int64_t rows = 0;
  int rank = 0;

  int64_t Index(int64_t i, int d) const {
    return indices->data<int64_t>()[i * rank + d];
  }
  std::vector<int64_t> Row(int64_t i) const {
    std::vector<int64_t> r(rank);
    for (int d = 0; d < rank; ++d) r[d] = Index(i, d);
    return r;
  }
  // The group of entry i: its indices but the last.
  std::vector<int64_t> Group(int64_t i) const {
    std::vector<int64_t> g(rank - 1);
    for (int d = 0; d + 1 < rank; ++d) g[d] = Index(i, d);
    return g;
  }
};

// TensorFlow's SparseTensorFromContext: the shape, rank >= 2, consistent
// components, and with `validate` SparseTensor::IndicesValid (each entry
// in bounds, strictly increasing in row-major order).
absl::Status ReadSparse(OpKernelContext* ctx, int base, bool validate,
                        SparseInput* st) {
  const Tensor& shape = ctx->input(base + 2);
  if (shape.dims() != 1) {
    return absl::InvalidArgumentError("Shape must be a 1D tensor.");
  }
  st->shape.assign(shape.data<int64_t>(),
                   shape.data<int64_t>() + shape.NumElements());
  for (int64_t d : st->shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", d, " must be >= 0"));
    }
  }
  st->rank = static_cast<int>(st->shape.size());
  if (st->rank < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid rank ", st->rank, "."));
  }
  st->indices = &ctx->input(base);
  st->values = &ctx->input(base + 1);
  const Tensor& ix = *st->indices;
  // SparseTensor::Create's checks.
  if (ix.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices must be a matrix, but got: ", ix.shape().DebugString()));
  }
  if (st->values->dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vals must be a vec, but got: ", st->values->shape().DebugString()));
  }
  if (ix.dim_size(0) != st->values->dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices and values rows (indexing dimension) must match. (indices = ",
        ix.dim_size(0), ", values = ", st->values->dim_size(0), ")"));
  }
  if (ix.dim_size(1) != st->rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Index and shapes rank mismatch: ", ix.dim_size(1), " vs. ", st->rank));
  }
  st->rows = ix.dim_size(0);
  if (!validate) return absl::OkStatus();
  for (int64_t i = 0; i < st->rows; ++i) {
    bool in_bounds = true;
    for (int d = 0; d < st->rank; ++d) {
      const int64_t v = st->Index(i, d);
      in_bounds = in_bounds && v >= 0 && v < st->shape[d];
    }
    if (!in_bounds) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", Bracketed(st->Row(i)),
          " is out of bounds: need 0 <= index < ", Bracketed(st->shape)));
    }
    if (i == 0) continue;
    int order = 0;
    for (int d = 0; d < st->rank && order == 0; ++d) {
      const int64_t prev = st->Index(i - 1, d), cur = st->Index(i, d);
      if (cur != prev) order = cur > prev ? 1 : -1;
    }
    if (order < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", Bracketed(st->Row(i)),
          " is out of order. Many sparse ops require sorted indices.\n"
          "    Use `tf.sparse.reorder` to create a correctly ordered copy."
          "\n\n"));
    }
    if (order == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", Bracketed(st->Row(i)), " is repeated"));
    }
  }
  return absl::OkStatus();
}

// The runs of consecutive entries of `st` with one group (TensorFlow's
// SparseTensor::group): [begin, end) pairs.
std::vector<std::pair<int64_t, int64_t>> GroupRuns(const SparseInput& st) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  int64_t begin = 0;
  for (int64_t i = 1; i <= st.rows; ++i) {
    bool same = i < st.rows;
    for (int d = 0; same && d + 1 < st.rank; ++d) {
      same = st.Index(i, d) == st.Index(begin, d);
    }
    if (!same) {
      runs.emplace_back(begin, i);
      begin = i;
    }
  }
  if (st.rows == 0) runs.clear();
  return runs;
}

// TensorFlow's CheckGroup: every index of the run below its dim (an
// Internal error, which validate_indices=false lets through to here).
absl::Status CheckRun(const SparseInput& st, int64_t begin, int64_t end) {
  for (int d = 0; d < st.rank; ++d) {
    if (st.shape[d] <= 0) {
      return absl::InternalError(
          absl::StrCat("Invalid dim_size[", d, "] = ", st.shape[d], "."));
    }
    for (int64_t i = begin; i < end; ++i) {
      if (st.Index(i, d) >= st.shape[d]) {
        return absl::InternalError(absl::StrCat("indices[", i - begin, ", ", d,
                                                "] expected < ", st.shape[d],
                                                ", got ", st.Index(i, d), "."));
      }
    }
  }
  return absl::OkStatus();
}

template <typename K>
absl::Status SparseRunSet(const SparseInput& st, int64_t begin, int64_t end,
                          std::set<K>* out) {
  DFX_RETURN_IF_ERROR(CheckRun(st, begin, end));
  out->clear();
  for (int64_t i = begin; i < end; ++i) out->insert(KeyAt<K>(*st.values, i));
  return absl::OkStatus();
}

bool ReadValidateIndices(OpKernelConstruction* c) {
  bool v = true;
  if (!c->GetAttr("validate_indices", &v).ok()) return true;
  return v;
}

class SetSizeOp : public OpKernel {
 public:
  explicit SetSizeOp(OpKernelConstruction* c)
      : OpKernel(c), validate_(ReadValidateIndices(c)) {}

  void Compute(OpKernelContext* ctx) override {
    if (ctx->input(1).dtype() == DT_STRING) {
      Run<std::string>(ctx);
    } else {
      Run<int64_t>(ctx);
    }
  }

 private:
  template <typename K>
  void Run(OpKernelContext* ctx) {
    SparseInput st;
    DFX_OP_REQUIRES_OK(ctx, ReadSparse(ctx, 0, validate_, &st));
    TensorShape out_shape;
    for (int d = 0; d + 1 < st.rank; ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(st.shape[d]));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int32_t* o = out->data<int32_t>();
    std::fill(o, o + out->NumElements(), 0);
    std::set<K> set;
    for (const auto& [begin, end] : GroupRuns(st)) {
      DFX_OP_REQUIRES_OK(ctx, SparseRunSet(st, begin, end, &set));
      int64_t at = 0;
      for (int d = 0; d + 1 < st.rank; ++d) {
        at = at * st.shape[d] + st.Index(begin, d);
      }
      DFX_OP_REQUIRES(ctx, at < out->NumElements(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Index out of range, ", Bracketed(st.Row(begin)),
                          " vs ", out_shape.DebugString())));
      o[at] = static_cast<int32_t>(set.size());
    }
  }

  const bool validate_;
};

enum class SetOp { kAMinusB, kBMinusA, kIntersection, kUnion };
enum class SetInputs { kDenseDense, kDenseSparse, kSparseSparse };

// The group shape of two inputs: each rank >= 2 and all but the last dims
// equal.
absl::Status GroupShape(const std::vector<int64_t>& a,
                        const std::vector<int64_t>& b,
                        std::vector<int64_t>* group) {
  for (const auto* s : {&a, &b}) {
    if (s->size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape ", Bracketed(*s), " has rank ", s->size(), " < 2"));
    }
  }
  std::vector<int64_t> ga(a.begin(), a.end() - 1), gb(b.begin(), b.end() - 1);
  if (ga != gb) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Mismatched shapes ", Bracketed(ga), " vs ", Bracketed(gb)));
  }
  *group = std::move(ga);
  return absl::OkStatus();
}

std::vector<int64_t> DimsOf(const Tensor& t) {
  std::vector<int64_t> d(t.dims());
  for (int i = 0; i < t.dims(); ++i) d[i] = t.dim_size(i);
  return d;
}

class SetOperationOp : public OpKernel {
 public:
  SetOperationOp(OpKernelConstruction* c, SetInputs inputs)
      : OpKernel(c), validate_(ReadValidateIndices(c)), inputs_(inputs) {
    std::string op;
    if (!c->GetAttr("set_operation", &op).ok()) {
      c->SetStatus(absl::InvalidArgumentError("Missing set_operation."));
      return;
    }
    op = absl::AsciiStrToLower(op);
    if (op == "a-b") {
      op_ = SetOp::kAMinusB;
    } else if (op == "b-a") {
      op_ = SetOp::kBMinusA;
    } else if (op == "intersection") {
      op_ = SetOp::kIntersection;
    } else if (op == "union") {
      op_ = SetOp::kUnion;
    } else {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Invalid set_operation ", op, ".")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const int values_input = inputs_ == SetInputs::kSparseSparse ? 1 : 0;
    if (ctx->input(values_input).dtype() == DT_STRING) {
      Run<std::string>(ctx);
    } else {
      Run<int64_t>(ctx);
    }
  }

 private:
  template <typename K>
  void Apply(const std::set<K>& a, const std::set<K>& b,
             std::set<K>* out) const {
    switch (op_) {
      case SetOp::kAMinusB:
        for (const K& k : a) {
          if (!b.count(k)) out->insert(k);
        }
        break;
      case SetOp::kBMinusA:
        for (const K& k : b) {
          if (!a.count(k)) out->insert(k);
        }
        break;
      case SetOp::kIntersection:
        for (const K& k : a) {
          if (b.count(k)) out->insert(k);
        }
        break;
      case SetOp::kUnion:
        out->insert(a.begin(), a.end());
        out->insert(b.begin(), b.end());
        break;
    }
  }

  // The dense set of row `group` (flat index over the group dims).
  template <typename K>
  static void DenseSet(const Tensor& t, int64_t group, std::set<K>* out) {
    out->clear();
    const int64_t n = t.dim_size(t.dims() - 1);
    for (int64_t i = group * n; i < (group + 1) * n; ++i) {
      out->insert(KeyAt<K>(t, i));
    }
  }

  static std::vector<int64_t> Unflatten(int64_t flat,
                                        const std::vector<int64_t>& shape) {
    std::vector<int64_t> idx(shape.size());
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
    return idx;
  }

  template <typename K>
  void Run(OpKernelContext* ctx) const {
    std::vector<std::pair<std::vector<int64_t>, std::set<K>>> results;
    std::vector<int64_t> group_shape;
    std::set<K> a, b;
    auto add = [&](std::vector<int64_t> group) {
      std::set<K> r;
      Apply(a, b, &r);
      if (!r.empty()) results.emplace_back(std::move(group), std::move(r));
    };
    if (inputs_ == SetInputs::kDenseDense) {
      const Tensor& t1 = ctx->input(0);
      const Tensor& t2 = ctx->input(1);
      DFX_OP_REQUIRES_OK(ctx, GroupShape(DimsOf(t1), DimsOf(t2), &group_shape));
      int64_t groups = 1;
      for (int64_t d : group_shape) groups *= d;
      for (int64_t g = 0; g < groups; ++g) {
        DenseSet(t1, g, &a);
        DenseSet(t2, g, &b);
        add(Unflatten(g, group_shape));
      }
    } else if (inputs_ == SetInputs::kDenseSparse) {
      const Tensor& t1 = ctx->input(0);
      SparseInput s2;
      DFX_OP_REQUIRES_OK(ctx, ReadSparse(ctx, 1, validate_, &s2));
      DFX_OP_REQUIRES_OK(ctx, GroupShape(DimsOf(t1), s2.shape, &group_shape));
      const auto runs = GroupRuns(s2);
      size_t run = 0;
      int64_t groups = 1;
      for (int64_t d : group_shape) groups *= d;
      for (int64_t g = 0; g < groups; ++g) {
        std::vector<int64_t> group = Unflatten(g, group_shape);
        DenseSet(t1, g, &a);
        b.clear();
        if (run < runs.size() && s2.Group(runs[run].first) == group) {
          DFX_OP_REQUIRES_OK(
              ctx, SparseRunSet(s2, runs[run].first, runs[run].second, &b));
          ++run;
        }
        add(std::move(group));
      }
    } else {
      SparseInput s1, s2;
      DFX_OP_REQUIRES_OK(ctx, ReadSparse(ctx, 0, validate_, &s1));
      DFX_OP_REQUIRES_OK(ctx, ReadSparse(ctx, 3, validate_, &s2));
      DFX_OP_REQUIRES_OK(ctx, GroupShape(s1.shape, s2.shape, &group_shape));
      const auto runs1 = GroupRuns(s1);
      const auto runs2 = GroupRuns(s2);
      size_t r1 = 0, r2 = 0;
      while (r1 < runs1.size() || r2 < runs2.size()) {
        // Row-major merge of the two group sequences; an exhausted side
        // compares greater.
        int cmp;
        std::vector<int64_t> g1, g2;
        if (r1 < runs1.size()) g1 = s1.Group(runs1[r1].first);
        if (r2 < runs2.size()) g2 = s2.Group(runs2[r2].first);
        if (r1 == runs1.size()) {
          cmp = 1;
        } else if (r2 == runs2.size()) {
          cmp = -1;
        } else {
          cmp = g1 < g2 ? -1 : (g2 < g1 ? 1 : 0);
        }
        a.clear();
        b.clear();
        std::vector<int64_t> group;
        if (cmp <= 0) {
          DFX_OP_REQUIRES_OK(
              ctx, SparseRunSet(s1, runs1[r1].first, runs1[r1].second, &a));
          ++r1;
          group = g1;
        }
        if (cmp >= 0) {
          DFX_OP_REQUIRES_OK(
              ctx, SparseRunSet(s2, runs2[r2].first, runs2[r2].second, &b));
          ++r2;
          group = g2;
        }
        add(std::move(group));
      }
    }
    int64_t total = 0, widest = 0;
    for (const auto& r : results) {
      total += static_cast<int64_t>(r.second.size());
      widest = std::max<int64_t>(widest, r.second.size());
    }
    const int64_t rank = static_cast<int64_t>(group_shape.size()) + 1;
    Tensor *indices = nullptr, *values = nullptr, *shape = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total, rank}), &indices));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({total}), &values));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, TensorShape({rank}), &shape));
    int64_t* ix = indices->data<int64_t>();
    int64_t k = 0;
    for (const auto& [group, set] : results) {
      int64_t j = 0;
      for (const K& v : set) {
        for (size_t d = 0; d < group.size(); ++d) ix[k * rank + d] = group[d];
        ix[k * rank + rank - 1] = j++;
        PutKey<K>(values, k++, v);
      }
    }
    for (size_t d = 0; d < group_shape.size(); ++d) {
      shape->data<int64_t>()[d] = group_shape[d];
    }
    shape->data<int64_t>()[rank - 1] = widest;
  }

  const bool validate_;
  const SetInputs inputs_;
  SetOp op_ = SetOp::kUnion;
};

template <SetInputs kInputs>
class SetOperationKernel : public SetOperationOp {
 public:
  explicit SetOperationKernel(OpKernelConstruction* c)
      : SetOperationOp(c, kInputs) {}
};

// Equality of element i of `a` and element j of `b` (one dtype) as
// TensorFlow's std::equal_to<T> sees it: by value for floating point
// (0 == -0, NaN unequal to everything), by bytes otherwise.
bool HalfIsNan(uint16_t bits, bool bfloat) {
  return bfloat ? (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0
                : (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
}
bool ElementsEqual(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  switch (a.dtype()) {
    case DT_STRING:
      return a.data<std::string>()[i] == b.data<std::string>()[j];
    case DT_FLOAT:
      return a.data<float>()[i] == b.data<float>()[j];
    case DT_DOUBLE:
      return a.data<double>()[i] == b.data<double>()[j];
    case DT_COMPLEX64:
    case DT_COMPLEX128: {
      // Real and imaginary parts compared as floating point.
      const bool wide = a.dtype() == DT_COMPLEX128;
      const char* x = static_cast<const char*>(a.raw_data());
      const char* y = static_cast<const char*>(b.raw_data());
      for (int part = 0; part < 2; ++part) {
        if (wide) {
          double u, v;
          std::memcpy(&u, x + 16 * i + 8 * part, 8);
          std::memcpy(&v, y + 16 * j + 8 * part, 8);
          if (!(u == v)) return false;
        } else {
          float u, v;
          std::memcpy(&u, x + 8 * i + 4 * part, 4);
          std::memcpy(&v, y + 8 * j + 4 * part, 4);
          if (!(u == v)) return false;
        }
      }
      return true;
    }
    case DT_HALF:
    case DT_BFLOAT16: {
      uint16_t x, y;
      std::memcpy(&x, static_cast<const char*>(a.raw_data()) + 2 * i, 2);
      std::memcpy(&y, static_cast<const char*>(b.raw_data()) + 2 * j, 2);
      const bool bf = a.dtype() == DT_BFLOAT16;
      if (HalfIsNan(x, bf) || HalfIsNan(y, bf)) return false;
      return x == y || ((x | y) & 0x7fff) == 0;
    }
    default: {
      const int size = DataTypeSize(a.dtype());
      return std::memcmp(static_cast<const char*>(a.raw_data()) + size * i,
                         static_cast<const char*>(b.raw_data()) + size * j,
                         size) == 0;
    }
  }
}

// ListDiff: the elements of x not in y, in x's order, and their positions.
class ListDiffOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFX_OP_REQUIRES(ctx, x.dims() == 1,
                    absl::InvalidArgumentError("x should be a 1D vector."));
    DFX_OP_REQUIRES(ctx, y.dims() == 1,
                    absl::InvalidArgumentError("y should be a 1D vector."));
    std::vector<int64_t> keep;
    if (x.dtype() == DT_STRING) {
      std::unordered_set<std::string> ys(
          y.data<std::string>(), y.data<std::string>() + y.NumElements());
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        if (!ys.count(x.data<std::string>()[i])) keep.push_back(i);
      }
    } else {
      // Small inputs in practice: a pairwise scan keeps one code path for
      // every dtype (floating-point equality included).
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        bool found = false;
        for (int64_t j = 0; j < y.NumElements() && !found; ++j) {
          found = ElementsEqual(x, i, y, j);
        }
        if (!found) keep.push_back(i);
      }
    }
    const int64_t n = static_cast<int64_t>(keep.size());
    Tensor *out = nullptr, *idx = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    if (x.dtype() == DT_STRING) {
      for (int64_t k = 0; k < n; ++k) {
        out->data<std::string>()[k] = x.data<std::string>()[keep[k]];
      }
    } else {
      const int size = DataTypeSize(x.dtype());
      for (int64_t k = 0; k < n; ++k) {
        std::memcpy(static_cast<char*>(out->raw_data()) + size * k,
                    static_cast<const char*>(x.raw_data()) + size * keep[k],
                    size);
      }
    }
    for (int64_t k = 0; k < n; ++k) SetInt(idx, k, keep[k]);
  }
};

class EditDistanceOp : public OpKernel {
 public:
  explicit EditDistanceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("normalize", &normalize_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Validate(ctx));
    const Tensor& h_ix = ctx->input(0);
    const Tensor& h_val = ctx->input(1);
    const Tensor& h_shape = ctx->input(2);
    const Tensor& t_ix = ctx->input(3);
    const Tensor& t_val = ctx->input(4);
    const Tensor& t_shape = ctx->input(5);
    const int rank = static_cast<int>(t_shape.NumElements());
    TensorShape out_shape;
    for (int d = 0; d + 1 < rank; ++d) {
      const int64_t hd = h_shape.data<int64_t>()[d];
      const int64_t td = t_shape.data<int64_t>()[d];
      DFX_OP_REQUIRES(ctx, hd >= 0 && td >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dimension ", std::min(hd, td), " must be >= 0")));
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(std::max(hd, td)));
    }
    const int64_t elements = out_shape.num_elements();
    DFX_OP_REQUIRES(ctx, elements > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Got output shape ", out_shape.DebugString(),
                        " which has 0 elements")));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    float* o = out->data<float>();
    std::fill(o, o + elements, 0.0f);
    std::vector<int64_t> strides(rank - 1, 1);
    for (int d = rank - 3; d >= 0; --d) {
      strides[d] = strides[d + 1] * out_shape.dim_size(d + 1);
    }
    // Runs of entries sharing all but the last index, in order.
    auto runs = [rank](const Tensor& ix) {
      std::vector<std::pair<int64_t, int64_t>> r;
      const int64_t* p = ix.data<int64_t>();
      const int64_t n = ix.dim_size(0);
      int64_t begin = 0;
      for (int64_t i = 1; i <= n; ++i) {
        bool same = i < n;
        for (int d = 0; same && d + 1 < rank; ++d) {
          same = p[i * rank + d] == p[begin * rank + d];
        }
        if (!same) {
          if (n > 0) r.emplace_back(begin, i);
          begin = i;
        }
      }
      return r;
    };
    auto group = [rank](const Tensor& ix, int64_t i) {
      return std::vector<int64_t>(ix.data<int64_t>() + i * rank,
                                  ix.data<int64_t>() + i * rank + rank - 1);
    };
    auto location = [&](const std::vector<int64_t>& g, int64_t* loc) {
      *loc = 0;
      for (int d = 0; d + 1 < rank; ++d) *loc += g[d] * strides[d];
      if (*loc >= 0 && *loc < elements) return absl::OkStatus();
      return absl::OutOfRangeError(absl::StrCat(
          "Got an inner product ", *loc,
          " which would require writing to outside of the buffer for the "
          "output tensor (max elements ",
          elements, ")"));
    };
    const auto hr = runs(h_ix);
    const auto tr = runs(t_ix);
    size_t hi = 0, ti = 0;
    int64_t loc = 0;
    while (hi < hr.size() || ti < tr.size()) {
      std::vector<int64_t> gh, gt;
      if (hi < hr.size()) gh = group(h_ix, hr[hi].first);
      if (ti < tr.size()) gt = group(t_ix, tr[ti].first);
      const int64_t hlen = hi < hr.size() ? hr[hi].second - hr[hi].first : 0;
      const int64_t tlen = ti < tr.size() ? tr[ti].second - tr[ti].first : 0;
      if (hi < hr.size() && ti < tr.size() && gh == gt) {
        DFX_OP_REQUIRES_OK(ctx, location(gt, &loc));
        o[loc] = static_cast<float>(
            Levenshtein(t_val, tr[ti].first, tlen, h_val, hr[hi].first, hlen));
        if (normalize_) o[loc] /= static_cast<float>(tlen);
        ++hi;
        ++ti;
      } else if (ti == tr.size() || (hi < hr.size() && gt > gh)) {
        // A hypothesis with no truth.
        DFX_OP_REQUIRES_OK(ctx, location(gh, &loc));
        o[loc] = static_cast<float>(hlen);
        if (normalize_ && o[loc] != 0.0f) {
          o[loc] = std::numeric_limits<float>::infinity();
        }
        ++hi;
      } else {
        // A truth with no hypothesis.
        DFX_OP_REQUIRES_OK(ctx, location(gt, &loc));
        o[loc] = normalize_ ? 1.0f : static_cast<float>(tlen);
        ++ti;
      }
    }
  }

 private:
  static int64_t Levenshtein(const Tensor& s, int64_t s0, int64_t sn,
                             const Tensor& t, int64_t t0, int64_t tn) {
    if (sn == 0) return tn;
    if (tn == 0) return sn;
    std::vector<int64_t> row(tn + 1);
    for (int64_t j = 0; j <= tn; ++j) row[j] = j;
    for (int64_t i = 1; i <= sn; ++i) {
      int64_t diag = row[0];
      row[0] = i;
      for (int64_t j = 1; j <= tn; ++j) {
        const int64_t up = row[j];
        const int64_t cost =
            ElementsEqual(s, s0 + i - 1, t, t0 + j - 1) ? 0 : 1;
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
        diag = up;
      }
    }
    return row[tn];
  }

  static absl::Status Validate(OpKernelContext* ctx) {
    const char* names[2] = {"hypothesis", "truth"};
    for (int s = 0; s < 2; ++s) {
      const Tensor& ix = ctx->input(3 * s);
      if (ix.dims() != 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            names[s], "_indices should be a matrix, but got shape: ",
            ix.shape().DebugString()));
      }
    }
    for (int s = 0; s < 2; ++s) {
      const Tensor& v = ctx->input(3 * s + 1);
      if (v.dims() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            names[s], "_values should be a vector, but got shape: ",
            v.shape().DebugString()));
      }
    }
    for (int s = 0; s < 2; ++s) {
      const Tensor& sh = ctx->input(3 * s + 2);
      if (sh.dims() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat(names[s], "_shape should be a vector, but got shape: ",
                         sh.shape().DebugString()));
      }
    }
    for (int s = 0; s < 2; ++s) {
      const Tensor& ix = ctx->input(3 * s);
      const Tensor& v = ctx->input(3 * s + 1);
      const Tensor& sh = ctx->input(3 * s + 2);
      if (v.NumElements() != ix.dim_size(0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected ", names[s], "_values.NumElements == #rows(", names[s],
            "_indices), their shapes are: ", v.shape().DebugString(), " and ",
            ix.shape().DebugString()));
      }
      if (sh.NumElements() != ix.dim_size(1)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected ", names[s], "_shape.NumElements == #cols(", names[s],
            "_indices), their shapes are: ", sh.shape().DebugString(), " and ",
            ix.shape().DebugString()));
      }
    }
    const Tensor& hs = ctx->input(2);
    const Tensor& ts = ctx->input(5);
    if (ts.NumElements() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input SparseTensors must have rank at least 2, but truth_shape "
          "rank is: ",
          ts.NumElements()));
    }
    if (hs.NumElements() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input SparseTensors must have rank at least 2, but "
                       "hypothesis_shape rank is: ",
                       hs.NumElements()));
    }
    if (ts.NumElements() != hs.NumElements()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected truth and hypothesis to have matching ranks, but their "
          "shapes are: ",
          ts.shape().DebugString(), " and ", hs.shape().DebugString()));
    }
    return absl::OkStatus();
  }

  bool normalize_ = true;
};

// The types of TensorFlow's set kernels.
const DataTypeVector& SetTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_STRING};
  return *types;
}

}  // namespace

void RegisterTextSetKernels(KernelRegistry* registry) {
  const DataTypeVector& set_types = SetTypes();
  RegisterKernel<SetSizeOp>(
      registry, KernelDefBuilder("SetSize").TypeConstraint("T", set_types));
  RegisterKernel<SetOperationKernel<SetInputs::kDenseDense>>(
      registry, KernelDefBuilder("DenseToDenseSetOperation")
                    .TypeConstraint("T", set_types));
  RegisterKernel<SetOperationKernel<SetInputs::kDenseSparse>>(
      registry, KernelDefBuilder("DenseToSparseSetOperation")
                    .TypeConstraint("T", set_types));
  RegisterKernel<SetOperationKernel<SetInputs::kSparseSparse>>(
      registry, KernelDefBuilder("SparseToSparseSetOperation")
                    .TypeConstraint("T", set_types));
  RegisterKernel<ListDiffOp>(
      registry, KernelDefBuilder("ListDiff")
                    .TypeConstraint(
                        "T", {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16,
                              DT_INT8, DT_STRING, DT_INT64, DT_BFLOAT16,
                              DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64}));
  RegisterKernel<EditDistanceOp>(registry,
                                 KernelDefBuilder("EditDistance")
                                     .TypeConstraint("T", PodAndStringTypes()));
}

}  // namespace dfx::text

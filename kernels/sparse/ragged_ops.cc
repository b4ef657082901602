// Ragged tensors: RaggedTensorToTensor (row partitions given as ROW_SPLITS,
// or FIRST_DIM_SIZE then VALUE_ROWIDS), RaggedRange and RaggedTensorToSparse.
// Output positions are computed level by level as TensorFlow's kernel does
// (each row's children either land in the dense output or are cut off by
// the requested shape), and checks carry TensorFlow's messages. Where
// TensorFlow would read past the end of an input (splits pointing past the
// values), dfx fails with InvalidArgument instead.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/sparse/sparse_util.h"

namespace dfx::sparse_internal {
namespace {

enum class PartitionType { kFirstDimSize, kValueRowIds, kRowSplits };

// "[2,?,3]": a partial shape as TensorFlow prints it (-1 as ?).
std::string PartialString(const std::vector<int64_t>& dims) {
  std::vector<std::string> parts;
  for (int64_t d : dims) parts.push_back(d < 0 ? "?" : absl::StrCat(d));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

class RaggedTensorToTensorOp : public OpKernel {
 public:
  explicit RaggedTensorToTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<std::string> types;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("row_partition_types", &types));
    for (const std::string& t : types) {
      if (t == "FIRST_DIM_SIZE") {
        types_.push_back(PartitionType::kFirstDimSize);
      } else if (t == "VALUE_ROWIDS") {
        types_.push_back(PartitionType::kValueRowIds);
      } else if (t == "ROW_SPLITS") {
        types_.push_back(PartitionType::kRowSplits);
      } else {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("Unknown string for partition info type: ", t)));
        return;
      }
    }
    DFX_OP_REQUIRES(ctx, !types_.empty(),
                    absl::InvalidArgumentError(
                        "Invalid row_partition_types: must not be empty"));
    if (types_[0] == PartitionType::kValueRowIds) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Cannot handle VALUE_ROWIDS in first dimension."));
      return;
    }
    for (size_t i = 1; i < types_.size(); ++i) {
      DFX_OP_REQUIRES(ctx, types_[i] != PartitionType::kFirstDimSize,
                      absl::InvalidArgumentError(
                          "FIRST_DIM_SIZE is only allowed as the first "
                          "row partition type"));
    }
    ragged_rank_ = static_cast<int>(types_.size()) -
                   (types_[0] == PartitionType::kFirstDimSize ? 1 : 0);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& default_value = ctx->input(2);
    const int num_parts = static_cast<int>(types_.size());
    DFX_OP_REQUIRES(ctx, ctx->num_inputs() == 3 + num_parts,
                    absl::InvalidArgumentError(
                        "row_partition_tensors must have one tensor per "
                        "row_partition_types entry"));
    auto partition = [&](int i) -> const Tensor& { return ctx->input(3 + i); };
    DFX_OP_REQUIRES(ctx, values.dims() >= 1,
                    absl::InvalidArgumentError(
                        "rt_input.flat_values must have rank at least 1"));
    const int out_rank = ragged_rank_ + values.dims();

    // The first dimension: FIRST_DIM_SIZE's scalar or ROW_SPLITS' rows.
    int64_t first_dim = 0;
    if (types_[0] == PartitionType::kFirstDimSize) {
      DFX_OP_REQUIRES(ctx, partition(0).NumElements() == 1,
                      absl::InvalidArgumentError(
                          "FIRST_DIM_SIZE must be a scalar"));
      first_dim = IndexAt(partition(0), 0);
    } else {
      DFX_OP_REQUIRES(ctx, partition(0).dims() == 1,
                      absl::InvalidArgumentError("ROW_SPLITS must be a vector"));
      DFX_OP_REQUIRES(ctx, partition(0).NumElements() >= 1,
                      absl::InvalidArgumentError(
                          "Invalid first partition input. Tensor requires at "
                          "least one element."));
      first_dim = partition(0).NumElements() - 1;
    }
    DFX_OP_REQUIRES(ctx, first_dim >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid first dimension size ", first_dim)));
    const int first_level = types_[0] == PartitionType::kFirstDimSize ? 1 : 0;
    for (int i = first_level; i < num_parts; ++i) {
      DFX_OP_REQUIRES(ctx, partition(i).dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "row partition tensor ", i, " must be a vector")));
    }

    // The requested shape: a vector with -1 for "as large as needed", or a
    // scalar for an unknown rank.
    std::vector<int64_t> shape(static_cast<size_t>(out_rank), -1);
    if (shape_t.dims() >= 1) {
      const int64_t given = shape_t.NumElements();
      std::vector<int64_t> dims(static_cast<size_t>(given));
      for (int64_t i = 0; i < given; ++i) dims[i] = IndexAt(shape_t, i);
      DFX_OP_REQUIRES(ctx, given == out_rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "rt_input.shape and shape=", PartialString(dims),
                          " are incompatible: rt_input.rank = ", out_rank,
                          " but shape.rank = ", given)));
      for (int i = 0; i < out_rank; ++i) shape[i] = std::max<int64_t>(dims[i], -1);
      for (int i = 1; i < values.dims(); ++i) {
        const int64_t want = shape[ragged_rank_ + i];
        DFX_OP_REQUIRES(
            ctx, want < 0 || want == values.dim_size(i),
            absl::InvalidArgumentError(absl::StrCat(
                "rt_input.shape and shape=", PartialString(dims),
                " are incompatible: rt_input.shape[", ragged_rank_ + i,
                "] = ", values.dim_size(i), " but shape[", ragged_rank_ + i,
                "] = ", want)));
      }
    }
    // default_value broadcasts to one value element (values.shape[1:]).
    DFX_OP_REQUIRES(
        ctx, default_value.dims() < values.dims(),
        absl::InvalidArgumentError(absl::StrCat(
            "default_value.shape=", default_value.shape().DebugString(),
            " and rt_input.flat_values.shape=", values.shape().DebugString(),
            " are incompatible: default_value.rank = ", default_value.dims(),
            "  must be less than rt_input.flat_values.rank = ",
            values.dims())));
    for (int i = 1; i <= default_value.dims(); ++i) {
      const int64_t d = default_value.dim_size(default_value.dims() - i);
      const int64_t v = values.dim_size(values.dims() - i);
      DFX_OP_REQUIRES(
          ctx, d == 1 || d == v,
          absl::InvalidArgumentError(absl::StrCat(
              "default_value.shape=", default_value.shape().DebugString(),
              " and rt_input.flat_values.shape=",
              values.shape().DebugString(),
              " are incompatible: default_value.shape[-", i, "] = ", d,
              " but rt_input.flat_values.shape[-", i, "] = ", v)));
    }

    // Unrequested dims: the row count, each level's widest row, the values'
    // element dims.
    if (shape[0] < 0) shape[0] = first_dim;
    for (int level = 1; level <= ragged_rank_; ++level) {
      if (shape[level] >= 0) continue;
      const Tensor& p = partition(level - 1 + first_level);
      int64_t widest = 0;
      if (types_[level - 1 + first_level] == PartitionType::kRowSplits) {
        for (int64_t i = 0; i + 1 < p.NumElements(); ++i) {
          widest = std::max(widest, IndexAt(p, i + 1) - IndexAt(p, i));
        }
      } else {
        int64_t run = 0;
        for (int64_t i = 0; i < p.NumElements(); ++i) {
          run = i > 0 && IndexAt(p, i) == IndexAt(p, i - 1) ? run + 1 : 1;
          widest = std::max(widest, run);
        }
      }
      shape[level] = widest;
    }
    for (int i = 1; i < values.dims(); ++i) {
      shape[ragged_rank_ + i] = values.dim_size(i);
    }
    TensorShape out_shape;
    for (int64_t d : shape) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(d));

    // Output position (in value elements) of each item, level by level;
    // -1 when the requested shape cuts it off.
    std::vector<int64_t> multiplier(static_cast<size_t>(ragged_rank_ + 1), 1);
    for (int level = ragged_rank_ - 1; level >= 0; --level) {
      multiplier[level] = multiplier[level + 1] * shape[level + 1];
    }
    // The rows' positions are not materialized (FIRST_DIM_SIZE may be far
    // larger than anything else): row r lands at r * multiplier[0] when
    // r < shape[0].
    std::vector<int64_t> parent;
    int64_t parent_count = first_dim;
    bool rows_level = true;
    auto parent_at = [&](int64_t r) -> int64_t {
      if (!rows_level) return parent[r];
      return r < shape[0] ? r * multiplier[0] : -1;
    };
    for (int level = 1; level <= ragged_rank_; ++level) {
      const Tensor& p = partition(level - 1 + first_level);
      const int64_t size = shape[level];
      const int64_t mult = multiplier[level];
      std::vector<int64_t> child;
      // How many items the next level (or the values) holds: no level may
      // address more.
      const int64_t next_items =
          level < ragged_rank_ ? partition(level + first_level).NumElements()
                               : values.dim_size(0);
      if (types_[level - 1 + first_level] == PartitionType::kRowSplits) {
        // TensorFlow's check (the rows' lengths add up to the last split)
        // first, then that they stay within the items below.
        int64_t children = 0;
        bool overflow = false;
        for (int64_t r = 0; r + 1 < p.NumElements() && !overflow; ++r) {
          const int64_t length = IndexAt(p, r + 1) - IndexAt(p, r);
          if (length > 0) {
            overflow = length > TensorShape::kMaxElements - children;
            children += length;
          }
        }
        DFX_OP_REQUIRES(ctx,
                        !overflow && (p.NumElements() == 0 ||
                                      children == IndexAt(p, p.NumElements() - 1)),
                        absl::InvalidArgumentError("Invalid row split size."));
        DFX_OP_REQUIRES(ctx, children <= next_items,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Row splits of level ", level, " address more "
                            "than the ", next_items, " items below them")));
        DFX_OP_REQUIRES(
            ctx, p.NumElements() == parent_count + 1,
            absl::InvalidArgumentError(absl::StrCat(
                "Row splits of level ", level, " must hold ", parent_count + 1,
                " values, got ", p.NumElements())));
        for (int64_t r = 0; r < parent_count; ++r) {
          const int64_t length = IndexAt(p, r + 1) - IndexAt(p, r);
          const int64_t base = parent_at(r);
          for (int64_t j = 0; j < length; ++j) {
            child.push_back(base < 0 || j >= size ? -1 : base + j * mult);
          }
        }
        DFX_OP_REQUIRES(
            ctx,
            p.NumElements() == 0 ||
                static_cast<int64_t>(child.size()) ==
                    IndexAt(p, p.NumElements() - 1),
            absl::InvalidArgumentError("Invalid row split size."));
      } else {
        const int64_t n = p.NumElements();
        int64_t column = 0, current = -1, index = -1;
        for (int64_t i = 0; i < n; ++i) {
          const int64_t row = IndexAt(p, i);
          if (i > 0 && row == current) {
            if (index >= 0) {
              ++column;
              index = column < size ? index + mult : -1;
            }
          } else {
            DFX_OP_REQUIRES(
                ctx, row >= 0 && row < parent_count,
                absl::InvalidArgumentError(absl::StrCat(
                    "Got next_value_rowid=", row, " which is not less than ",
                    parent_count)));
            column = 0;
            current = row;
            index = parent_at(row);
            if (index >= 0 && size == 0) index = -1;
          }
          child.push_back(index);
        }
      }
      parent = std::move(child);
      parent_count = static_cast<int64_t>(parent.size());
      rows_level = false;
    }
    const int64_t items = parent_count;
    DFX_OP_REQUIRES(ctx, items <= values.dim_size(0),
                    absl::InvalidArgumentError(absl::StrCat(
                        "The row partitions address ", items,
                        " values but rt_input.flat_values has only ",
                        values.dim_size(0))));

    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t elem = 1;
    for (int i = 1; i < values.dims(); ++i) elem *= values.dim_size(i);
    // For each position in a value element, its position in default_value
    // (right-aligned dims, a dim of 1 repeated).
    std::vector<int64_t> def_index(static_cast<size_t>(elem), 0);
    for (int64_t e = 0; e < elem; ++e) {
      int64_t rest = e, at = 0, stride = 1;
      for (int i = values.dims() - 1; i >= 1; --i) {
        const int64_t coord = rest % values.dim_size(i);
        rest /= values.dim_size(i);
        const int di = default_value.dims() - (values.dims() - i);
        if (di < 0) break;
        const int64_t dsize = default_value.dim_size(di);
        at += (dsize == 1 ? 0 : coord) * stride;
        stride *= dsize;
      }
      def_index[e] = at;
    }
    const bool known = VisitMoveType(out->dtype(), [&]<typename E>() {
      E* o = Elements<E>(out);
      const E* v = Elements<E>(values);
      const E* d = Elements<E>(default_value);
      const int64_t total = out->NumElements();
      if (elem > 0) {
        for (int64_t i = 0; i < total; ++i) o[i] = d[def_index[i % elem]];
      }
      for (int64_t i = 0; i < items; ++i) {
        const int64_t at = parent_at(i);
        if (at < 0) continue;
        std::copy_n(v + i * elem, elem, o + at * elem);
      }
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "RaggedTensorToTensor: unsupported dtype"));
  }

 private:
  std::vector<PartitionType> types_;
  int ragged_rank_ = 0;
};

// ---------------------------------------------------------------------------
// RaggedRange

class RaggedRangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& starts = ctx->input(0);
    const Tensor& limits = ctx->input(1);
    const Tensor& deltas = ctx->input(2);
    DFX_OP_REQUIRES(ctx, starts.dims() <= 1,
                    absl::InvalidArgumentError("starts must be a scalar or vector"));
    DFX_OP_REQUIRES(ctx, limits.dims() <= 1,
                    absl::InvalidArgumentError("limits must be a scalar or vector"));
    DFX_OP_REQUIRES(ctx, deltas.dims() <= 1,
                    absl::InvalidArgumentError("deltas must be a scalar or vector"));
    const bool broadcast_starts = starts.dims() == 0;
    const bool broadcast_limits = limits.dims() == 0;
    const bool broadcast_deltas = deltas.dims() == 0;
    int64_t nrows = 1;
    std::vector<int64_t> lengths;
    for (const Tensor* t : {&starts, &limits, &deltas}) {
      if (t->dims() == 1) lengths.push_back(t->dim_size(0));
    }
    if (!lengths.empty()) {
      nrows = lengths[0];
      for (int64_t l : lengths) {
        DFX_OP_REQUIRES(ctx, l == nrows,
                        absl::InvalidArgumentError(
                            "starts, limits, and deltas must have the same "
                            "shape"));
      }
    }
    const bool known = Visit(starts.dtype(), [&]<typename T>() {
      const T* s = starts.data<T>();
      const T* l = limits.data<T>();
      const T* d = deltas.data<T>();
      auto at = [](const T* p, bool scalar, int64_t i) {
        return scalar ? p[0] : p[i];
      };
      std::vector<int64_t> sizes(static_cast<size_t>(nrows));
      int64_t total = 0;
      for (int64_t r = 0; r < nrows; ++r) {
        const T start = at(s, broadcast_starts, r);
        const T limit = at(l, broadcast_limits, r);
        const T delta = at(d, broadcast_deltas, r);
        DFX_OP_REQUIRES(ctx, delta != T(0),
                        absl::InvalidArgumentError("Requires delta != 0"));
        int64_t size = 0;
        if ((delta > T(0) && limit < start) || (delta < T(0) && limit > start)) {
          size = 0;
        } else if constexpr (std::is_integral_v<T>) {
          // In unsigned 64-bit arithmetic: no int overflow at the extremes.
          const uint64_t span =
              limit > start ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                            : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
          const uint64_t step = delta > T(0)
                                    ? static_cast<uint64_t>(delta)
                                    : uint64_t{0} - static_cast<uint64_t>(delta);
          const uint64_t count = span / step + (span % step != 0 ? 1 : 0);
          DFX_OP_REQUIRES(ctx, count <= static_cast<uint64_t>(TensorShape::kMaxElements),
                          absl::InvalidArgumentError(
                              "The total range size overflowed"));
          size = static_cast<int64_t>(count);
        } else {
          const double q = std::ceil(std::fabs(
              static_cast<double>(T((limit - start) / delta))));
          DFX_OP_REQUIRES(ctx, q < static_cast<double>(TensorShape::kMaxElements),
                          absl::InvalidArgumentError(
                              "Requires ((limit - start) / delta) <= "
                              "the largest tensor size"));
          size = static_cast<int64_t>(q);
        }
        DFX_OP_REQUIRES(ctx, size <= TensorShape::kMaxElements - total,
                        absl::InvalidArgumentError("The total range size "
                                                   "overflowed"));
        sizes[r] = size;
        total += size;
      }
      Tensor* splits = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                  0, TensorShape({nrows + 1}), &splits));
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(1, TensorShape({total}), &out));
      const bool split32 = splits->dtype() == DT_INT32;
      int64_t acc = 0;
      for (int64_t r = 0; r <= nrows; ++r) {
        if (split32) {
          splits->data<int32_t>()[r] = static_cast<int32_t>(acc);
        } else {
          splits->data<int64_t>()[r] = acc;
        }
        if (r < nrows) acc += sizes[r];
      }
      T* o = out->data<T>();
      int64_t k = 0;
      // Each value is the one before plus delta, as TensorFlow adds them.
      for (int64_t r = 0; r < nrows; ++r) {
        T value = at(s, broadcast_starts, r);
        const T delta = at(d, broadcast_deltas, r);
        for (int64_t j = 0; j < sizes[r]; ++j) {
          o[k++] = value;
          if (j + 1 < sizes[r]) value = T(value + delta);  // no step past the end
        }
      }
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("RaggedRange: unsupported dtype"));
  }

 private:
  template <typename Fn>
  static bool Visit(DataType dtype, Fn&& fn) {
    switch (dtype) {
      case DT_FLOAT: fn.template operator()<float>(); return true;
      case DT_DOUBLE: fn.template operator()<double>(); return true;
      case DT_BFLOAT16: fn.template operator()<Eigen::bfloat16>(); return true;
      case DT_INT32: fn.template operator()<int32_t>(); return true;
      case DT_INT64: fn.template operator()<int64_t>(); return true;
      default: return false;
    }
  }
};

// ---------------------------------------------------------------------------
// RaggedTensorToSparse

class RaggedTensorToSparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int levels = ctx->num_inputs() - 1;
    const Tensor& values = ctx->input(levels);
    DFX_OP_REQUIRES(ctx, values.dims() >= 1,
                    absl::InvalidArgumentError(
                        "rt_dense_values must have rank at least 1"));
    for (int i = 0; i < levels; ++i) {
      const Tensor& s = ctx->input(i);
      DFX_OP_REQUIRES(ctx, s.dims() == 1 && s.NumElements() >= 1,
                      absl::InvalidArgumentError(
                          "ragged splits must be non-empty vectors"));
      DFX_OP_REQUIRES(
          ctx, IndexAt(s, 0) == 0,
          absl::InvalidArgumentError("First value of ragged splits must be 0."));
      for (int64_t j = 1; j < s.NumElements(); ++j) {
        DFX_OP_REQUIRES(ctx, IndexAt(s, j - 1) <= IndexAt(s, j),
                        absl::InvalidArgumentError(absl::StrCat(
                            "Ragged splits should be non decreasing, but we "
                            "got ",
                            IndexAt(s, j - 1), " followed by ",
                            IndexAt(s, j))));
      }
      const int64_t next = i + 1 < levels ? ctx->input(i + 1).NumElements() - 1
                                          : values.dim_size(0);
      DFX_OP_REQUIRES(
          ctx, IndexAt(s, s.NumElements() - 1) == next,
          absl::InvalidArgumentError(
              "Final value of ragged splits must match the length the "
              "corresponding ragged values."));
    }
    // Each flat value's index tuple over the ragged dims, found by walking
    // down the splits; then the values' own element dims.
    const int64_t nvals = values.dim_size(0);
    int64_t elem = 1;
    for (int i = 1; i < values.dims(); ++i) elem *= values.dim_size(i);
    const int rank = levels + values.dims();
    // Level by level: the prefix tuples of the items of that level.
    std::vector<std::vector<int64_t>> items;
    {
      const Tensor& s = ctx->input(0);
      for (int64_t r = 0; r + 1 < s.NumElements(); ++r) {
        for (int64_t j = IndexAt(s, r); j < IndexAt(s, r + 1); ++j) {
          items.push_back({r, j - IndexAt(s, r)});
        }
      }
    }
    for (int i = 1; i < levels; ++i) {
      const Tensor& s = ctx->input(i);
      std::vector<std::vector<int64_t>> next;
      for (int64_t r = 0; r + 1 < s.NumElements(); ++r) {
        for (int64_t j = IndexAt(s, r); j < IndexAt(s, r + 1); ++j) {
          std::vector<int64_t> t = items[r];
          t.push_back(j - IndexAt(s, r));
          next.push_back(std::move(t));
        }
      }
      items = std::move(next);
    }
    std::vector<int64_t> dense(static_cast<size_t>(rank), 0);
    dense[0] = ctx->input(0).NumElements() - 1;
    for (int i = 0; i < levels; ++i) {
      const Tensor& s = ctx->input(i);
      for (int64_t r = 0; r + 1 < s.NumElements(); ++r) {
        dense[i + 1] = std::max(dense[i + 1], IndexAt(s, r + 1) - IndexAt(s, r));
      }
    }
    for (int i = 1; i < values.dims(); ++i) dense[levels + i] = values.dim_size(i);

    const int64_t nnz = nvals * elem;
    Tensor* indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({nnz, rank}),
                                                 &indices));
    int64_t* idx = indices->data<int64_t>();
    std::vector<int64_t> inner(static_cast<size_t>(values.dims() - 1), 0);
    for (int64_t v = 0; v < nvals; ++v) {
      std::fill(inner.begin(), inner.end(), 0);
      for (int64_t e = 0; e < elem; ++e) {
        int64_t* row = idx + (v * elem + e) * rank;
        std::copy(items[v].begin(), items[v].end(), row);
        std::copy(inner.begin(), inner.end(), row + levels + 1);
        for (int d = static_cast<int>(inner.size()) - 1; d >= 0; --d) {
          if (++inner[d] < values.dim_size(d + 1)) break;
          inner[d] = 0;
        }
      }
    }
    absl::StatusOr<Tensor> flat = values.Reshaped(TensorShape({nnz}));
    DFX_OP_REQUIRES_OK(ctx, flat.status());
    ctx->set_output(1, *std::move(flat));
    ctx->set_output(2, Tensor::FromVector<int64_t>(dense));
  }
};

}  // namespace

void RegisterRaggedKernels(KernelRegistry* registry) {
  RegisterKernel<RaggedTensorToTensorOp>(
      registry, KernelDefBuilder("RaggedTensorToTensor"));
  RegisterKernel<RaggedRangeOp>(
      registry, KernelDefBuilder("RaggedRange")
                    .TypeConstraint("T", {DT_BFLOAT16, DT_FLOAT, DT_DOUBLE,
                                          DT_INT32, DT_INT64})
                    .TypeConstraint("Tsplits", {DT_INT32, DT_INT64}));
  RegisterKernel<RaggedTensorToSparseOp>(
      registry, KernelDefBuilder("RaggedTensorToSparse"));
}

}  // namespace dfx::sparse_internal

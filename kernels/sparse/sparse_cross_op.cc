// SparseCross, SparseCrossV2 and SparseCrossHashed: the cross product of
// sparse and dense feature columns, row by row, as tf.feature_column's
// crossed_column and Keras's HashedCrossing build it. Each output entry of a
// row combines one value from every column (the last column varying
// fastest). SparseCross's hashed_output gives FingerprintCat64 chains, from
// hash_key, of the values' fingerprints (strings: Fingerprint64; int64: the
// value) modulo num_buckets, else the values joined by "_X_". SparseCrossV2
// joins by its `sep` input. SparseCrossHashed chains from the first
// column's hash, hashing as TensorFlow's keyed columns do (below). Results
// equal TensorFlow's bit for bit.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/fingerprint.h"
#include "kernels/sparse/sparse_util.h"

namespace dfx::sparse_internal {
namespace {

// One input column: for each batch row, the values of that row.
struct Column {
  const Tensor* values = nullptr;  // sparse values, or the dense matrix
  bool dense = false;
  int64_t dense_width = 0;
  std::vector<int64_t> start;  // sparse: first value of each row
  std::vector<int64_t> count;  // sparse: number of values of each row

  int64_t Count(int64_t row) const { return dense ? dense_width : count[row]; }
  int64_t Position(int64_t row, int64_t n) const {
    return dense ? row * dense_width + n : start[row] + n;
  }
  // The value's hash for SparseCross's hashed cross.
  uint64_t Hash(int64_t row, int64_t n) const {
    const int64_t at = Position(row, n);
    if (values->dtype() == DT_STRING) {
      return Fingerprint64(values->data<std::string>()[at]);
    }
    return static_cast<uint64_t>(values->data<int64_t>()[at]);
  }
  // The value's hash for SparseCrossHashed. TensorFlow's keyed columns hash
  // a string with SipHash24 (strong) or Fingerprint64; an int64 of a sparse
  // column by its first 4 bytes (the size of a DataType, not of the value),
  // and one of a dense column is the value itself unless strong (which
  // TensorFlow reads through the value as a pointer: refused before this).
  uint64_t KeyedHash(int64_t row, int64_t n, bool strong,
                     const uint64_t key[2]) const {
    const int64_t at = Position(row, n);
    if (values->dtype() == DT_STRING) {
      const std::string& v = values->data<std::string>()[at];
      return strong ? SipHash24(key[0], key[1], v) : Fingerprint64(v);
    }
    const int64_t v = values->data<int64_t>()[at];
    if (dense) return static_cast<uint64_t>(v);
    const absl::string_view bytes(reinterpret_cast<const char*>(&v), 4);
    return strong ? SipHash24(key[0], key[1], bytes) : Fingerprint64(bytes);
  }
  // The value as text for a string cross.
  std::string Text(int64_t row, int64_t n) const {
    const int64_t at = Position(row, n);
    if (values->dtype() == DT_STRING) return values->data<std::string>()[at];
    return absl::StrCat(values->data<int64_t>()[at]);
  }
};

// Which op a SparseCrossOp serves.
enum class CrossKind { kV1, kV2, kHashed };

class SparseCrossOp : public OpKernel {
 public:
  SparseCrossOp(OpKernelConstruction* ctx, CrossKind kind)
      : OpKernel(ctx), kind_(kind) {
    if (kind == CrossKind::kV1) {
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("hashed_output", &hashed_));
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &num_buckets_));
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("hash_key", &hash_key_));
    } else {
      hashed_ = kind == CrossKind::kHashed;
    }
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("N", &num_sparse_));
    DataTypeVector dense_types;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_types", &dense_types));
    num_dense_ = static_cast<int64_t>(dense_types.size());
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t ns = num_sparse_;
    const int64_t nd = num_dense_;
    auto indices = [&](int64_t i) -> const Tensor& { return ctx->input(i); };
    auto values = [&](int64_t i) -> const Tensor& {
      return ctx->input(ns + i);
    };
    auto shape = [&](int64_t i) -> const Tensor& {
      return ctx->input(2 * ns + i);
    };
    auto dense = [&](int64_t i) -> const Tensor& {
      return ctx->input(3 * ns + i);
    };
    for (int64_t i = 0; i < ns; ++i) {
      DFX_OP_REQUIRES(ctx,
                      indices(i).dims() == 2 && indices(i).dim_size(1) == 2,
                      absl::InvalidArgumentError(
                          absl::StrCat("Expected indices[", i,
                                       "] to be a matrix of 2 "
                                       "columns, got shape ",
                                       indices(i).shape().DebugString())));
      DFX_OP_REQUIRES(ctx, values(i).dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected values[", i, "] to be a vector, got shape ",
                          values(i).shape().DebugString())));
      DFX_OP_REQUIRES(
          ctx, indices(i).dim_size(0) == values(i).dim_size(0),
          absl::InvalidArgumentError(absl::StrCat(
              "Expected size of values to be ", indices(i).dim_size(0),
              " but got ", values(i).dim_size(0), " at position ", i)));
      DFX_OP_REQUIRES(ctx, shape(i).dims() == 1 && shape(i).NumElements() == 2,
                      absl::InvalidArgumentError(
                          absl::StrCat("Expected shapes[", i,
                                       "] to be a vector of size 2, "
                                       "got shape ",
                                       shape(i).shape().DebugString())));
    }
    for (int64_t i = 0; i < nd; ++i) {
      DFX_OP_REQUIRES(ctx, dense(i).dims() == 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dense inputs should be a matrix but received shape ",
                          dense(i).shape().DebugString(), " at position ", i)));
    }
    // The inputs after the columns: SparseCrossV2's sep, SparseCrossHashed's
    // num_buckets, strong_hash and salt.
    const int64_t extra = 3 * ns + nd;
    std::string sep = "_X_";
    bool strong = false;
    uint64_t key[2] = {0, 0};
    int64_t num_buckets = num_buckets_;
    if (kind_ == CrossKind::kV2) {
      const Tensor& t = ctx->input(extra);
      DFX_OP_REQUIRES(ctx, t.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input separator should be a scalar. Received: ",
                          t.DebugString())));
      sep = t.data<std::string>()[0];
    } else if (kind_ == CrossKind::kHashed) {
      // TensorFlow reads num_buckets and strong_hash as scalars without a
      // check (and aborts on anything else).
      const Tensor& nb = ctx->input(extra);
      const Tensor& sh = ctx->input(extra + 1);
      const Tensor& salt = ctx->input(extra + 2);
      DFX_OP_REQUIRES(ctx, nb.NumElements() == 1 && sh.NumElements() == 1,
                      absl::InvalidArgumentError(
                          "num_buckets and strong_hash must be scalars"));
      num_buckets = nb.data<int64_t>()[0];
      strong = sh.data<bool>()[0];
      DFX_OP_REQUIRES(ctx, salt.NumElements() == 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input \"salt\" must have length 2 but has length ",
                          salt.NumElements())));
      key[0] = static_cast<uint64_t>(salt.data<int64_t>()[0]);
      key[1] = static_cast<uint64_t>(salt.data<int64_t>()[1]);
      for (int64_t i = 0; strong && i < nd; ++i) {
        DFX_OP_REQUIRES(
            ctx, dense(i).dtype() == DT_STRING,
            absl::InvalidArgumentError(
                "strong_hash of an int64 dense input is not supported "
                "(TensorFlow reads the value as a pointer)"));
      }
    }
    DFX_OP_REQUIRES(ctx, kind_ != CrossKind::kV1 || ns + nd > 0,
                    absl::InvalidArgumentError(
                        "SparseCross needs at least one input column"));
    // Every input has the same batch size (none: no rows).
    int64_t batch = ns > 0   ? shape(0).data<int64_t>()[0]
                    : nd > 0 ? dense(0).dim_size(0)
                             : 0;
    for (int64_t i = 0; i < ns; ++i) {
      const int64_t b = shape(i).data<int64_t>()[0];
      DFX_OP_REQUIRES(
          ctx, b == batch,
          absl::InvalidArgumentError(absl::StrCat(
              "Expected batch size ", batch, " got ", b, " at position ", i)));
    }
    for (int64_t i = 0; i < nd; ++i) {
      DFX_OP_REQUIRES(ctx, dense(i).dim_size(0) == batch,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected batch size ", batch, " got ",
                          dense(i).dim_size(0), " at dense tensor ", i)));
    }
    DFX_OP_REQUIRES(ctx, batch >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected a non-negative batch size, got ", batch)));

    // Sparse columns first, then dense ones, as TensorFlow orders them.
    std::vector<Column> columns(static_cast<size_t>(ns + nd));
    for (int64_t i = 0; i < ns; ++i) {
      Column& c = columns[i];
      c.values = &values(i);
      c.count.assign(static_cast<size_t>(batch), 0);
      c.start.assign(static_cast<size_t>(batch), 0);
      const int64_t* ind = indices(i).data<int64_t>();
      for (int64_t k = 0; k < indices(i).dim_size(0); ++k) {
        const int64_t row = ind[2 * k];
        DFX_OP_REQUIRES(ctx, row >= 0 && row < batch,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Invalid batch index ", row, " in indices[", i,
                            "] of batch size ", batch)));
        ++c.count[row];
      }
      // Values are grouped by row in row order (a SparseTensor's order).
      int64_t at = 0;
      for (int64_t row = 0; row < batch; ++row) {
        c.start[row] = at;
        at += c.count[row];
      }
    }
    for (int64_t i = 0; i < nd; ++i) {
      Column& c = columns[ns + i];
      c.values = &dense(i);
      c.dense = true;
      c.dense_width = dense(i).dim_size(1);
    }

    // Output entries per row: the product of the columns' counts.
    std::vector<int64_t> per_row(static_cast<size_t>(batch), 0);
    int64_t total = 0;
    int64_t widest = 0;
    for (int64_t row = 0; row < batch; ++row) {
      int64_t n = columns.empty() ? 0 : 1;
      for (const Column& c : columns) {
        const int64_t k = c.Count(row);
        DFX_OP_REQUIRES(ctx, k == 0 || n <= TensorShape::kMaxElements / k,
                        absl::InvalidArgumentError("The cross is too large"));
        n *= k;
      }
      per_row[row] = n;
      DFX_OP_REQUIRES(ctx, n <= TensorShape::kMaxElements - total,
                      absl::InvalidArgumentError("The cross is too large"));
      total += n;
      widest = std::max(widest, n);
    }
    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total, 2}), &out_indices));
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({total}), &out_values));
    Tensor* out_shape = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, TensorShape({2}), &out_shape));
    out_shape->data<int64_t>()[0] = batch;
    out_shape->data<int64_t>()[1] = widest;
    DFX_OP_REQUIRES(
        ctx, (out_values->dtype() == DT_INT64) == hashed_,
        absl::InvalidArgumentError(
            "out_type must be int64 for a hashed cross and string otherwise"));
    const uint64_t mod =
        num_buckets > 0
            ? static_cast<uint64_t>(num_buckets)
            : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

    int64_t* oi = out_indices->data<int64_t>();
    int64_t at = 0;
    std::vector<int64_t> pick(columns.size());
    for (int64_t row = 0; row < batch; ++row) {
      std::fill(pick.begin(), pick.end(), 0);
      for (int64_t k = 0; k < per_row[row]; ++k, ++at) {
        oi[2 * at] = row;
        oi[2 * at + 1] = k;
        if (kind_ == CrossKind::kHashed) {
          uint64_t h = columns[0].KeyedHash(row, pick[0], strong, key);
          for (size_t c = 1; c < columns.size(); ++c) {
            h = FingerprintCat64(
                h, columns[c].KeyedHash(row, pick[c], strong, key));
          }
          out_values->data<int64_t>()[at] = static_cast<int64_t>(h % mod);
        } else if (hashed_) {
          uint64_t h = static_cast<uint64_t>(hash_key_);
          for (size_t c = 0; c < columns.size(); ++c) {
            h = FingerprintCat64(h, columns[c].Hash(row, pick[c]));
          }
          out_values->data<int64_t>()[at] = static_cast<int64_t>(h % mod);
        } else {
          std::string s;
          for (size_t c = 0; c < columns.size(); ++c) {
            if (c > 0) s += sep;
            s += columns[c].Text(row, pick[c]);
          }
          out_values->data<std::string>()[at] = std::move(s);
        }
        // Next combination: the last column varies fastest.
        for (int64_t c = static_cast<int64_t>(columns.size()) - 1; c >= 0;
             --c) {
          if (++pick[c] < columns[c].Count(row)) break;
          pick[c] = 0;
        }
      }
    }
  }

 private:
  const CrossKind kind_;
  bool hashed_ = false;
  int64_t num_buckets_ = 0;
  int64_t hash_key_ = 0;
  int64_t num_sparse_ = 0;
  int64_t num_dense_ = 0;
};

template <CrossKind kKind>
class SparseCrossOfKind : public SparseCrossOp {
 public:
  explicit SparseCrossOfKind(OpKernelConstruction* ctx)
      : SparseCrossOp(ctx, kKind) {}
};

}  // namespace

void RegisterSparseCrossKernels(KernelRegistry* registry) {
  RegisterKernel<SparseCrossOfKind<CrossKind::kV1>>(
      registry, KernelDefBuilder("SparseCross"));
  RegisterKernel<SparseCrossOfKind<CrossKind::kV2>>(
      registry, KernelDefBuilder("SparseCrossV2"));
  RegisterKernel<SparseCrossOfKind<CrossKind::kHashed>>(
      registry, KernelDefBuilder("SparseCrossHashed"));
}

}  // namespace dfx::sparse_internal

// SparseCross, SparseCrossV2 and SparseCrossHashed: the cross product of
// sparse and dense feature columns, row by row, as tf.feature_column's
// crossed_column and Keras's HashedCrossing build it. Each output entry of a
// row combines one value from every column (the last column varying
// fastest). SparseCross's hashed_output gives FingerprintCat64 chains, from
// hash_key, of the values' fingerprints (strings: Fingerprint64; int64: the
// value) modulo num_buckets, else the values joined by "_X_". SparseCrossV2
// joins by its `sep` input. SparseCrossHashed chains from the first
// column's hash, hashing as TensorFlow's keyed columns do (below). Results
// equal TensorFlow's bit for bit. RaggedCross (tf.ragged.cross) crosses
// ragged, sparse and dense columns as SparseCross does.
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

// RaggedCross: tf.ragged.cross and cross_hashed. Columns come from ragged,
// sparse and dense inputs in `input_order` ("R", "S", "D" per column); the
// output dtype picks the form: int64 is SparseCross's hashed cross (from
// hash_key), string the values joined by "_X_". Row r of the output holds
// row r's crosses.
class RaggedCrossOp : public OpKernel {
 public:
  explicit RaggedCrossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_buckets", &num_buckets_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("hash_key", &hash_key_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("input_order", &input_order_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Nsparse", &num_sparse_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("out_row_splits_type", &splits_type_));
    DataTypeVector ragged, splits, sparse, dense;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_values_types", &ragged));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_splits_types", &splits));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("sparse_values_types", &sparse));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_types", &dense));
    DFX_OP_REQUIRES(ctx, ragged.size() == splits.size(),
                    absl::InvalidArgumentError(
                        "ragged values and splits must have the same length"));
    DFX_OP_REQUIRES(ctx, num_sparse_ == static_cast<int64_t>(sparse.size()),
                    absl::InvalidArgumentError(
                        "sparse indices and values must have the same length"));
    // TensorFlow reads every input's splits as the output's splits type
    // (and aborts on another).
    for (DataType t : splits) {
      DFX_OP_REQUIRES(ctx, t == splits_type_,
                      absl::InvalidArgumentError(
                          "RaggedCross: every ragged input's row splits must "
                          "have out_row_splits_type"));
    }
    num_ragged_ = static_cast<int64_t>(ragged.size());
    num_dense_ = static_cast<int64_t>(dense.size());
    DFX_OP_REQUIRES(
        ctx,
        static_cast<size_t>(num_ragged_ + num_sparse_ + num_dense_) ==
            input_order_.size(),
        absl::InvalidArgumentError("Invalid length for input_order"));
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t nr = num_ragged_, ns = num_sparse_, nd = num_dense_;
    auto rvalues = [&](int64_t i) -> const Tensor& { return ctx->input(i); };
    auto rsplits = [&](int64_t i) -> const Tensor& {
      return ctx->input(nr + i);
    };
    auto sindices = [&](int64_t i) -> const Tensor& {
      return ctx->input(2 * nr + i);
    };
    auto svalues = [&](int64_t i) -> const Tensor& {
      return ctx->input(2 * nr + ns + i);
    };
    auto sshape = [&](int64_t i) -> const Tensor& {
      return ctx->input(2 * nr + 2 * ns + i);
    };
    auto dense = [&](int64_t i) -> const Tensor& {
      return ctx->input(2 * nr + 3 * ns + i);
    };
    const absl::Status rank2 = absl::InvalidArgumentError(
        "tf.ragged.cross only supports inputs with rank=2.");
    for (int64_t i = 0; i < nr; ++i) {
      DFX_OP_REQUIRES(ctx, rvalues(i).dims() == 1 && rsplits(i).dims() == 1,
                      rank2);
      const Tensor& sp = rsplits(i);
      const int64_t n = sp.NumElements();
      DFX_OP_REQUIRES(ctx, n > 0,
                      absl::InvalidArgumentError(
                          "Invalid ragged splits: ragged splits must have at "
                          "least one splits, but is empty"));
      DFX_OP_REQUIRES(ctx, IndexAt(sp, 0) == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid ragged splits: first element of ragged "
                          "splits  must be 0 but is ",
                          IndexAt(sp, 0))));
      for (int64_t k = 1; k < n; ++k) {
        DFX_OP_REQUIRES(ctx, IndexAt(sp, k) >= IndexAt(sp, k - 1),
                        absl::InvalidArgumentError(
                            "Invalid ragged splits: ragged splits must be "
                            "monotonically increasing"));
      }
      DFX_OP_REQUIRES(
          ctx, IndexAt(sp, n - 1) == rvalues(i).NumElements(),
          absl::InvalidArgumentError(absl::StrCat(
              "Invalid ragged splits: last element of ragged "
              "splits must be the number of ragged values(",
              rvalues(i).NumElements(), ") but is ", IndexAt(sp, n - 1))));
    }
    for (int64_t i = 0; i < ns; ++i) {
      DFX_OP_REQUIRES(
          ctx,
          sindices(i).dims() == 2 && svalues(i).dims() == 1 &&
              sshape(i).dims() == 1,
          absl::InvalidArgumentError(absl::StrCat("Invalid SparseTensor ", i)));
      DFX_OP_REQUIRES(ctx, sshape(i).NumElements() == 2, rank2);
      // TensorFlow reads an index row per value without checking.
      DFX_OP_REQUIRES(ctx, sindices(i).dim_size(0) == svalues(i).dim_size(0),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid SparseTensor ", i,
                          ": indices and values differ in length")));
    }
    for (int64_t i = 0; i < nd; ++i) {
      DFX_OP_REQUIRES(ctx, dense(i).dims() == 2, rank2);
    }
    const int64_t batch = nr > 0   ? rsplits(0).NumElements() - 1
                          : nd > 0 ? dense(0).dim_size(0)
                          : ns > 0 ? sshape(0).data<int64_t>()[0]
                                   : 0;
    const absl::Status same_batch = absl::InvalidArgumentError(
        "inputs must all have the same batch dimension size.");
    for (int64_t i = 0; i < nr; ++i) {
      DFX_OP_REQUIRES(ctx, rsplits(i).NumElements() - 1 == batch, same_batch);
    }
    for (int64_t i = 0; i < ns; ++i) {
      DFX_OP_REQUIRES(ctx, sshape(i).data<int64_t>()[0] == batch, same_batch);
    }
    for (int64_t i = 0; i < nd; ++i) {
      DFX_OP_REQUIRES(ctx, dense(i).dim_size(0) == batch, same_batch);
    }
    DFX_OP_REQUIRES(ctx, batch >= 0, same_batch);

    // Columns in input_order. A sparse column's rows as TensorFlow finds
    // them: row r ends at the first value whose row index is above r.
    std::vector<Column> columns;
    int64_t next[3] = {0, 0, 0};
    for (char c : input_order_) {
      Column col;
      if (c == 'R' && next[0] < nr) {
        const int64_t i = next[0]++;
        col.values = &rvalues(i);
        for (int64_t r = 0; r < batch; ++r) {
          col.start.push_back(IndexAt(rsplits(i), r));
          col.count.push_back(IndexAt(rsplits(i), r + 1) -
                              IndexAt(rsplits(i), r));
        }
      } else if (c == 'S' && next[1] < ns) {
        const int64_t i = next[1]++;
        col.values = &svalues(i);
        const int64_t* ind = sindices(i).data<int64_t>();
        const int64_t cols = sindices(i).dim_size(1);
        const int64_t n = svalues(i).NumElements();
        int64_t at = 0;
        for (int64_t r = 0; r < batch; ++r) {
          const int64_t first = at;
          while (at < n && ind[at * cols] <= r) ++at;
          col.start.push_back(first);
          col.count.push_back(at - first);
        }
      } else if (c == 'D' && next[2] < nd) {
        const int64_t i = next[2]++;
        col.values = &dense(i);
        col.dense = true;
        col.dense_width = dense(i).dim_size(1);
      } else {
        DFX_OP_REQUIRES(ctx, false,
                        absl::InvalidArgumentError(absl::StrCat(
                            "input_order \"", input_order_,
                            "\" names more inputs than there are, or an "
                            "unexpected letter")));
      }
      columns.push_back(std::move(col));
    }

    Tensor* out_splits = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({batch + 1}), &out_splits));
    const bool splits64 = out_splits->dtype() == DT_INT64;
    auto set_split = [&](int64_t r, int64_t v) {
      if (splits64) {
        out_splits->data<int64_t>()[r] = v;
      } else {
        out_splits->data<int32_t>()[r] = static_cast<int32_t>(v);
      }
    };
    std::vector<int64_t> per_row(static_cast<size_t>(batch), 0);
    int64_t total = 0;
    set_split(0, 0);
    for (int64_t r = 0; r < batch; ++r) {
      int64_t n = columns.empty() ? 0 : 1;
      for (const Column& c : columns) {
        const int64_t k = c.Count(r);
        DFX_OP_REQUIRES(ctx, k == 0 || n <= TensorShape::kMaxElements / k,
                        absl::InvalidArgumentError("The cross is too large"));
        n *= k;
      }
      DFX_OP_REQUIRES(ctx, n <= TensorShape::kMaxElements - total,
                      absl::InvalidArgumentError("The cross is too large"));
      per_row[r] = n;
      total += n;
      set_split(r + 1, total);
    }
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total}), &out_values));
    const bool hashed = out_values->dtype() == DT_INT64;
    const uint64_t mod =
        num_buckets_ > 0
            ? static_cast<uint64_t>(num_buckets_)
            : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    std::vector<int64_t> pick(columns.size());
    int64_t at = 0;
    for (int64_t r = 0; r < batch; ++r) {
      std::fill(pick.begin(), pick.end(), 0);
      for (int64_t k = 0; k < per_row[r]; ++k, ++at) {
        if (hashed) {
          uint64_t h = static_cast<uint64_t>(hash_key_);
          for (size_t c = 0; c < columns.size(); ++c) {
            h = FingerprintCat64(h, columns[c].Hash(r, pick[c]));
          }
          out_values->data<int64_t>()[at] = static_cast<int64_t>(h % mod);
        } else {
          std::string s;
          for (size_t c = 0; c < columns.size(); ++c) {
            if (c > 0) s += "_X_";
            s += columns[c].Text(r, pick[c]);
          }
          out_values->data<std::string>()[at] = std::move(s);
        }
        for (int64_t c = static_cast<int64_t>(columns.size()) - 1; c >= 0;
             --c) {
          if (++pick[c] < columns[c].Count(r)) break;
          pick[c] = 0;
        }
      }
    }
  }

 private:
  int64_t num_buckets_ = 0;
  int64_t hash_key_ = 0;
  std::string input_order_;
  DataType splits_type_ = DT_INT64;
  int64_t num_ragged_ = 0;
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
  RegisterKernel<RaggedCrossOp>(registry, KernelDefBuilder("RaggedCross"));
}

}  // namespace dfx::sparse_internal

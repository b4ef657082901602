// The estimator family's kernels: TF1 estimators' k-means clustering
// (KmeansPlusPlusInitialization, KMC2ChainInitialization, NearestNeighbors),
// warm-starting's GenerateVocabRemapping and LoadAndRemapMatrix, word2vec's
// Skipgram and NegTrain, and the SDCA
// optimizer's SdcaFprint and SdcaShrinkL1, as TensorFlow 2.21's CPU kernels
// compute them (clustering_ops.cc, generate_vocab_remapping_op.cc,
// load_and_remap_matrix_op.cc, sdca_ops.cc).
//
// The random ones draw from TensorFlow's Philox stream seeded by the seed
// input (key = seed, counter 0) through SimplePhilox, so the same seed
// samples the same points as TensorFlow. Distances are plain float loops;
// TensorFlow's Eigen products may round differently in the last bits,
// which only matters for ties that rounding decides.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "checkpoint/tensor_bundle.h"
#include "kernels/fingerprint.h"
#include "kernels/kernels.h"
#include "kernels/random/philox.h"
#include "kernels/random/simple_philox.h"
#include "kernels/state/variable_util.h"
#include "runtime/device.h"
#include "runtime/file_policy.h"

namespace dfx {
namespace {

using random::Philox;
using random::SimplePhilox;

absl::Status RequireScalar(const Tensor& t, const char* what) {
  if (t.dims() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Input ", what, " should be a scalar."));
}

// Half the squared Euclidean norm of each row of the row-major n x d `x`.
std::vector<float> HalfSquaredNorms(const float* x, int64_t n, int64_t d) {
  std::vector<float> out(n);
  for (int64_t i = 0; i < n; ++i) {
    float s = 0.0f;
    for (int64_t j = 0; j < d; ++j) s += x[i * d + j] * x[i * d + j];
    out[i] = 0.5f * s;
  }
  return out;
}

float Dot(const float* a, const float* b, int64_t d) {
  float s = 0.0f;
  for (int64_t j = 0; j < d; ++j) s += a[j] * b[j];
  return s;
}

// TensorFlow's loop redraws until it finds a point not sampled yet, which
// never ends when only sampled points carry weight (rounding can leave a
// sampled point a tiny positive distance from itself); dfx gives up after
// this many draws for one sample.
constexpr int64_t kMaxDraws = int64_t{1} << 22;

class KmeansPlusPlusInitializationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& points = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, points.dims() == 2,
        absl::InvalidArgumentError("Input points should be a matrix."));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(1), "num_to_sample"));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(2), "seed"));
    DFX_OP_REQUIRES_OK(ctx,
                       RequireScalar(ctx->input(3), "num_retries_per_sample"));
    const int64_t n = points.dim_size(0);
    const int64_t d = points.dim_size(1);
    const int64_t num_to_sample = ctx->input(1).scalar<int64_t>();
    const int64_t seed = ctx->input(2).scalar<int64_t>();
    int64_t retries = ctx->input(3).scalar<int64_t>();
    if (retries < 0) {
      retries = 2 + static_cast<int64_t>(
                        std::log(static_cast<double>(num_to_sample)));
    }
    DFX_OP_REQUIRES(ctx, n > 0,
                    absl::InvalidArgumentError("Expected points.rows() > 0."));
    DFX_OP_REQUIRES(ctx, num_to_sample > 0,
                    absl::InvalidArgumentError("Expected num_to_sample > 0."));
    DFX_OP_REQUIRES(ctx, num_to_sample <= n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected num_to_sample <= points.rows(). ",
                        num_to_sample, " vs ", n, ".")));

    const float* x = points.data<float>();
    Tensor out(DT_FLOAT, TensorShape({num_to_sample, d}));
    float* samples = out.data<float>();
    const std::vector<float> half_norm = HalfSquaredNorms(x, n, d);
    absl::flat_hash_set<int64_t> sampled;
    Philox gen(static_cast<uint64_t>(seed), 0);
    SimplePhilox rng(&gen);

    std::vector<float> min_dist(n, std::numeric_limits<float>::infinity());
    std::vector<float> cumsum(n);
    // Half squared distances from every point to point `y`, folded into
    // `base` by minimum.
    auto fold = [&](const std::vector<float>& base, int64_t y,
                    std::vector<float>* result) {
      result->resize(n);
      const float* py = x + y * d;
      for (int64_t i = 0; i < n; ++i) {
        const float dist =
            (half_norm[i] - Dot(x + i * d, py, d)) + half_norm[y];
        (*result)[i] = std::min(base[i], dist);
      }
    };
    // TensorFlow 2.21's draw: a point by the cumulative distances, again
    // while it is one sampled already. When no weight is left (all
    // distances 0, or NaN) upper_bound gives n, which TensorFlow clamps to
    // the last point for the output but indexes unclamped (past the end)
    // for the distances; dfx clamps both.
    auto draw = [&](int64_t* index) -> absl::Status {
      if (sampled.empty()) {
        *index = static_cast<int64_t>(rng.Uniform64(n));
        return absl::OkStatus();
      }
      for (int64_t tries = 0; tries < kMaxDraws; ++tries) {
        const float v = rng.RandFloat() * cumsum[n - 1];
        const int64_t i =
            std::upper_bound(cumsum.begin(), cumsum.end(), v) - cumsum.begin();
        if (!sampled.contains(i)) {
          *index = std::min(i, n - 1);
          return absl::OkStatus();
        }
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "No point left to sample after ", kMaxDraws,
          " draws: only already sampled points have a positive distance"));
    };

    std::vector<float> candidate, best;
    for (int64_t s = 0; s < num_to_sample; ++s) {
      if (s > 0)
        std::partial_sum(min_dist.begin(), min_dist.end(), cumsum.begin());
      int64_t chosen = 0;
      if (retries == 0) {
        DFX_OP_REQUIRES_OK(ctx, draw(&chosen));
        fold(min_dist, chosen, &candidate);
        min_dist.swap(candidate);
      } else {
        float best_potential = std::numeric_limits<float>::infinity();
        best.assign(n, 0.0f);
        for (int64_t r = 1 + retries; r > 0; --r) {
          int64_t index = 0;
          DFX_OP_REQUIRES_OK(ctx, draw(&index));
          fold(min_dist, index, &candidate);
          float potential = 0.0f;
          for (float v : candidate) potential += v;
          if (potential < best_potential) {
            best_potential = potential;
            chosen = index;
            best.swap(candidate);
          }
        }
        min_dist.swap(best);
      }
      std::copy(x + chosen * d, x + (chosen + 1) * d, samples + s * d);
      sampled.insert(chosen);
    }
    ctx->set_output(0, std::move(out));
  }
};

// One Markov chain of k-MC^2: the chain moves to candidate i with
// probability min(1, distances[i] / distances[current]).
class Kmc2ChainInitializationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& distances = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, distances.dims() == 1,
        absl::InvalidArgumentError("Input distances should be a vector."));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(1), "seed"));
    const int64_t n = distances.dim_size(0);
    const int64_t seed = ctx->input(1).scalar<int64_t>();
    DFX_OP_REQUIRES(
        ctx, n > 0,
        absl::InvalidArgumentError("Expected distances_tensor.size() > 0."));
    Philox gen(static_cast<uint64_t>(seed), 0);
    SimplePhilox rng(&gen);
    const float* dist = distances.data<float>();
    int64_t selected = 0;
    float selected_distance = dist[0];
    for (int64_t i = 1; i < n; ++i) {
      if (dist[i] > rng.RandFloat() * selected_distance) {
        selected = i;
        selected_distance = dist[i];
      }
    }
    ctx->set_output(0, Tensor::Scalar<int64_t>(selected));
  }
};

// The k nearest centers of each point by Euclidean distance, nearest first
// (ties to the lower center index), and their squared distances.
class NearestNeighborsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& points = ctx->input(0);
    const Tensor& centers = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, points.dims() == 2,
        absl::InvalidArgumentError("Input points should be a matrix."));
    DFX_OP_REQUIRES(
        ctx, centers.dims() == 2,
        absl::InvalidArgumentError("Input centers should be a matrix."));
    DFX_OP_REQUIRES_OK(ctx, RequireScalar(ctx->input(2), "k"));
    const int64_t n = points.dim_size(0);
    const int64_t d = points.dim_size(1);
    const int64_t m = centers.dim_size(0);
    DFX_OP_REQUIRES(ctx, n > 0,
                    absl::InvalidArgumentError("Expected points.rows() > 0."));
    DFX_OP_REQUIRES(ctx, d == centers.dim_size(1),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected point_dimensions == center_dimensions: ", d,
                        " vs ", centers.dim_size(1), ".")));
    const int64_t k_in = ctx->input(2).scalar<int64_t>();
    DFX_OP_REQUIRES(ctx, k_in >= 0,
                    absl::InvalidArgumentError("Expected k >= 0."));
    const int64_t k = std::min(m, k_in);
    Tensor indices(DT_INT64, TensorShape({n, k}));
    Tensor distances(DT_FLOAT, TensorShape({n, k}));
    if (k > 0) {
      const float* p = points.data<float>();
      const float* c = centers.data<float>();
      const std::vector<float> point_half = HalfSquaredNorms(p, n, d);
      const std::vector<float> center_half = HalfSquaredNorms(c, m, d);
      int64_t* out_i = indices.data<int64_t>();
      float* out_d = distances.data<float>();
      std::vector<std::pair<float, int64_t>> partial(m);
      for (int64_t i = 0; i < n; ++i) {
        // TensorFlow ranks centers by half the squared distance less the
        // point's own term, then adds it back.
        for (int64_t j = 0; j < m; ++j) {
          partial[j] = {center_half[j] - Dot(p + i * d, c + j * d, d), j};
        }
        std::partial_sort(partial.begin(), partial.begin() + k, partial.end());
        for (int64_t j = 0; j < k; ++j) {
          out_i[i * k + j] = partial[j].second;
          out_d[i * k + j] = 2.0f * (point_half[i] + partial[j].first);
        }
      }
    }
    ctx->set_output(0, std::move(indices));
    ctx->set_output(1, std::move(distances));
  }
};

// The lines of a vocabulary file, as TensorFlow's text-file table
// initializer reads them: at most `limit` (all when -1), "\n" or "\r\n"
// removed; an empty line or fewer lines than `limit` is InvalidArgument.
absl::StatusOr<std::vector<std::string>> ReadVocab(absl::string_view node,
                                                   const std::string& filename,
                                                   int64_t limit) {
  DFX_ASSIGN_OR_RETURN(const std::string path, ResolveDataPath(node, filename));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(filename, "; No such file or directory"));
  }
  std::vector<std::string> lines;
  std::string line;
  int64_t pos = 0;
  while ((limit < 0 || static_cast<int64_t>(lines.size()) < limit) &&
         std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos += static_cast<int64_t>(line.size()) + 1;
    if (line.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid content in ", filename,
                       ": empty line found at position ", pos, "."));
    }
    lines.push_back(line);
  }
  if (lines.empty() && limit != 0) {
    if (limit > 0) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid vocab_size in ",
                                                     filename, ": expected ",
                                                     limit, " but got 0"));
    }
    return absl::OutOfRangeError(absl::StrCat("End of file ", filename));
  }
  if (limit > 0 && static_cast<int64_t>(lines.size()) != limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid vocab_size in ", filename, ": expected ", limit,
                     " but got ", lines.size()));
  }
  return lines;
}

absl::StatusOr<std::string> VocabFileName(const Tensor& t, const char* which) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(which, "_vocab_file should be a single string, but got ",
                     t.shape().DebugString()));
  }
  const std::string& name = t.scalar<std::string>();
  // TensorFlow's message says "new" for both files.
  if (name.empty()) {
    return absl::InvalidArgumentError("new vocab filename cannot be empty.");
  }
  return name;
}

// GenerateVocabRemapping: for each of lines [offset, offset + num) of the
// new vocabulary, the line number of the same token in the old one, or -1.
class GenerateVocabRemappingOp : public OpKernel {
 public:
  // TensorFlow reads the attrs into ints: InvalidArgument past int32.
  explicit GenerateVocabRemappingOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("new_vocab_offset", &offset_));
    c->SetStatus(c->GetAttr("num_new_vocab", &num_new_));
    c->SetStatus(c->GetAttr("old_vocab_size", &old_size_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> new_name = VocabFileName(ctx->input(0), "new");
    DFX_OP_REQUIRES_OK(ctx, new_name.status());
    absl::StatusOr<std::vector<std::string>> new_vocab =
        ReadVocab(name(), *new_name, -1);
    DFX_OP_REQUIRES_OK(ctx, new_vocab.status());
    DFX_OP_REQUIRES(
        ctx,
        int64_t{offset_} + num_new_ <= static_cast<int64_t>(new_vocab->size()),
        absl::InvalidArgumentError(
            "lookup table size must be larger than last new "
            "vocab entry's line"));
    absl::StatusOr<std::string> old_name = VocabFileName(ctx->input(1), "old");
    DFX_OP_REQUIRES_OK(ctx, old_name.status());
    absl::StatusOr<std::vector<std::string>> old_vocab =
        ReadVocab(name(), *old_name, old_size_);
    DFX_OP_REQUIRES_OK(ctx, old_vocab.status());
    absl::flat_hash_map<std::string, int64_t> old_ids;
    for (int64_t i = 0; i < static_cast<int64_t>(old_vocab->size()); ++i) {
      auto [it, inserted] = old_ids.try_emplace((*old_vocab)[i], i);
      DFX_OP_REQUIRES(ctx, inserted,
                      absl::FailedPreconditionError(absl::StrCat(
                          "HashTable has different value for same key. Key ",
                          (*old_vocab)[i], " has ", it->second,
                          " and trying to add value ", i)));
    }
    Tensor remapping(DT_INT64, TensorShape({num_new_}));
    int64_t* out = remapping.data<int64_t>();
    int32_t present = 0;
    for (int64_t i = 0; i < num_new_; ++i) {
      auto it = old_ids.find((*new_vocab)[int64_t{offset_} + i]);
      out[i] = it == old_ids.end() ? -1 : it->second;
      if (out[i] != -1) ++present;
    }
    ctx->set_output(0, std::move(remapping));
    ctx->set_output(1, Tensor::Scalar<int32_t>(present));
  }

 private:
  int32_t offset_ = 0;
  int32_t num_new_ = 0;
  int32_t old_size_ = -1;
};

// The inverse of a remapping vector (new id -> old id, or < 0 for none):
// old id -> new id, and which new ids have an old one. Unimplemented when
// two new ids share an old one, as in TensorFlow.
absl::Status InvertRemapping(const Tensor& remapping,
                             std::vector<bool>* present,
                             absl::flat_hash_map<int64_t, int64_t>* inverse) {
  const int64_t* r = remapping.data<int64_t>();
  const int64_t n = remapping.NumElements();
  present->assign(n, false);
  for (int64_t i = 0; i < n; ++i) {
    if (r[i] < 0) continue;
    (*present)[i] = true;
    auto [it, inserted] = inverse->try_emplace(r[i], i);
    if (!inserted) {
      return absl::UnimplementedError(
          absl::StrCat("Old ID ", r[i], " is mapped to both new ID ",
                       it->second, " and ", i, ", which is not supported."));
    }
  }
  return absl::OkStatus();
}

// LoadAndRemapMatrix: a float matrix of a V2 checkpoint with its rows (and
// columns, when col_remapping is not empty) moved to their new ids; the
// cells of new rows or columns without an old one are filled from
// initializing_values in row-major order, which must hold exactly as many.
// TensorFlow reads the old rows in chunks of max_rows_in_memory, which
// changes nothing it returns; dfx reads the tensor whole. A remapped
// column past the old matrix's columns is left unwritten by TensorFlow
// (whatever the buffer held); dfx leaves it 0.
class LoadAndRemapMatrixOp : public OpKernel {
 public:
  explicit LoadAndRemapMatrixOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("num_rows", &num_rows_));
    c->SetStatus(c->GetAttr("num_cols", &num_cols_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& rows = ctx->input(2);
    DFX_OP_REQUIRES(ctx, rows.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The `row_remapping` tensor must be 1-D, got a tensor "
                        "of shape ",
                        rows.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, rows.NumElements() == num_rows_,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Size of row_remapping is ", rows.NumElements(),
                        " instead of being equal to num_rows=", num_rows_)));
    std::vector<bool> row_present, col_present;
    absl::flat_hash_map<int64_t, int64_t> new_row, new_col;
    DFX_OP_REQUIRES_OK(ctx, InvertRemapping(rows, &row_present, &new_row));
    int64_t max_old_row = -1;
    for (const auto& [old_row, unused] : new_row) {
      max_old_row = std::max(max_old_row, old_row);
    }
    const Tensor& cols = ctx->input(3);
    // TensorFlow checks neither this rank nor old_tensor_name's and aborts
    // on a wrong one.
    DFX_OP_REQUIRES(ctx, cols.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The `col_remapping` tensor must be 1-D, got a tensor "
                        "of shape ",
                        cols.shape().DebugString())));
    const bool remap_cols = cols.NumElements() > 0;
    if (remap_cols) {
      DFX_OP_REQUIRES(
          ctx, cols.NumElements() == num_cols_,
          absl::InvalidArgumentError(absl::StrCat(
              "Provided col_remapping, but its size is ", cols.NumElements(),
              " instead of being equal to num_cols=", num_cols_)));
      DFX_OP_REQUIRES_OK(ctx, InvertRemapping(cols, &col_present, &new_col));
    } else {
      col_present.assign(num_cols_, true);
    }
    const Tensor& ckpt = ctx->input(0);
    DFX_OP_REQUIRES(ctx, ckpt.NumElements() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The `ckpt_path` tensor must have exactly one "
                        "element, got tensor of shape ",
                        ckpt.shape().DebugString())));
    const Tensor& name_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, name_t.NumElements() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The `old_tensor_name` tensor must have exactly one "
                        "element, got tensor of shape ",
                        name_t.shape().DebugString())));
    const std::string& key = name_t.data<std::string>()[0];
    absl::StatusOr<std::string> prefix =
        ResolveDataPrefix(name(), ckpt.data<std::string>()[0]);
    DFX_OP_REQUIRES_OK(ctx, prefix.status());
    absl::StatusOr<std::unique_ptr<BundleReader>> reader =
        BundleReader::Open(*std::move(prefix));
    DFX_OP_REQUIRES_OK(ctx, reader.status());
    DataType dtype;
    TensorShape shape;
    DFX_OP_REQUIRES_OK(ctx,
                       (*reader)->LookupDtypeAndShape(key, &dtype, &shape));
    DFX_OP_REQUIRES(
        ctx, dtype == DT_FLOAT,
        absl::InvalidArgumentError(absl::StrCat(
            "Tensor ", key, " has invalid type ", DataTypeString(dtype),
            " instead of expected type float")));
    DFX_OP_REQUIRES(ctx, shape.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Tensor ", key, " has shape ", shape.DebugString(),
                        " of invalid rank ", shape.dims(),
                        " instead of expected shape of rank 2.")));
    const int64_t old_rows = shape.dim_size(0);
    const int64_t old_cols = shape.dim_size(1);
    DFX_OP_REQUIRES(ctx, remap_cols || num_cols_ == old_cols,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Tensor ", key, " has shape ", shape.DebugString(),
                        ", where the size of its 2nd dimension is ", old_cols,
                        " instead of being equal to num_cols=", num_cols_)));
    // TensorFlow's slice read of rows past the end.
    DFX_OP_REQUIRES(ctx, max_old_row < old_rows,
                    absl::InternalError(absl::StrCat(
                        "Extent in dimension 0 out of bounds: shape = ",
                        shape.DebugString(), ", old row ", max_old_row)));
    Tensor out(DT_FLOAT, TensorShape({num_rows_, num_cols_}));
    float* o = out.data<float>();
    std::fill(o, o + out.NumElements(), 0.0f);
    if (!new_row.empty()) {
      absl::StatusOr<Tensor> old = (*reader)->Lookup(key);
      DFX_OP_REQUIRES_OK(ctx, old.status());
      const float* src = old->data<float>();
      const int64_t* r = rows.data<int64_t>();
      for (int64_t i = 0; i < num_rows_; ++i) {
        if (r[i] < 0) continue;
        const float* old_row = src + r[i] * old_cols;
        for (int64_t c = 0; c < old_cols; ++c) {
          int64_t j = c;
          if (remap_cols) {
            auto it = new_col.find(c);
            if (it == new_col.end()) continue;
            j = it->second;
          }
          o[i * num_cols_ + j] = old_row[c];
        }
      }
    }
    const Tensor& init = ctx->input(4);
    const float* v = init.data<float>();
    const int64_t num_init = init.NumElements();
    int64_t used = 0;
    for (int64_t i = 0; i < num_rows_; ++i) {
      for (int64_t j = 0; j < num_cols_; ++j) {
        if (row_present[i] && col_present[j]) continue;
        DFX_OP_REQUIRES(ctx, used < num_init,
                        absl::InvalidArgumentError(absl::StrCat(
                            "initializing_values contained ", num_init,
                            " elements, but more missing values remain.")));
        o[i * num_cols_ + j] = v[used++];
      }
    }
    DFX_OP_REQUIRES(
        ctx, used == num_init,
        absl::InvalidArgumentError(absl::StrCat(
            "initializing_values contained ", num_init, " elements, but only ",
            used, " elements were used to fill in missing values.")));
    ctx->set_output(0, std::move(out));
  }

 private:
  int64_t num_rows_ = 0;
  int64_t num_cols_ = 1;
};

// Skipgram (word2vec): reads a text file once, at construction, into a
// vocabulary (words seen at least min_count times, most frequent first,
// "UNK" first of all) and a corpus of word ids, then hands out batches of
// (example, label) pairs: each word with the words up to a random window
// around it, words dropped at random by their frequency (subsample).
// Randomness from TensorFlow's unseeded Philox stream (key and counter 0),
// so the batches repeat TensorFlow's for the same file. The vocabulary's
// order among words of equal count is TensorFlow's too: the same
// std::unordered_map iteration and std::sort (libstdc++).
class SkipgramOp : public OpKernel {
 public:
  explicit SkipgramOp(OpKernelConstruction* c) : OpKernel(c), rng_(&philox_) {
    std::string filename;
    // int32 attrs, as TensorFlow reads them.
    c->SetStatus(c->GetAttr("filename", &filename));
    c->SetStatus(c->GetAttr("batch_size", &batch_size_));
    c->SetStatus(c->GetAttr("window_size", &window_size_));
    c->SetStatus(c->GetAttr("min_count", &min_count_));
    c->SetStatus(c->GetAttr("subsample", &subsample_));
    if (!c->status().ok()) return;
    // TensorFlow aborts on a negative batch (a negative output dimension).
    if (batch_size_ < 0) {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("batch_size must be >= 0, got ", batch_size_)));
      return;
    }
    c->SetStatus(Init(c->def().name(), filename));
    if (!c->status().ok()) return;
    absl::MutexLock lock(&mu_);
    example_pos_ = static_cast<int32_t>(corpus_size_);
    label_pos_ = static_cast<int32_t>(corpus_size_);
    label_limit_ = static_cast<int32_t>(corpus_size_);
    sentence_index_ = kSentenceSize;
    for (Example& e : precalc_) NextExample(&e);
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor examples(DT_INT32, TensorShape({batch_size_}));
    Tensor labels(DT_INT32, TensorShape({batch_size_}));
    int32_t* ex = examples.data<int32_t>();
    int32_t* lb = labels.data<int32_t>();
    int64_t words = 0, processed = 0;
    int32_t epoch = 0;
    {
      absl::MutexLock lock(&mu_);
      for (int32_t i = 0; i < batch_size_; ++i) {
        ex[i] = precalc_[precalc_index_].input;
        lb[i] = precalc_[precalc_index_].label;
        if (++precalc_index_ >= kPrecalc) {
          precalc_index_ = 0;
          for (Example& e : precalc_) NextExample(&e);
        }
      }
      words = corpus_size_;
      epoch = current_epoch_;
      processed = total_words_processed_;
    }
    ctx->set_output(0, word_);
    ctx->set_output(1, freq_);
    ctx->set_output(2, Tensor::Scalar<int64_t>(words));
    ctx->set_output(3, Tensor::Scalar<int32_t>(epoch));
    ctx->set_output(4, Tensor::Scalar<int64_t>(processed));
    ctx->set_output(5, std::move(examples));
    ctx->set_output(6, std::move(labels));
  }

 private:
  static constexpr int kPrecalc = 3000;
  static constexpr int kSentenceSize = 1000;
  struct Example {
    int32_t input = 0;
    int32_t label = 0;
  };

  static bool IsSpace(char ch) {
    return ch == ' ' || (ch >= '\t' && ch <= '\r');
  }

  // The next whitespace-separated word of `data` from `*pos`.
  static bool ScanWord(const std::string& data, size_t* pos,
                       std::string* word) {
    size_t i = *pos;
    while (i < data.size() && IsSpace(data[i])) ++i;
    size_t j = i;
    while (j < data.size() && !IsSpace(data[j])) ++j;
    *pos = j;
    if (j == i) return false;
    word->assign(data, i, j - i);
    return true;
  }

  absl::Status Init(const std::string& node, const std::string& filename) {
    DFX_ASSIGN_OR_RETURN(const std::string path,
                         ResolveDataPath(node, filename));
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat(filename, "; No such file or directory"));
    }
    const std::string data((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    // std::unordered_map as TensorFlow's: its iteration order decides the
    // order of words of equal count.
    std::unordered_map<std::string, int32_t> word_freq;
    std::string w;
    size_t pos = 0;
    while (ScanWord(data, &pos, &w)) {
      ++word_freq[w];
      ++corpus_size_;
    }
    // An empty corpus passes TensorFlow's check when window_size <= 0, and
    // its kernel then reads past the corpus; dfx refuses it.
    if (corpus_size_ < int64_t{window_size_} * 10 || corpus_size_ == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("The text file ", filename,
                       " contains too little data: ", corpus_size_, " words"));
    }
    using WordFreq = std::pair<std::string, int32_t>;
    std::vector<WordFreq> ordered;
    for (const auto& p : word_freq) {
      if (p.second >= min_count_) ordered.push_back(p);
    }
    word_freq.clear();
    std::sort(ordered.begin(), ordered.end(),
              [](const WordFreq& x, const WordFreq& y) {
                return x.second > y.second;
              });
    const int64_t vocab = 1 + static_cast<int64_t>(ordered.size());
    word_ = Tensor(DT_STRING, TensorShape({vocab}));
    freq_ = Tensor(DT_INT32, TensorShape({vocab}));
    std::string* words = word_.data<std::string>();
    int32_t* freq = freq_.data<int32_t>();
    words[0] = "UNK";
    std::unordered_map<std::string, int32_t> word_id;
    int64_t counted = 0;
    for (size_t i = 0; i < ordered.size(); ++i) {
      const int32_t id = static_cast<int32_t>(i + 1);
      words[id] = ordered[i].first;
      freq[id] = ordered[i].second;
      counted += ordered[i].second;
      word_id[ordered[i].first] = id;
    }
    freq[0] = static_cast<int32_t>(corpus_size_ - counted);
    corpus_.reserve(corpus_size_);
    pos = 0;
    while (ScanWord(data, &pos, &w)) {
      auto it = word_id.find(w);
      corpus_.push_back(it == word_id.end() ? 0 : it->second);
    }
    precalc_.resize(kPrecalc);
    sentence_.resize(kSentenceSize);
    return absl::OkStatus();
  }

  // TensorFlow's cursor: a sentence of kSentenceSize kept words is refilled
  // from the corpus (wrapping around, counting epochs) when used up; each
  // word gets labels from a window of random radius 1..window_size.
  void NextExample(Example* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const int32_t* freq = freq_.data<int32_t>();
    while (true) {
      if (label_pos_ >= label_limit_) {
        ++total_words_processed_;
        if (++sentence_index_ >= kSentenceSize) {
          sentence_index_ = 0;
          for (int i = 0; i < kSentenceSize; ++i, ++example_pos_) {
            if (example_pos_ >= corpus_size_) {
              ++current_epoch_;
              example_pos_ = 0;
            }
            if (subsample_ > 0) {
              const int32_t f = freq[corpus_[example_pos_]];
              const float scale = subsample_ * corpus_size_;
              const float keep = (std::sqrt(f / scale) + 1) * scale / f;
              if (rng_.RandFloat() > keep) {
                --i;  // the loop's increment moves on in the corpus only
                continue;
              }
            }
            sentence_[i] = corpus_[example_pos_];
          }
        }
        const int32_t skip = 1 + static_cast<int32_t>(rng_.Uniform(
                                     static_cast<uint32_t>(window_size_)));
        label_pos_ = std::max<int32_t>(0, sentence_index_ - skip);
        label_limit_ =
            std::min<int32_t>(kSentenceSize, sentence_index_ + skip + 1);
      }
      if (sentence_index_ != label_pos_) break;
      ++label_pos_;
    }
    e->input = sentence_[sentence_index_];
    e->label = sentence_[label_pos_++];
  }

  int32_t batch_size_ = 0;
  int32_t window_size_ = 5;
  int32_t min_count_ = 5;
  float subsample_ = 1e-3f;
  // Fixed after construction.
  Tensor word_;
  Tensor freq_;
  int64_t corpus_size_ = 0;
  std::vector<int32_t> corpus_;

  absl::Mutex mu_;
  std::vector<Example> precalc_ ABSL_GUARDED_BY(mu_);
  int precalc_index_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int32_t> sentence_ ABSL_GUARDED_BY(mu_);
  int32_t sentence_index_ ABSL_GUARDED_BY(mu_) = 0;
  Philox philox_ ABSL_GUARDED_BY(mu_);
  SimplePhilox rng_ ABSL_GUARDED_BY(mu_);
  int32_t current_epoch_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t total_words_processed_ ABSL_GUARDED_BY(mu_) = 0;
  int32_t example_pos_ ABSL_GUARDED_BY(mu_) = 0;
  int32_t label_pos_ ABSL_GUARDED_BY(mu_) = 0;
  int32_t label_limit_ ABSL_GUARDED_BY(mu_) = 0;
};

// Draws index i with probability weights[i] / sum(weights) by Walker's
// alias method: one uniform bucket and one uniform float per draw, as
// TensorFlow's DistributionSampler. REQUIRES: weights not empty.
class AliasSampler {
 public:
  explicit AliasSampler(const std::vector<float>& weights)
      : prob_(weights.size(), 1.0f), alias_(weights.size()) {
    const int n = static_cast<int>(weights.size());
    double sum = 0;
    for (float w : weights) sum += w;
    std::vector<double> scaled(n);
    std::vector<int> small, large;
    for (int i = 0; i < n; ++i) {
      alias_[i] = i;
      scaled[i] = sum > 0 ? weights[i] * n / sum : 1.0;
      (scaled[i] < 1.0 ? small : large).push_back(i);
    }
    while (!small.empty() && !large.empty()) {
      const int s = small.back(), l = large.back();
      small.pop_back();
      prob_[s] = static_cast<float>(scaled[s]);
      alias_[s] = l;
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
  }
  int num() const { return static_cast<int>(prob_.size()); }
  int Sample(SimplePhilox* rng) const {
    const float r = rng->RandFloat();
    const int i = static_cast<int>(rng->Uniform(num()));
    return r < prob_[i] ? i : alias_[i];
  }

 private:
  std::vector<float> prob_;
  std::vector<int> alias_;
};

// NegTrain (word2vec): one step of skip-gram training with negative
// sampling on the w_in and w_out reference variables, in place and
// unlocked as in TensorFlow. Negative samples are drawn with probability
// proportional to vocab_count^0.75 from a stream with fresh random seeds
// (TensorFlow's too), so only runs without negatives repeat exactly.
// An example or label outside the vocabulary is InvalidArgument
// (TensorFlow's kernel writes outside the matrix).
class NegTrainOp : public OpKernel {
 public:
  explicit NegTrainOp(OpKernelConstruction* c)
      : OpKernel(c), gen_(NewIncarnation(), NewIncarnation()) {
    std::vector<int64_t> counts;
    c->SetStatus(c->GetAttr("num_negative_samples", &num_samples_));
    c->SetStatus(c->GetAttr("vocab_count", &counts));
    if (!c->status().ok()) return;
    std::vector<float> weights;
    for (int64_t n : counts) {
      weights.push_back(std::pow(static_cast<float>(n), 0.75f));
    }
    if (!weights.empty()) sampler_ = std::make_unique<AliasSampler>(weights);
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0, 1}, /*use_locking=*/false));
    Tensor* w_in = vars.tensor(0);
    Tensor* w_out = vars.tensor(1);
    DFX_OP_REQUIRES(ctx, w_in->dims() == 2,
                    absl::InvalidArgumentError("Must be a matrix"));
    DFX_OP_REQUIRES(ctx, w_in->shape() == w_out->shape(),
                    absl::InvalidArgumentError("w_in.shape == w_out.shape"));
    const Tensor& examples = ctx->input(2);
    DFX_OP_REQUIRES(ctx, examples.dims() == 1,
                    absl::InvalidArgumentError("Must be a vector"));
    const Tensor& labels = ctx->input(3);
    DFX_OP_REQUIRES(
        ctx, examples.shape() == labels.shape(),
        absl::InvalidArgumentError("examples.shape == labels.shape"));
    DFX_OP_REQUIRES(ctx, ctx->input(4).dims() == 0,
                    absl::InvalidArgumentError("Must be a scalar"));
    const float lr = ctx->input(4).scalar<float>();
    const int64_t vocab = w_in->dim_size(0);
    const int64_t dims = w_in->dim_size(1);
    const int64_t num = sampler_ == nullptr ? 0 : sampler_->num();
    DFX_OP_REQUIRES(ctx, vocab == num,
                    absl::InvalidArgumentError(absl::StrCat(
                        "vocab_size mismatches: ", vocab, " vs. ", num)));
    const int64_t batch = examples.NumElements();
    const int32_t* ex = examples.data<int32_t>();
    const int32_t* lb = labels.data<int32_t>();
    for (int64_t i = 0; i < batch; ++i) {
      DFX_OP_REQUIRES(
          ctx, ex[i] >= 0 && ex[i] < vocab && lb[i] >= 0 && lb[i] < vocab,
          absl::InvalidArgumentError(
              absl::StrCat("examples[", i, "] = ", ex[i], " and labels[", i,
                           "] = ", lb[i], " must be in [0, ", vocab, ")")));
    }
    // TensorFlow reserves 8 words per negative sample and uses 2.
    Philox gen;
    {
      absl::MutexLock lock(&mu_);
      gen = gen_;
      gen_.Skip(
          (static_cast<uint64_t>(batch * std::max(num_samples_, 0)) * 8 + 3) /
          4);
    }
    SimplePhilox rng(&gen);
    float* in = w_in->data<float>();
    float* out = w_out->data<float>();
    std::vector<float> buf(dims);
    for (int64_t i = 0; i < batch; ++i) {
      float* v_in = in + ex[i] * dims;
      // Positive: g = sigmoid(-v_in . v_out).
      float* v_out = out + lb[i] * dims;
      float g = 1.0f / (std::exp(Dot(v_in, v_out, dims)) + 1.0f);
      for (int64_t d = 0; d < dims; ++d) {
        buf[d] = v_out[d] * (g * lr);
        v_out[d] += v_in[d] * (g * lr);
      }
      // Negatives: g = -sigmoid(v_in . v_sample).
      for (int64_t j = 0; j < num_samples_; ++j) {
        const int sample = sampler_->Sample(&rng);
        if (sample == lb[i]) continue;
        float* v_s = out + int64_t{sample} * dims;
        g = -1.0f / (std::exp(-Dot(v_in, v_s, dims)) + 1.0f);
        for (int64_t d = 0; d < dims; ++d) {
          buf[d] += v_s[d] * (g * lr);
          v_s[d] += v_in[d] * (g * lr);
        }
      }
      for (int64_t d = 0; d < dims; ++d) v_in[d] += buf[d];
    }
  }

 private:
  int32_t num_samples_ = 0;
  std::unique_ptr<AliasSampler> sampler_;
  absl::Mutex mu_;
  Philox gen_ ABSL_GUARDED_BY(mu_);
};

// farmhashcc's 128-bit fingerprint (CityHash128 v1.1), TensorFlow's
// Fingerprint128, from the published algorithm; low word first.
namespace fp128 {
using namespace fingerprint_internal;  // NOLINT: FarmHash's primitives

uint64_t Hash16(uint64_t u, uint64_t v) {
  return HashLen16(u, v, 0x9ddfea08eb382d69ULL);
}

std::pair<uint64_t, uint64_t> Murmur(const char* s, size_t len,
                                     std::pair<uint64_t, uint64_t> seed) {
  uint64_t a = seed.first, b = seed.second, c = 0, d = 0;
  int64_t l = static_cast<int64_t>(len) - 16;
  if (l <= 0) {
    a = ShiftMix(a * kK1) * kK1;
    c = b * kK1 + HashLen0to16(s, len);
    d = ShiftMix(a + (len >= 8 ? Fetch64(s) : c));
  } else {
    c = Hash16(Fetch64(s + len - 8) + kK1, a);
    d = Hash16(b + len, c + Fetch64(s + len - 16));
    a += d;
    do {
      a ^= ShiftMix(Fetch64(s) * kK1) * kK1;
      a *= kK1;
      b ^= a;
      c ^= ShiftMix(Fetch64(s + 8) * kK1) * kK1;
      c *= kK1;
      d ^= c;
      s += 16;
      l -= 16;
    } while (l > 0);
  }
  a = Hash16(a, c);
  b = Hash16(d, b);
  return {a ^ b, Hash16(b, a)};
}

std::pair<uint64_t, uint64_t> WithSeed(const char* s, size_t len,
                                       std::pair<uint64_t, uint64_t> seed) {
  if (len < 128) return Murmur(s, len, seed);
  std::pair<uint64_t, uint64_t> v, w;
  uint64_t x = seed.first, y = seed.second, z = len * kK1;
  v.first = Rotate(y ^ kK1, 49) * kK1 + Fetch64(s);
  v.second = Rotate(v.first, 42) * kK1 + Fetch64(s + 8);
  w.first = Rotate(y + z, 35) * kK1 + x;
  w.second = Rotate(x + Fetch64(s + 88), 53) * kK1;
  do {
    for (int half = 0; half < 2; ++half) {
      x = Rotate(x + y + v.first + Fetch64(s + 8), 37) * kK1;
      y = Rotate(y + v.second + Fetch64(s + 48), 42) * kK1;
      x ^= w.second;
      y += v.first + Fetch64(s + 40);
      z = Rotate(z + w.first, 33) * kK1;
      v = WeakHashLen32WithSeeds(s, v.second * kK1, x + w.first);
      w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Fetch64(s + 16));
      std::swap(z, x);
      s += 64;
    }
    len -= 128;
  } while (len >= 128);
  x += Rotate(v.first + z, 49) * kK0;
  y = y * kK0 + Rotate(w.second, 37);
  z = z * kK0 + Rotate(w.first, 27);
  w.first *= 9;
  v.first *= kK0;
  for (size_t done = 0; done < len;) {
    done += 32;
    y = Rotate(x + y, 42) * kK0 + v.second;
    w.first += Fetch64(s + len - done + 16);
    x = x * kK0 + w.first;
    z += w.second + Fetch64(s + len - done);
    w.second += v.first;
    v = WeakHashLen32WithSeeds(s + len - done, v.first + z, v.second);
    v.first *= kK0;
  }
  x = Hash16(x, v.first);
  y = Hash16(y + z, w.first);
  return {Hash16(x + v.second, w.second) + y,
          Hash16(x + w.second, y + v.second)};
}

std::pair<uint64_t, uint64_t> Fingerprint128(absl::string_view str) {
  const char* s = str.data();
  const size_t len = str.size();
  if (len >= 16) {
    return WithSeed(s + 16, len - 16, {Fetch64(s), Fetch64(s + 8) + kK0});
  }
  return WithSeed(s, len, {kK0, kK1});
}
}  // namespace fp128

// SdcaFprint: each example id's 128-bit fingerprint as two int64s; the
// first never 0 or 1 (sentinels for hash tables): those become -2 and -1.
class SdcaFprintOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input must be a vector, got shape ",
                                     input.shape().DebugString())));
    const int64_t n = input.NumElements();
    Tensor out(DT_INT64, TensorShape({n, 2}));
    const std::string* in = input.data<std::string>();
    int64_t* o = out.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const auto [low, high] = fp128::Fingerprint128(in[i]);
      const uint64_t first = low >= 2 ? low : low + ~uint64_t{1};
      o[2 * i] = static_cast<int64_t>(first);
      o[2 * i + 1] = static_cast<int64_t>(high);
    }
    ctx->set_output(0, std::move(out));
  }
};

// SdcaShrinkL1: w = sign(w) * max(|w| - l1 / l2, 0) on every weight
// variable, in place and unlocked, as TensorFlow does.
class SdcaShrinkL1Op : public OpKernel {
 public:
  explicit SdcaShrinkL1Op(OpKernelConstruction* c) : OpKernel(c) {
    float l1 = 0, l2 = 0;
    c->SetStatus(c->GetAttr("l1", &l1));
    c->SetStatus(c->GetAttr("l2", &l2));
    // TensorFlow keeps the float quotient in a double and converts it back
    // to float for the vector arithmetic.
    shrinkage_ = static_cast<float>(static_cast<double>(l1 / l2));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int> ids(ctx->num_inputs());
    std::iota(ids.begin(), ids.end(), 0);
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, ids, /*use_locking=*/false));
    for (size_t k = 0; k < ids.size(); ++k) {
      Tensor* t = vars.tensor(static_cast<int>(k));
      float* w = t->data<float>();
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        const float v = w[i];
        const float sign = v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : v);
        w[i] = sign * std::max(std::abs(v) - shrinkage_, 0.0f);
      }
    }
  }

 private:
  float shrinkage_ = 0.0f;
};

}  // namespace

void RegisterEstimatorKernels(KernelRegistry* r) {
  RegisterKernel<KmeansPlusPlusInitializationOp>(
      r, KernelDefBuilder("KmeansPlusPlusInitialization"));
  RegisterKernel<Kmc2ChainInitializationOp>(
      r, KernelDefBuilder("KMC2ChainInitialization"));
  RegisterKernel<NearestNeighborsOp>(r, KernelDefBuilder("NearestNeighbors"));
  RegisterKernel<GenerateVocabRemappingOp>(
      r, KernelDefBuilder("GenerateVocabRemapping"));
  RegisterKernel<LoadAndRemapMatrixOp>(r,
                                       KernelDefBuilder("LoadAndRemapMatrix"));
  RegisterKernel<SkipgramOp>(r, KernelDefBuilder("Skipgram"));
  RegisterKernel<NegTrainOp>(r, KernelDefBuilder("NegTrain"));
  RegisterKernel<SdcaFprintOp>(r, KernelDefBuilder("SdcaFprint"));
  RegisterKernel<SdcaShrinkL1Op>(r, KernelDefBuilder("SdcaShrinkL1"));
}

}  // namespace dfx

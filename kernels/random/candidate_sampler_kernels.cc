// The candidate samplers of sampled softmax and NCE
// (UniformCandidateSampler, LogUniformCandidateSampler,
// LearnedUnigramCandidateSampler, ThreadUnsafeUnigramCandidateSampler,
// FixedUnigramCandidateSampler, AllCandidateSampler) and
// ComputeAccidentalHits, drawn as TensorFlow 2.21's CPU kernels draw them
// (candidate_sampler_ops.cc, range_sampler.cc): each step reserves 2048
// words per sampled candidate of the kernel's (seed, seed2) generator and
// reads them one at a time; `unique` draws until it has num_sampled
// distinct values, and the expected counts then use the number of tries.
// The unigram samplers learn: each step adds one to the weight of every
// true class after sampling. The expected counts are float arithmetic, as
// there.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "kernels/random/random_util.h"
#include "kernels/random/rng2_kernels.h"
#include "kernels/random/simple_philox.h"
#include "runtime/file_policy.h"

namespace dfx::random {
namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

// TensorFlow's approximation of a value's expected count in a batch.
float ExpectedCount(float p, int batch_size, int num_tries) {
  if (num_tries == batch_size) return p * batch_size;
  return -std::expm1(num_tries * std::log1p(-p));
}

// A distribution over [0, range).
class RangeSampler {
 public:
  explicit RangeSampler(int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;

  int64_t range() const { return range_; }
  // How many values Sample() can return.
  virtual int64_t PossibleValues() const { return range_; }
  virtual int64_t Sample(SimplePhilox* rnd) const = 0;
  virtual float Probability(int64_t value) const = 0;
  virtual bool NeedsUpdates() const { return false; }
  virtual void Update(absl::Span<const int64_t> /*values*/) {}

  // Fills `batch` and the expected counts of its values and of `extras`.
  virtual void SampleBatch(SimplePhilox* rnd, bool unique,
                           absl::Span<int64_t> batch,
                           absl::Span<float> batch_expected,
                           absl::Span<const int64_t> extras,
                           absl::Span<float> extras_expected) const {
    const int batch_size = static_cast<int>(batch.size());
    int num_tries = 0;
    if (unique) {
      std::unordered_set<int64_t> used(batch_size);
      int picked = 0;
      while (picked < batch_size) {
        ++num_tries;
        const int64_t value = Sample(rnd);
        if (used.insert(value).second) batch[picked++] = value;
      }
    } else {
      for (int i = 0; i < batch_size; ++i) batch[i] = Sample(rnd);
      num_tries = batch_size;
    }
    for (int i = 0; i < batch_size; ++i) {
      batch_expected[i] =
          ExpectedCount(Probability(batch[i]), batch_size, num_tries);
    }
    for (size_t i = 0; i < extras.size(); ++i) {
      extras_expected[i] =
          ExpectedCount(Probability(extras[i]), batch_size, num_tries);
    }
  }

 protected:
  const int64_t range_;
};

// Every value once, each expected once.
class AllSampler : public RangeSampler {
 public:
  using RangeSampler::RangeSampler;
  int64_t Sample(SimplePhilox*) const override { return 0; }
  float Probability(int64_t) const override { return 1; }
  void SampleBatch(SimplePhilox*, bool, absl::Span<int64_t> batch,
                   absl::Span<float> batch_expected,
                   absl::Span<const int64_t>,
                   absl::Span<float> extras_expected) const override {
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i] = static_cast<int64_t>(i);
      batch_expected[i] = 1;
    }
    std::fill(extras_expected.begin(), extras_expected.end(), 1.0f);
  }
};

class UniformSampler : public RangeSampler {
 public:
  explicit UniformSampler(int64_t range)
      : RangeSampler(range), inv_range_(static_cast<float>(1.0 / range)) {}
  int64_t Sample(SimplePhilox* rnd) const override {
    return static_cast<int64_t>(rnd->Uniform64(static_cast<uint64_t>(range_)));
  }
  float Probability(int64_t) const override { return inv_range_; }

 private:
  const float inv_range_;
};

// P(v) = log((v + 2) / (v + 1)) / log(range + 1).
class LogUniformSampler : public RangeSampler {
 public:
  explicit LogUniformSampler(int64_t range)
      : RangeSampler(range), log_range_(std::log1p(static_cast<double>(range))) {}
  int64_t Sample(SimplePhilox* rnd) const override {
    const int64_t value =
        static_cast<int64_t>(std::exp(rnd->RandDouble() * log_range_)) - 1;
    return value % range_;
  }
  float Probability(int64_t value) const override {
    return static_cast<float>(std::log((value + 2.0) / (value + 1.0)) /
                              log_range_);
  }

 private:
  const double log_range_;
};

// Integer weights, one per value (all 1 at first), each true class adding
// one. A pick draws an exactly uniform position below the total weight and
// returns the value whose cumulative weight first exceeds it (TensorFlow's
// WeightedPicker tree descends to the same value; a Fenwick tree here).
class UnigramSampler : public RangeSampler {
 public:
  explicit UnigramSampler(int64_t range)
      : RangeSampler(range),
        weights_(static_cast<size_t>(range), 1),
        tree_(static_cast<size_t>(range) + 1, 0),
        total_(static_cast<int32_t>(range)) {
    for (size_t i = 1; i < tree_.size(); ++i) {
      tree_[i] += 1;
      const size_t parent = i + (i & (~i + 1));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
    }
    top_bit_ = 1;
    while (top_bit_ * 2 < tree_.size()) top_bit_ *= 2;
  }

  int64_t Sample(SimplePhilox* rnd) const override {
    if (total_ == 0) return -1;
    int64_t position = rnd->Uniform(static_cast<uint32_t>(total_));
    // The largest index whose prefix sum is <= position.
    size_t index = 0;
    for (size_t step = top_bit_; step > 0; step >>= 1) {
      const size_t next = index + step;
      if (next < tree_.size() && tree_[next] <= position) {
        index = next;
        position -= tree_[next];
      }
    }
    return static_cast<int64_t>(index);
  }

  float Probability(int64_t value) const override {
    return static_cast<float>(weights_[value]) / total_;
  }

  bool NeedsUpdates() const override { return true; }

  void Update(absl::Span<const int64_t> values) override {
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(values.size()),
                                        kInt32Max - total_);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = values[i];
      ++weights_[v];
      ++total_;
      for (size_t j = static_cast<size_t>(v) + 1; j < tree_.size();
           j += j & (~j + 1)) {
        ++tree_[j];
      }
    }
  }

 private:
  std::vector<int32_t> weights_;
  std::vector<int64_t> tree_;  // Fenwick tree over weights_, 1-based
  size_t top_bit_ = 1;
  int32_t total_;
};

// Walker's alias method over fixed float weights (TensorFlow's
// DistributionSampler): a uniform float and a uniform bucket; the bucket's
// value when the float is below its probability, else its alias.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<float>& weights) {
    const int n = static_cast<int>(weights.size());
    prob_.assign(n, 0.0f);
    alt_.assign(n, -1);
    std::vector<double> pr(n);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += weights[i];
    std::vector<int> high;
    std::vector<int> low;
    for (int i = 0; i < n; ++i) {
      pr[i] = (weights[i] * n) / sum;
      (pr[i] < 1.0 ? low : high).push_back(i);
    }
    while (!high.empty() && !low.empty()) {
      const int l = low.back();
      low.pop_back();
      const int h = high.back();
      high.pop_back();
      alt_[l] = h;
      pr[h] = pr[h] - (1.0 - pr[l]);
      (pr[h] < 1.0 ? low : high).push_back(h);
    }
    for (int i = 0; i < n; ++i) prob_[i] = static_cast<float>(pr[i]);
    // Rounding leaves values near 1 in either list: they keep themselves.
    for (const std::vector<int>* rest : {&high, &low}) {
      for (int i : *rest) {
        prob_[i] = 1.0f;
        alt_[i] = i;
      }
    }
  }

  int Sample(SimplePhilox* rnd) const {
    const float r = rnd->RandFloat();
    const int idx =
        static_cast<int>(rnd->Uniform(static_cast<uint32_t>(prob_.size())));
    return r < prob_[idx] ? idx : alt_[idx];
  }

 private:
  std::vector<float> prob_;
  std::vector<int> alt_;
};

// Fixed weights (from the `unigrams` attr or a CSV file whose last column
// is the weight) raised to `distortion`, after num_reserved_ids values of
// weight 0; with num_shards > 1, only the ids of this shard.
class FixedUnigramSampler : public RangeSampler {
 public:
  FixedUnigramSampler(int64_t range, float distortion,
                      int64_t num_reserved_ids, int64_t num_shards,
                      int64_t shard)
      : RangeSampler(range),
        distortion_(distortion),
        num_shards_(num_shards),
        shard_(shard) {
    for (int64_t id = 0; id < num_reserved_ids; ++id) {
      if (id % num_shards_ == shard_) weights_.push_back(0.0f);
    }
  }

  absl::Status LoadUnigrams(const std::vector<float>& unigrams) {
    int64_t id = static_cast<int64_t>(weights_.size());
    for (float w : unigrams) Add(id++, w);
    return Finish();
  }

  absl::Status LoadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat(path, "; No such file or directory"));
    }
    int64_t id = static_cast<int64_t>(weights_.size());
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::vector<std::string> cols = absl::StrSplit(line, ',');
      if (id % num_shards_ == shard_) {
        float w = 0;
        if (!absl::SimpleAtof(cols.back(), &w)) {
          return absl::InvalidArgumentError(
              absl::StrCat("Wrong vocabulary format at line: ", line));
        }
        Add(id, w);
      }
      ++id;
    }
    return Finish();
  }

  int64_t Sample(SimplePhilox* rnd) const override {
    return table_->Sample(rnd);
  }
  int64_t PossibleValues() const override {
    return std::count_if(weights_.begin(), weights_.end(),
                         [](float w) { return w != 0; });
  }
  float Probability(int64_t value) const override {
    if (value < 0 || static_cast<size_t>(value) >= weights_.size()) return 0;
    return weights_[value] / total_;
  }

 private:
  void Add(int64_t id, float w) {
    if (id % num_shards_ != shard_) return;
    w = std::pow(w, distortion_);
    total_ += w;
    weights_.push_back(w);
  }

  absl::Status Finish() {
    if (static_cast<size_t>(range_) != weights_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("range is ", range_, " must be equal to weights size  ",
                       weights_.size()));
    }
    table_ = std::make_unique<AliasTable>(weights_);
    return absl::OkStatus();
  }

  const float distortion_;
  const int64_t num_shards_;
  const int64_t shard_;
  std::vector<float> weights_;
  float total_ = 0;
  std::unique_ptr<AliasTable> table_;
};

enum class SamplerKind { kUniform, kLogUniform, kUnigram, kAll, kFixed };

// (true_classes) -> (sampled_candidates, true_expected_count,
// sampled_expected_count). The sampler is made with the kernel; the
// unigram samplers change with every step, under mu_.
template <SamplerKind kKind>
class CandidateSamplerOp : public OpKernel {
 public:
  explicit CandidateSamplerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_sampled", &num_sampled_));
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
    ctx->SetStatus(ctx->GetAttr("unique", &unique_));
    ctx->SetStatus(generator_.Init(*ctx));
    if (!ctx->status().ok()) return;
    if constexpr (kKind == SamplerKind::kAll) {
      sampler_ = std::make_unique<AllSampler>(num_sampled_);
      return;
    }
    int64_t range_max = 0;
    ctx->SetStatus(ctx->GetAttr("range_max", &range_max));
    if (!ctx->status().ok()) return;
    if constexpr (kKind == SamplerKind::kFixed) {
      ctx->SetStatus(MakeFixed(ctx, range_max));
      return;
    }
    if (range_max <= 0) {
      ctx->SetStatus(absl::InvalidArgumentError("range_max must be positive"));
      return;
    }
    if constexpr (kKind == SamplerKind::kUnigram) {
      if (range_max >= kInt32Max) {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("range_max must be less than ", kInt32Max,
                         " for unigram samplers, got ", range_max)));
        return;
      }
      sampler_ = std::make_unique<UnigramSampler>(range_max);
    } else if constexpr (kKind == SamplerKind::kLogUniform) {
      sampler_ = std::make_unique<LogUniformSampler>(range_max);
    } else {
      sampler_ = std::make_unique<UniformSampler>(range_max);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, true_classes.dims() == 2,
        absl::InvalidArgumentError("true_classes must be a matrix"));
    DFX_OP_REQUIRES(ctx, true_classes.dim_size(1) == num_true_,
                    absl::InvalidArgumentError(absl::StrCat(
                        "true_classes must have num_true columns, expected: ",
                        true_classes.dim_size(1), " was: ", num_true_)));
    const int64_t range = sampler_->range();
    DFX_OP_REQUIRES(
        ctx, !unique_ || num_sampled_ <= range,
        absl::InvalidArgumentError("Sampler's range is too small."));
    // Fewer values of nonzero weight than num_sampled: TensorFlow's unique
    // loop draws until a CHECK on its tries aborts the process.
    DFX_OP_REQUIRES(
        ctx, !unique_ || num_sampled_ <= sampler_->PossibleValues(),
        absl::InvalidArgumentError(absl::StrCat(
            "Sampler's range is too small: ", sampler_->PossibleValues(),
            " values have a nonzero weight, ", num_sampled_,
            " unique ones asked for.")));
    const int64_t batch_size = true_classes.dim_size(0);
    Tensor* sampled = nullptr;
    Tensor* true_expected = nullptr;
    Tensor* sampled_expected = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num_sampled_}),
                                                 &sampled));
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({batch_size, num_true_}),
                                  &true_expected));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({num_sampled_}),
                                                 &sampled_expected));
    const absl::Span<const int64_t> true_candidates(
        true_classes.data<int64_t>(),
        static_cast<size_t>(true_classes.NumElements()));
    for (int64_t c : true_candidates) {
      DFX_OP_REQUIRES(ctx, c >= 0 && c < range,
                      absl::InvalidArgumentError(absl::StrCat(
                          "`true_candidate` out of range [0, ", range,
                          "), received ", c)));
    }
    Philox gen = generator_.ReserveWords(2048 * num_sampled_);
    SimplePhilox rnd(&gen);
    const absl::Span<int64_t> batch(sampled->data<int64_t>(),
                                    static_cast<size_t>(num_sampled_));
    const absl::Span<float> batch_expected(sampled_expected->data<float>(),
                                           static_cast<size_t>(num_sampled_));
    const absl::Span<float> extras_expected(true_expected->data<float>(),
                                            true_candidates.size());
    if (sampler_->NeedsUpdates()) {
      absl::MutexLock lock(&mu_);
      sampler_->SampleBatch(&rnd, unique_, batch, batch_expected,
                            true_candidates, extras_expected);
      sampler_->Update(true_candidates);
    } else {
      sampler_->SampleBatch(&rnd, unique_, batch, batch_expected,
                            true_candidates, extras_expected);
    }
  }

 private:
  absl::Status MakeFixed(OpKernelConstruction* ctx, int64_t range_max) {
    std::string vocab_file;
    std::vector<float> unigrams;
    float distortion = 1;
    int64_t num_reserved_ids = 0;
    int64_t num_shards = 1;
    int64_t shard = 0;
    DFX_RETURN_IF_ERROR(ctx->GetAttr("vocab_file", &vocab_file));
    if (const AttrValue* a = FindNodeAttr(ctx->def(), "unigrams")) {
      unigrams.assign(a->list().f().begin(), a->list().f().end());
    }
    if (vocab_file.empty() && unigrams.empty()) {
      return absl::InvalidArgumentError(
          "Must provide either vocab_file or unigrams.");
    }
    if (!vocab_file.empty() && !unigrams.empty()) {
      return absl::InvalidArgumentError(
          "Must only provide one of vocab_file and unigrams.");
    }
    DFX_RETURN_IF_ERROR(ctx->GetAttr("distortion", &distortion));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("num_reserved_ids", &num_reserved_ids));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("num_shards", &num_shards));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("shard", &shard));
    auto fixed = std::make_unique<FixedUnigramSampler>(
        range_max, distortion, num_reserved_ids, num_shards, shard);
    if (vocab_file.empty()) {
      DFX_RETURN_IF_ERROR(fixed->LoadUnigrams(unigrams));
    } else {
      // Inside the server's --data-dir when it has one.
      DFX_ASSIGN_OR_RETURN(const std::string path,
                           ResolveDataPath(ctx->def().name(), vocab_file));
      DFX_RETURN_IF_ERROR(fixed->LoadFile(path));
    }
    sampler_ = std::move(fixed);
    return absl::OkStatus();
  }

  int64_t num_sampled_ = 0;
  int64_t num_true_ = 0;
  bool unique_ = false;
  GuardedPhilox generator_;
  absl::Mutex mu_;
  std::unique_ptr<RangeSampler> sampler_;
};

// (true_classes [batch, num_true], sampled_candidates [n]) -> the (row,
// sampled position) of every true class that was also sampled, with weight
// -FLT_MAX; a candidate sampled twice is found at its last position.
class ComputeAccidentalHitsOp : public OpKernel {
 public:
  explicit ComputeAccidentalHitsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, true_classes.dims() == 2 && true_classes.dim_size(1) == num_true_,
        absl::InvalidArgumentError(
            "true_candidates must be a batch_size * num_true matrix"));
    const Tensor& sampled = ctx->input(1);
    DFX_OP_REQUIRES(ctx, sampled.dims() == 1,
                    absl::InvalidArgumentError(
                        "sampled_candidates must be a vector, which is "
                        "typically an output from CandidateSampler"));
    absl::flat_hash_map<int64_t, int64_t> position;
    const int64_t* s = sampled.data<int64_t>();
    for (int64_t i = 0; i < sampled.dim_size(0); ++i) position[s[i]] = i;
    std::vector<int32_t> rows;
    std::vector<int64_t> ids;
    const int64_t* t = true_classes.data<int64_t>();
    for (int64_t i = 0; i < true_classes.NumElements(); ++i) {
      const auto it = position.find(t[i]);
      if (it == position.end()) continue;
      rows.push_back(static_cast<int32_t>(i / std::max<int64_t>(num_true_, 1)));
      ids.push_back(it->second);
    }
    const TensorShape shape({static_cast<int64_t>(rows.size())});
    Tensor* out[3] = {};
    for (int i = 0; i < 3; ++i) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(i, shape, &out[i]));
    }
    std::copy(rows.begin(), rows.end(), out[0]->data<int32_t>());
    std::copy(ids.begin(), ids.end(), out[1]->data<int64_t>());
    std::fill_n(out[2]->data<float>(), rows.size(),
                -std::numeric_limits<float>::max());
  }

 private:
  int64_t num_true_ = 0;
};

}  // namespace

void RegisterCandidateSamplerKernels(KernelRegistry* registry) {
  RegisterKernel<CandidateSamplerOp<SamplerKind::kUniform>>(
      registry, KernelDefBuilder("UniformCandidateSampler"));
  RegisterKernel<CandidateSamplerOp<SamplerKind::kLogUniform>>(
      registry, KernelDefBuilder("LogUniformCandidateSampler"));
  RegisterKernel<CandidateSamplerOp<SamplerKind::kUnigram>>(
      registry, KernelDefBuilder("LearnedUnigramCandidateSampler"));
  RegisterKernel<CandidateSamplerOp<SamplerKind::kUnigram>>(
      registry, KernelDefBuilder("ThreadUnsafeUnigramCandidateSampler"));
  RegisterKernel<CandidateSamplerOp<SamplerKind::kFixed>>(
      registry, KernelDefBuilder("FixedUnigramCandidateSampler"));
  RegisterKernel<CandidateSamplerOp<SamplerKind::kAll>>(
      registry, KernelDefBuilder("AllCandidateSampler"));
  RegisterKernel<ComputeAccidentalHitsOp>(
      registry, KernelDefBuilder("ComputeAccidentalHits"));
}

}  // namespace dfx::random

// CTCBeamSearchDecoder: the top_paths most probable label sequences of
// [max_time, batch, num_classes] logits by beam search (blank =
// num_classes - 1), with their log probabilities, as TensorFlow 2.21's CPU
// kernel computes them (ctc_decoder_ops.cc, util/ctc/ctc_beam_search.h,
// ctc_beam_entry.h). The beam is TensorFlow's gtl::TopN, step for step
// (the same pushes, heap operations and sorts), so that ties between
// equally probable beams break as there and the paths come out in the same
// order. Each step's logits are normalized to log probabilities (log
// softmax) first.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/nn/ctc_util.h"
#include "kernels/nn/nn2_kernels.h"

namespace dfx::nn2_internal {
namespace {

using ctc::LogSumExp;
using ctc::LogZero;

template <typename T>
struct BeamProbability {
  T total = LogZero<T>();
  T blank = LogZero<T>();
  T label = LogZero<T>();
  void Reset() { total = blank = label = LogZero<T>(); }
};

// A node of the prefix tree: the label sequence of its path from the root.
template <typename T>
struct BeamEntry {
  BeamEntry* parent = nullptr;
  int label = -1;
  std::unordered_map<int, BeamEntry*> children;
  BeamProbability<T> oldp;
  BeamProbability<T> newp;

  bool Active() const { return newp.total != LogZero<T>(); }
  std::vector<int> LabelSeq(bool merge_repeated) const {
    std::vector<int> labels;
    int prev = -1;
    for (const BeamEntry* c = this; c->parent != nullptr; c = c->parent) {
      if (!merge_repeated || c->label != prev) labels.push_back(c->label);
      prev = c->label;
    }
    std::reverse(labels.begin(), labels.end());
    return labels;
  }
};

// Higher total probability first.
template <typename T>
struct BeamGreater {
  bool operator()(const BeamEntry<T>* a, const BeamEntry<T>* b) const {
    return a->newp.total > b->newp.total;
  }
};

// TensorFlow's gtl::TopN: the `limit` greatest of the elements pushed. An
// unordered vector until it overflows, then a heap of `limit` elements plus
// one spare slot; peek_bottom() moves the least element to the front of the
// unordered vector.
template <typename E, typename Greater>
class TopN {
 public:
  explicit TopN(size_t limit) : limit_(limit) {}

  size_t size() const { return std::min(elements_.size(), limit_); }

  void push(E v) {
    if (limit_ == 0) return;
    if (state_ != kHeap) {
      elements_.push_back(v);
      if (state_ == kBottomKnown &&
          !greater_(elements_.back(), elements_.front())) {
        std::swap(elements_.front(), elements_.back());
      }
      if (elements_.size() == limit_ + 1) {
        std::make_heap(elements_.begin(), elements_.end(), greater_);
        std::pop_heap(elements_.begin(), elements_.end(), greater_);
        state_ = kHeap;
      }
    } else if (greater_(v, elements_.front())) {
      elements_.back() = v;
      std::push_heap(elements_.begin(), elements_.end(), greater_);
      std::pop_heap(elements_.begin(), elements_.end(), greater_);
    }
  }

  const E& peek_bottom() {
    if (state_ == kUnordered) {
      size_t min = 0;
      for (size_t i = 1; i < elements_.size(); ++i) {
        if (greater_(elements_[min], elements_[i])) min = i;
      }
      if (min != 0) std::swap(elements_[0], elements_[min]);
      state_ = kBottomKnown;
    }
    return elements_.front();
  }

  // The elements, greatest first; leaves this empty.
  std::vector<E> Extract() {
    std::vector<E> out;
    out.swap(elements_);
    if (state_ != kHeap) {
      std::sort(out.begin(), out.end(), greater_);
    } else {
      out.pop_back();
      std::sort_heap(out.begin(), out.end(), greater_);
    }
    state_ = kUnordered;
    return out;
  }

  // The first size() elements in storage order.
  const E* unsorted_begin() const { return elements_.data(); }
  const E* unsorted_end() const { return elements_.data() + size(); }

  void Reset() {
    elements_.clear();
    state_ = kUnordered;
  }

 private:
  enum State { kUnordered, kBottomKnown, kHeap };
  std::vector<E> elements_;
  const size_t limit_;
  Greater greater_;
  State state_ = kUnordered;
};

// The beam search of one batch member.
template <typename T>
class BeamSearch {
 public:
  BeamSearch(int num_classes, int beam_width)
      : num_classes_(num_classes), beam_width_(beam_width),
        leaves_(static_cast<size_t>(beam_width)) {
    Reset();
  }

  void Reset() {
    leaves_.Reset();
    entries_.clear();
    BeamEntry<T>* root = NewEntry(nullptr, -1);
    root->newp.total = 0;
    root->newp.blank = 0;
    leaves_.push(root);
  }

  // One time step of logits `in` (num_classes values).
  void Step(const T* in) {
    const int blank = num_classes_ - 1;
    // The logits normalized as log probabilities: minus
    // max + log(sum(exp(logit - max))).
    const T max_coeff = *std::max_element(in, in + num_classes_);
    T logsumexp = T(0);
    for (int j = 0; j < num_classes_; ++j) {
      logsumexp += std::exp(in[j] - max_coeff);
    }
    logsumexp = std::log(logsumexp);
    const T norm_offset = max_coeff + logsumexp;
    std::vector<BeamEntry<T>*> branches = leaves_.Extract();
    leaves_.Reset();
    for (BeamEntry<T>* b : branches) b->oldp = b->newp;
    for (BeamEntry<T>* b : branches) {
      if (b->parent != nullptr) {
        if (b->parent->Active()) {
          const T previous = b->label == b->parent->label
                                 ? b->parent->oldp.blank
                                 : b->parent->oldp.total;
          b->newp.label = LogSumExp(b->newp.label, previous);
        }
        b->newp.label += in[b->label] - norm_offset;
      }
      b->newp.blank = b->oldp.total + in[blank] - norm_offset;
      b->newp.total = LogSumExp(b->newp.blank, b->newp.label);
      leaves_.push(b);
    }
    auto is_candidate = [this](const BeamProbability<T>& prob) {
      return prob.total > LogZero<T>() &&
             (leaves_.size() < static_cast<size_t>(beam_width_) ||
              prob.total > leaves_.peek_bottom()->newp.total);
    };
    for (BeamEntry<T>* b : branches) {
      if (!is_candidate(b->oldp)) continue;
      for (int label = 0; label < num_classes_ - 1; ++label) {
        BeamEntry<T>& c = Child(b, label);
        if (c.Active()) continue;
        c.newp.blank = LogZero<T>();
        const T previous = c.label == b->label ? b->oldp.blank : b->oldp.total;
        c.newp.label = in[label] - norm_offset + previous;
        c.newp.total = c.newp.label;
        if (is_candidate(c.newp)) {
          if (leaves_.size() == static_cast<size_t>(beam_width_)) {
            // The bottom leaf leaves the beam.
            leaves_.peek_bottom()->newp.Reset();
          }
          leaves_.push(&c);
        } else {
          c.oldp.Reset();
          c.newp.Reset();
        }
      }
    }
  }

  // The n best paths and their log probabilities.
  absl::Status TopPaths(int n, bool merge_repeated,
                        std::vector<std::vector<int>>* paths,
                        std::vector<T>* log_probs) const {
    paths->clear();
    log_probs->clear();
    if (n > beam_width_) {
      return absl::InvalidArgumentError(
          "requested more paths than the beam width.");
    }
    if (static_cast<size_t>(n) > leaves_.size()) {
      return absl::InvalidArgumentError(
          "Less leaves in the beam search than requested.");
    }
    TopN<BeamEntry<T>*, BeamGreater<T>> top(static_cast<size_t>(n));
    for (auto it = leaves_.unsorted_begin(); it != leaves_.unsorted_end();
         ++it) {
      top.push(*it);
    }
    for (BeamEntry<T>* e : top.Extract()) {
      paths->push_back(e->LabelSeq(merge_repeated));
      log_probs->push_back(e->newp.total);
    }
    return absl::OkStatus();
  }

 private:
  BeamEntry<T>* NewEntry(BeamEntry<T>* parent, int label) {
    entries_.push_back(std::make_unique<BeamEntry<T>>());
    BeamEntry<T>* e = entries_.back().get();
    e->parent = parent;
    e->label = label;
    return e;
  }

  BeamEntry<T>& Child(BeamEntry<T>* b, int label) {
    auto [it, inserted] = b->children.emplace(label, nullptr);
    if (inserted) it->second = NewEntry(b, label);
    return *it->second;
  }

  const int num_classes_;
  const int beam_width_;
  TopN<BeamEntry<T>*, BeamGreater<T>> leaves_;
  // Every node of the tree; the tree lives until the next Reset.
  std::vector<std::unique_ptr<BeamEntry<T>>> entries_;
};

template <typename T>
class CTCBeamSearchDecoderOp : public OpKernel {
 public:
  explicit CTCBeamSearchDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("merge_repeated", &merge_repeated_));
    ctx->SetStatus(ctx->GetAttr("beam_width", &beam_width_));
    ctx->SetStatus(ctx->GetAttr("top_paths", &top_paths_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, ctc::CheckDecoderInputs(inputs, seq_len));
    const int64_t batch_size = inputs.dim_size(1);
    const int num_classes = static_cast<int>(inputs.dim_size(2));
    Tensor* log_prob = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(3 * top_paths_,
                                  TensorShape({batch_size, top_paths_}),
                                  &log_prob));
    T* lp = log_prob->data<T>();
    std::fill(lp, lp + log_prob->NumElements(), T(0));
    const T* in = inputs.data<T>();
    const int32_t* lengths = seq_len.data<int32_t>();
    BeamSearch<T> search(num_classes, static_cast<int>(beam_width_));
    std::vector<std::vector<std::vector<int>>> paths(batch_size);
    std::vector<T> log_probs;
    for (int64_t b = 0; b < batch_size; ++b) {
      for (int t = 0; t < lengths[b]; ++t) {
        search.Step(in + (t * batch_size + b) * num_classes);
      }
      DFX_OP_REQUIRES_OK(ctx, search.TopPaths(static_cast<int>(top_paths_),
                                              merge_repeated_, &paths[b],
                                              &log_probs));
      search.Reset();
      for (int64_t p = 0; p < top_paths_; ++p) {
        lp[b * top_paths_ + p] = log_probs[p];
      }
    }
    DFX_OP_REQUIRES_OK(ctx, ctc::StoreDecodedSequences(
                                paths, static_cast<int>(top_paths_), ctx));
  }

 private:
  bool merge_repeated_ = true;
  int64_t beam_width_ = 1;
  int64_t top_paths_ = 1;
};

}  // namespace

void RegisterCtcBeamSearchKernels(KernelRegistry* registry) {
  RegisterKernel<CTCBeamSearchDecoderOp<float>>(
      registry,
      KernelDefBuilder("CTCBeamSearchDecoder").TypeConstraint<float>("T"));
  RegisterKernel<CTCBeamSearchDecoderOp<double>>(
      registry,
      KernelDefBuilder("CTCBeamSearchDecoder").TypeConstraint<double>("T"));
}

}  // namespace dfx::nn2_internal

// Shuffling, in TensorFlow's order: ShuffleDataset (V1, V2, V3),
// ShuffleAndRepeatDataset (V1, V2) and the seed generators behind them
// (AnonymousSeedGenerator, DummySeedGenerator, DeleteSeedGenerator and its
// older name DeleteRandomSeedGenerator); and
// Dataset.random (RandomDataset, RandomDatasetV2), which draws from the
// same generators.
//
// The order follows TensorFlow's shuffle iterator exactly, so a seeded
// pipeline yields TensorFlow's elements in TensorFlow's order:
// - a seed generator per dataset hands each new iterator (each epoch of a
//   repeat) its (seed, seed2): the dataset's own seeds every time when
//   reshuffle_each_iteration is false, else the next two 32-bit words of a
//   Philox stream keyed by them. Seeds (0, 0) mean "seed randomly".
// - the iterator fills a buffer of up to buffer_size elements; each element
//   it produces is buffer[start + r % live] of the oldest epoch's slice of
//   the buffer, r the next 32-bit word of its own Philox stream keyed by its
//   (seed, seed2); the slot is refilled by swapping with the slice's first.
// - elements of at most three epochs share the buffer (the fused
//   shuffle-and-repeat form); each new epoch's first draw reseeds.
#include <atomic>
#include <deque>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/random/philox.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {
namespace {

constexpr int64_t kMaxEpochsInBuffer = 3;

// TensorFlow's RandomSeeds: (0, 0) asks for random seeds.
std::pair<int64_t, int64_t> ResolveSeeds(int64_t seed, int64_t seed2) {
  if (seed != 0 || seed2 != 0) return {seed, seed2};
  std::random_device rd;
  auto draw = [&rd] {
    return static_cast<int64_t>((uint64_t{rd()} << 32) | rd());
  };
  const int64_t a = draw();
  return {a, draw()};
}

// The Philox stream keyed by (seed, seed2), one 32-bit word at a time, set
// to a position by Reset (a restored iterator skips the words it drew).
class WordStream {
 public:
  WordStream() { Reset(0, 0, 0); }
  WordStream(int64_t seed, int64_t seed2) { Reset(seed, seed2, 0); }
  WordStream(const WordStream&) = delete;
  WordStream& operator=(const WordStream&) = delete;

  void Reset(int64_t seed, int64_t seed2, int64_t skip) {
    parent_ = random::Philox(static_cast<uint64_t>(seed),
                             static_cast<uint64_t>(seed2));
    words_.emplace(&parent_);
    words_->Skip(static_cast<uint64_t>(skip));
  }
  uint32_t operator()() { return (*words_)(); }

 private:
  random::Philox parent_;
  std::optional<random::PhiloxWords> words_;  // draws from parent_
};

// Hands out the seeds of each iterator of one shuffle dataset. A resource,
// so that AnonymousSeedGenerator can make one that outlives the datasets
// built from it.
class SeedGenerator final : public ResourceBase {
 public:
  static constexpr char kTypeName[] = "SeedGenerator";

  SeedGenerator(int64_t seed, int64_t seed2, bool reshuffle)
      : seed_(seed), seed2_(seed2), reshuffle_(reshuffle), words_(seed, seed2) {}
  SeedGenerator(const SeedGenerator&) = delete;
  SeedGenerator& operator=(const SeedGenerator&) = delete;

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("SeedGenerator(", seed_, ", ", seed2_,
                        reshuffle_ ? ", reshuffle)" : ")");
  }

  void GenerateSeeds(int64_t* seed, int64_t* seed2) {
    absl::MutexLock lock(&mu_);
    if (!reshuffle_) {
      *seed = seed_;
      *seed2 = seed2_;
      return;
    }
    *seed = words_();
    *seed2 = words_();
    draws_ += 2;
  }

  // How many words the generator has handed out, and setting it back to
  // that position (an iterator restored from a checkpoint).
  int64_t draws() const {
    absl::MutexLock lock(&mu_);
    return draws_;
  }
  void SetDraws(int64_t draws) {
    absl::MutexLock lock(&mu_);
    words_.Reset(seed_, seed2_, draws);
    draws_ = draws;
  }

 private:
  const int64_t seed_, seed2_;
  const bool reshuffle_;
  mutable absl::Mutex mu_;
  WordStream words_ ABSL_GUARDED_BY(mu_);
  int64_t draws_ ABSL_GUARDED_BY(mu_) = 0;
};

// The seed generator the handle at input `index` names; null when it does
// not exist (a DummySeedGenerator's handle): the dataset then makes its own.
absl::StatusOr<std::shared_ptr<SeedGenerator>> SeedGeneratorOfInput(
    OpKernelContext* ctx, int index) {
  DFX_ASSIGN_OR_RETURN(const ResourceHandle* h, HandleFromInput(ctx, index));
  absl::StatusOr<std::shared_ptr<SeedGenerator>> found =
      ctx->resource_manager()->Lookup<SeedGenerator>(h->container(),
                                                     h->name());
  if (absl::IsNotFound(found.status())) return nullptr;
  return found;
}

class ShuffleDataset final : public DatasetBase {
 public:
  // `count`: epochs of the input (-1: for ever); 1 for a plain shuffle.
  ShuffleDataset(DatasetPtr input, int64_t buffer_size, int64_t count,
                 std::shared_ptr<SeedGenerator> seeds)
      : DatasetBase(input->output_dtypes()),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        count_(count),
        seeds_(std::move(seeds)) {
    set_options(input_->options());
  }

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ == -1 || n == kInfiniteCardinality) {
      return n == 0 ? 0 : kInfiniteCardinality;
    }
    if (n == kUnknownCardinality) return n;
    return n * count_;
  }
  std::string DebugString() const override {
    return absl::StrCat("ShuffleDataset(buffer_size=", buffer_size_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<ShuffleDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const ShuffleDataset> d)
        : d_(std::move(d)) {
      d_->seeds_->GenerateSeeds(&seed_, &seed2_);
      ResetRngs();
    }

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      DFX_RETURN_IF_ERROR(FillBuffer(ctx));
      if (num_elements_ == 0) {
        *end = true;
        return absl::OkStatus();
      }
      *end = false;
      // The oldest epoch's slice; an epoch drained reseeds the draws.
      while (slices_.front().start == slices_.front().end) {
        slices_.pop_front();
        num_random_samples_ = 0;
        d_->seeds_->GenerateSeeds(&seed_, &seed2_);
        ResetRngs();
      }
      Slice& front = slices_.front();
      const int64_t offset = Random() % (front.end - front.start);
      const int64_t index = (front.start + offset) % d_->buffer_size_;
      *out = std::move(Slot(index));
      held_bytes_ -= ElementBytes(*out);
      std::swap(Slot(index), Slot(front.start % d_->buffer_size_));
      ++front.start;
      --num_elements_;
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "seed", seed_);
      state->WriteInt(prefix, "seed2", seed2_);
      state->WriteInt(prefix, "num_random_samples", num_random_samples_);
      state->WriteInt(prefix, "generator_draws", d_->seeds_->draws());
      state->WriteInt(prefix, "epoch", epoch_);
      state->WriteInt(prefix, "data_produced", data_produced_);
      std::vector<int64_t> bounds;
      for (const Slice& slice : slices_) {
        bounds.push_back(slice.start);
        bounds.push_back(slice.end);
      }
      state->WriteTensor(
          prefix, "slices",
          Tensor::FromVector<int64_t>(absl::MakeConstSpan(bounds)));
      // The live slots: each slice's [start, end), modulo the buffer.
      for (const Slice& slice : slices_) {
        for (int64_t i = slice.start; i < slice.end; ++i) {
          const int64_t index = i % d_->buffer_size_;
          state->WriteElement(prefix, absl::StrCat("buffer[", index, "]"),
                              Slot(index));
        }
      }
      return SaveInput(*d_->input_, in_.get(), prefix + "/input", state);
    }

    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(seed_, state.ReadInt(prefix, "seed"));
      DFX_ASSIGN_OR_RETURN(seed2_, state.ReadInt(prefix, "seed2"));
      DFX_ASSIGN_OR_RETURN(num_random_samples_,
                           state.ReadInt(prefix, "num_random_samples"));
      DFX_ASSIGN_OR_RETURN(int64_t draws,
                           state.ReadInt(prefix, "generator_draws"));
      DFX_ASSIGN_OR_RETURN(epoch_, state.ReadInt(prefix, "epoch"));
      DFX_ASSIGN_OR_RETURN(int64_t produced,
                           state.ReadInt(prefix, "data_produced"));
      data_produced_ = produced != 0;
      DFX_ASSIGN_OR_RETURN(Tensor bounds, state.ReadTensor(prefix, "slices"));
      if (bounds.dtype() != DT_INT64 || bounds.dims() != 1 ||
          bounds.NumElements() % 2 != 0 || draws < 0 ||
          num_random_samples_ < 0) {
        return absl::InvalidArgumentError(
            "the shuffle iterator's saved state is malformed");
      }
      slices_.clear();
      buffer_.clear();
      num_elements_ = 0;
      held_bytes_ = 0;
      const int64_t* b = bounds.data<int64_t>();
      for (int64_t i = 0; i < bounds.NumElements(); i += 2) {
        const int64_t start = b[i], end = b[i + 1];
        if (start < 0 || end < start ||
            num_elements_ + (end - start) > d_->buffer_size_) {
          return absl::InvalidArgumentError(
              "the shuffle iterator's saved buffer is malformed");
        }
        slices_.push_back({start, end});
        for (int64_t j = start; j < end; ++j) {
          const int64_t index = j % d_->buffer_size_;
          DFX_ASSIGN_OR_RETURN(
              Slot(index),
              state.ReadElement(prefix, absl::StrCat("buffer[", index, "]")));
          held_bytes_ += ElementBytes(Slot(index));
        }
        num_elements_ += end - start;
      }
      d_->seeds_->SetDraws(draws);
      ResetRngs();
      return RestoreInput(ctx, *d_->input_, &in_, prefix + "/input", state);
    }

   private:
    // Positions [start, end) of the buffer (taken modulo its size) hold one
    // epoch's elements.
    struct Slice {
      int64_t start;
      int64_t end;
    };

    void ResetRngs() { words_.Reset(seed_, seed2_, num_random_samples_); }
    uint32_t Random() {
      ++num_random_samples_;
      return words_();
    }
    // The buffer grows as it fills, so a large buffer_size costs only what
    // it holds.
    std::vector<Tensor>& Slot(int64_t index) {
      if (index >= static_cast<int64_t>(buffer_.size())) {
        buffer_.resize(index + 1);
      }
      return buffer_[index];
    }

    bool ShouldFillBuffer() const {
      if (in_ == nullptr && d_->count_ != -1 && epoch_ >= d_->count_) {
        return false;
      }
      if (static_cast<int64_t>(slices_.size()) > kMaxEpochsInBuffer &&
          num_elements_ > 0) {
        return false;
      }
      return num_elements_ < d_->buffer_size_;
    }

    absl::Status FillBuffer(IteratorContext* ctx) {
      while (ShouldFillBuffer()) {
        if (in_ == nullptr) {
          const int64_t n = slices_.empty() ? 0 : slices_.back().end;
          slices_.push_back({n, n});
          DFX_ASSIGN_OR_RETURN(in_, d_->input_->MakeIterator(ctx));
          ++epoch_;
        }
        std::vector<Tensor> element;
        bool input_end = false;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &input_end));
        if (!input_end) {
          held_bytes_ += ElementBytes(element);
          DFX_RETURN_IF_ERROR(
              CheckHeldElements(held_bytes_, d_->DebugString()));
          data_produced_ = true;
          Slot(slices_.back().end % d_->buffer_size_) = std::move(element);
          ++num_elements_;
          ++slices_.back().end;
          continue;
        }
        in_.reset();
        // An empty input repeated for ever would never produce anything.
        if (!data_produced_ && d_->count_ == -1) return absl::OkStatus();
      }
      return absl::OkStatus();
    }

    const std::shared_ptr<const ShuffleDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    std::vector<std::vector<Tensor>> buffer_;
    std::deque<Slice> slices_;
    int64_t epoch_ = 0;
    int64_t num_elements_ = 0;
    int64_t seed_ = 0, seed2_ = 0;
    WordStream words_;
    int64_t num_random_samples_ = 0;
    bool data_produced_ = false;
    int64_t held_bytes_ = 0;  // ElementBytes of the buffer's elements
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
  const int64_t count_;
  const std::shared_ptr<SeedGenerator> seeds_;
};

// ShuffleDataset and ShuffleAndRepeatDataset (seeds as inputs; a new pair
// per epoch under reshuffle_each_iteration), ShuffleDatasetV2 (a seed
// generator resource), ShuffleDatasetV3 and ShuffleAndRepeatDatasetV2
// (seeds, and a seed generator that is used when it exists; TensorFlow 2
// passes a DummySeedGenerator, which never does).
class ShuffleDatasetOp final : public DatasetOpKernel {
 public:
  explicit ShuffleDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx),
        version_(ctx->def().op() == "ShuffleDatasetV2" ? 2
                 : ctx->def().op() == "ShuffleDataset" ||
                         ctx->def().op() == "ShuffleAndRepeatDataset"
                     ? 1
                     : 3),
        repeat_(ctx->def().op() == "ShuffleAndRepeatDatasetV2" ||
                ctx->def().op() == "ShuffleAndRepeatDataset") {
    if (FindNodeAttr(ctx->def(), "reshuffle_each_iteration") != nullptr) {
      ctx->SetStatus(
          ctx->GetAttr("reshuffle_each_iteration", &reshuffle_));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t buffer_size,
                         ScalarInt64Input(ctx, 1, "buffer_size"));
    if (buffer_size <= 0) {
      return absl::InvalidArgumentError(
          "buffer_size must be greater than zero.");
    }
    int64_t count = 1;
    int64_t seed = 0, seed2 = 0;
    int generator_input = -1;
    if (version_ == 2) {
      generator_input = 2;
    } else {
      DFX_ASSIGN_OR_RETURN(seed, ScalarInt64Input(ctx, 2, "seed"));
      DFX_ASSIGN_OR_RETURN(seed2, ScalarInt64Input(ctx, 3, "seed2"));
      if (repeat_) {
        DFX_ASSIGN_OR_RETURN(count, ScalarInt64Input(ctx, 4, "count"));
        if (count < 0) count = -1;
        if (version_ == 3) generator_input = 5;
      } else if (version_ == 3) {
        generator_input = 4;
      }
    }
    std::shared_ptr<SeedGenerator> generator;
    if (generator_input >= 0) {
      DFX_ASSIGN_OR_RETURN(generator,
                           SeedGeneratorOfInput(ctx, generator_input));
    }
    if (generator == nullptr) {
      // V2 without its generator: random seeds, reshuffled (TensorFlow's
      // fallback).
      const bool reshuffle = version_ == 2 ? true : reshuffle_;
      auto [s1, s2] = ResolveSeeds(seed, seed2);
      generator = std::make_shared<SeedGenerator>(s1, s2, reshuffle);
    }
    return std::make_shared<ShuffleDataset>(std::move(input), buffer_size,
                                            count, std::move(generator));
  }

  const int version_;
  const bool repeat_;
  bool reshuffle_ = true;
};

// ---------------------------------------------------------------------------
// RandomDataset: an endless stream of TensorFlow's uniform 32-bit words as
// int64 scalars, the Philox stream keyed by the iterator's (seed, seed2)
// taken one word at a time. Each iterator asks the dataset's seed generator
// for its seeds: the same ones every time, or (rerandomize_each_iteration)
// a new pair per iterator, so each epoch of a repeat differs.

class RandomDataset final : public DatasetBase {
 public:
  explicit RandomDataset(std::shared_ptr<SeedGenerator> seeds)
      : DatasetBase({DT_INT64}), seeds_(std::move(seeds)) {}

  int64_t Cardinality() const override { return kInfiniteCardinality; }
  std::string DebugString() const override {
    return absl::StrCat("RandomDataset(", seeds_->DebugString(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    int64_t seed = 0, seed2 = 0;
    seeds_->GenerateSeeds(&seed, &seed2);
    return std::unique_ptr<IteratorBase>(new Iterator(seeds_, seed, seed2));
  }

 private:
  // Saves its seeds, the words drawn and its seed generator's position
  // (a repeat's later epochs draw new seeds from it), as shuffle does.
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<SeedGenerator> generator, int64_t seed,
             int64_t seed2)
        : generator_(std::move(generator)), seed_(seed), seed2_(seed2) {
      Reset(0);
    }
    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      *end = false;
      out->push_back(Tensor::Scalar<int64_t>(words_()));
      ++drawn_;
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "seed", seed_);
      state->WriteInt(prefix, "seed2", seed2_);
      state->WriteInt(prefix, "drawn", drawn_);
      state->WriteInt(prefix, "generator_draws", generator_->draws());
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t seed, state.ReadInt(prefix, "seed"));
      DFX_ASSIGN_OR_RETURN(int64_t seed2, state.ReadInt(prefix, "seed2"));
      DFX_ASSIGN_OR_RETURN(int64_t drawn, state.ReadInt(prefix, "drawn"));
      DFX_ASSIGN_OR_RETURN(int64_t draws,
                           state.ReadInt(prefix, "generator_draws"));
      if (drawn < 0 || draws < 0) {
        return absl::InvalidArgumentError(
            "the random dataset iterator's saved state is malformed");
      }
      seed_ = seed;
      seed2_ = seed2;
      Reset(drawn);
      generator_->SetDraws(draws);
      return absl::OkStatus();
    }

   private:
    void Reset(int64_t drawn) {
      words_.Reset(seed_, seed2_, drawn);
      drawn_ = drawn;
    }

    const std::shared_ptr<SeedGenerator> generator_;
    int64_t seed_, seed2_;
    int64_t drawn_ = 0;
    WordStream words_;
  };

  const std::shared_ptr<SeedGenerator> seeds_;
};

// RandomDataset (seeds; the same ones for every iterator) and
// RandomDatasetV2 (seeds and a seed generator used when it exists, as
// ShuffleDatasetV3's; TensorFlow passes a DummySeedGenerator, which never
// does, and the dataset makes its own that follows
// rerandomize_each_iteration).
class RandomDatasetOp final : public DatasetOpKernel {
 public:
  explicit RandomDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx), v2_(ctx->def().op() == "RandomDatasetV2") {
    if (v2_) {
      ctx->SetStatus(
          ctx->GetAttr("rerandomize_each_iteration", &rerandomize_));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(int64_t seed, ScalarInt64Input(ctx, 0, "seed"));
    DFX_ASSIGN_OR_RETURN(int64_t seed2, ScalarInt64Input(ctx, 1, "seed2"));
    std::shared_ptr<SeedGenerator> generator;
    if (v2_) {
      DFX_ASSIGN_OR_RETURN(generator, SeedGeneratorOfInput(ctx, 2));
    }
    if (generator == nullptr) {
      auto [s1, s2] = ResolveSeeds(seed, seed2);
      generator = std::make_shared<SeedGenerator>(s1, s2, rerandomize_);
    }
    return std::make_shared<RandomDataset>(std::move(generator));
  }

  const bool v2_;
  bool rerandomize_ = false;
};

std::atomic<int64_t> next_seed_generator{0};

Tensor SeedGeneratorHandle(OpKernelContext* ctx, const std::string& name) {
  Tensor out(DT_RESOURCE, TensorShape({}));
  ResourceHandle& h = out.scalar<ResourceHandle>();
  h.set_device(ctx->device()->name());
  h.set_container(ctx->resource_manager()->default_container());
  h.set_name(name);
  h.set_maybe_type_name(SeedGenerator::kTypeName);
  return out;
}

// A handle to a generator that does not exist: the shuffle makes its own.
class DummySeedGeneratorOp final : public OpKernel {
 public:
  explicit DummySeedGeneratorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, SeedGeneratorHandle(ctx, "_DummySeedGenerator"));
  }
};

class AnonymousSeedGeneratorOp final : public OpKernel {
 public:
  explicit AnonymousSeedGeneratorOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> seed = ScalarInt64Input(ctx, 0, "seed");
    DFX_OP_REQUIRES_OK(ctx, seed.status());
    absl::StatusOr<int64_t> seed2 = ScalarInt64Input(ctx, 1, "seed2");
    DFX_OP_REQUIRES_OK(ctx, seed2.status());
    absl::StatusOr<bool> reshuffle = ScalarBoolInput(ctx, 2, "reshuffle");
    DFX_OP_REQUIRES_OK(ctx, reshuffle.status());
    auto [s1, s2] = ResolveSeeds(*seed, *seed2);
    const std::string name = absl::StrCat(
        "_AnonymousSeedGenerator", next_seed_generator.fetch_add(1));
    DFX_OP_REQUIRES_OK(ctx, ctx->resource_manager()->Create(
                                ctx->resource_manager()->default_container(),
                                name,
                                std::make_shared<SeedGenerator>(
                                    s1, s2, *reshuffle)));
    ctx->set_output(0, SeedGeneratorHandle(ctx, name));
    ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
  }
};

class DeleteSeedGeneratorOp final : public OpKernel {
 public:
  explicit DeleteSeedGeneratorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx,
                       DeleteResourceOfInput(ctx, SeedGenerator::kTypeName));
  }
};

}  // namespace

void RegisterShuffleKernels(KernelRegistry* registry) {
  for (const char* op :
       {"ShuffleDataset", "ShuffleDatasetV2", "ShuffleDatasetV3",
        "ShuffleAndRepeatDataset", "ShuffleAndRepeatDatasetV2"}) {
    RegisterKernel<ShuffleDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"RandomDataset", "RandomDatasetV2", "ExperimentalRandomDataset"}) {
    RegisterKernel<RandomDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<DummySeedGeneratorOp>(registry,
                                       KernelDefBuilder("DummySeedGenerator"));
  RegisterKernel<AnonymousSeedGeneratorOp>(
      registry, KernelDefBuilder("AnonymousSeedGenerator"));
  RegisterKernel<DeleteSeedGeneratorOp>(
      registry, KernelDefBuilder("DeleteSeedGenerator"));
  // The older name. Its partner AnonymousRandomSeedGenerator is not
  // registered: TensorFlow 2.21 serves it with AnonymousSeedGenerator's
  // kernel, which reads a `reshuffle` input the op does not have, so it
  // always fails ("Unknown input name: reshuffle").
  RegisterKernel<DeleteSeedGeneratorOp>(
      registry, KernelDefBuilder("DeleteRandomSeedGenerator"));
}

}  // namespace dfx::data

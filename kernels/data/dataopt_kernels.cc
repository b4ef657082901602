// The kernels of what tf.data's optimizer emits (graph/ops/dataopt_ops.cc):
//
// - ChooseFastestBranchDataset: each branch function turns a dataset into
//   one; the iterator runs every branch in turn on num_elements_per_branch
//   elements of the one input (through a take of num_elements_per_branch *
//   ratio_numerator / ratio_denominator input elements), times each
//   GetNext but a branch's first, and then keeps the branch with the
//   smallest 90th percentile time (the last of equals) over the rest of the
//   input. The branches yield the same elements by contract, so which one
//   wins changes only how fast. As TensorFlow's, the timings are not saved
//   with the iterator, and an end of sequence during the experiments is
//   passed on without ending them.
// - MapDefun: `f` on row i of every argument (and the captured inputs
//   whole), the results stacked; output_shapes may leave dims unknown, and
//   the first row's result fixes them.
// - WindowOp: its inputs taken len(output_shapes) at a time as elements
//   (what is left over is dropped, as in TensorFlow).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/shape_inference.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/elements_dataset.h"
#include "kernels/data/state_util.h"
#include "kernels/kernels.h"

namespace dfx::data {
namespace {

// ---------------------------------------------------------------------------
// ChooseFastestBranchDataset

// What a branch function gets as its input dataset: the choosing
// iterator's input iterator, borrowed, through at most `limit` elements
// (-1: no limit). It is read through one iterator only, as TensorFlow's
// wrapper: a branch that makes another after reading (a repeat) fails.
// (An iterator made but not read may be replaced: dfx's Restore makes a
// fresh input iterator where TensorFlow's restores the one it has.)
class BranchInputDataset final : public DatasetBase {
 public:
  BranchInputDataset(DataTypeVector dtypes, IteratorBase* source, int64_t limit)
      : DatasetBase(std::move(dtypes)), source_(source), limit_(limit) {}

  std::string DebugString() const override {
    return "ChooseFastestBranch_Wrapper";
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    if (read_.load()) {
      return absl::InvalidArgumentError(
          "Cannot create more than one WrapperIterator per WrapperDataset. "
          "Make sure the branches to ChooseFastestDataset do not expect the "
          "input to repeat.");
    }
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<BranchInputDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const BranchInputDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (d_->limit_ >= 0 && taken_ >= d_->limit_) {
        *end = true;
        return absl::OkStatus();
      }
      d_->read_.store(true);
      DFX_RETURN_IF_ERROR(d_->source_->GetNext(ctx, out, end));
      if (!*end) ++taken_;
      return absl::OkStatus();
    }
    // The input itself is saved by the choosing iterator.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "taken", taken_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      const int64_t hi =
          d_->limit_ >= 0 ? d_->limit_ : std::numeric_limits<int64_t>::max();
      DFX_ASSIGN_OR_RETURN(taken_,
                           ReadIntInRange(state, prefix, "taken", 0, hi));
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const BranchInputDataset> d_;
    int64_t taken_ = 0;
  };

  IteratorBase* const source_;
  const int64_t limit_;
  mutable std::atomic<bool> read_{false};
};

struct Branch {
  std::shared_ptr<const DatasetFunction> f;
  std::vector<Tensor> captured;
};

class ChooseFastestBranchDataset final : public UnaryDataset {
 public:
  ChooseFastestBranchDataset(DatasetPtr input, DataTypeVector dtypes,
                             std::vector<Branch> branches, int64_t per_branch,
                             int64_t numerator, int64_t denominator)
      : UnaryDataset(std::move(input), std::move(dtypes)),
        branches_(std::move(branches)),
        per_branch_(per_branch),
        numerator_(numerator),
        denominator_(denominator) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    // As TensorFlow's (which is wrong for a branch that does not keep the
    // ratio, a batch without drop_remainder).
    return static_cast<int64_t>(static_cast<double>(n) * numerator_ /
                                denominator_);
  }
  std::string DebugString() const override {
    return absl::StrCat("ChooseFastestBranchDataset(", branches_.size(),
                        " branches)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<ChooseFastestBranchDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const ChooseFastestBranchDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)), times_(d_->branches_.size()) {}

    ~Iterator() override {
      // The branch's iterator reads `in_` through its input dataset: it
      // goes first.
      current_.reset();
    }

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      const int64_t n = static_cast<int64_t>(d_->branches_.size());
      if (branch_ < n) {
        if (current_ == nullptr) {
          DFX_RETURN_IF_ERROR(MakeCurrent(ctx, branch_, /*experiment=*/true));
        }
        const auto start = std::chrono::steady_clock::now();
        absl::Status s = current_->GetNext(ctx, out, end);
        // A branch's first element is not timed: it may pay for setting up.
        if (counter_ > 0) {
          times_[branch_].push_back(
              std::chrono::duration<double, std::nano>(
                  std::chrono::steady_clock::now() - start)
                  .count());
        }
        if (++counter_ >= d_->per_branch_) {
          counter_ = 0;
          ++branch_;
          current_.reset();
          current_dataset_.reset();
        }
        return s;
      }
      if (current_ == nullptr) {
        SelectFastest();
        DFX_RETURN_IF_ERROR(MakeCurrent(ctx, fastest_, /*experiment=*/false));
      }
      return current_->GetNext(ctx, out, end);
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input(), in_.get(), prefix + "/input", state));
      state->WriteInt(prefix, "experiment_counter", counter_);
      state->WriteInt(prefix, "branch_index", branch_);
      state->WriteInt(prefix, "fastest_index", fastest_);
      if (current_ == nullptr) {
        state->WriteInt(prefix, "current_empty", 1);
        return absl::OkStatus();
      }
      return SaveIterator(*current_dataset_, *current_, prefix + "/current",
                          state);
    }

    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      const int64_t n = static_cast<int64_t>(d_->branches_.size());
      // A branch's iterator reads `in_`, which the restore replaces.
      current_.reset();
      current_dataset_.reset();
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(
          counter_, ReadIntInRange(state, prefix, "experiment_counter", 0,
                                   d_->per_branch_ - 1));
      DFX_ASSIGN_OR_RETURN(branch_,
                           ReadIntInRange(state, prefix, "branch_index", 0, n));
      DFX_ASSIGN_OR_RETURN(
          fastest_, ReadIntInRange(state, prefix, "fastest_index", -1, n - 1));
      if (state.Contains(prefix, "current_empty")) return absl::OkStatus();
      const bool experiment = branch_ < n;
      const int64_t index = experiment ? branch_ : fastest_;
      if (index < 0) {
        return absl::InvalidArgumentError(
            "the saved ChooseFastestBranchDataset iterator has a branch's "
            "iterator but no branch chosen");
      }
      DFX_RETURN_IF_ERROR(MakeCurrent(ctx, index, experiment));
      return RestoreIterator(*current_dataset_, *current_, ctx,
                             prefix + "/current", state);
    }

   private:
    // The 90th percentile of each branch's times (0 for none, as
    // TensorFlow's empty histogram); the last of the smallest wins.
    void SelectFastest() {
      double best = 0;
      fastest_ = 0;
      for (size_t i = 0; i < times_.size(); ++i) {
        const double p = Percentile90(times_[i]);
        if (i == 0 || p <= best) {
          best = p;
          fastest_ = static_cast<int64_t>(i);
        }
      }
    }

    static double Percentile90(std::vector<double> v) {
      if (v.empty()) return 0;
      std::sort(v.begin(), v.end());
      const double at = 0.9 * static_cast<double>(v.size() - 1);
      const size_t lo = static_cast<size_t>(at);
      const size_t hi = std::min(lo + 1, v.size() - 1);
      return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
    }

    // Runs branch `index` on a fresh view of `in_` (limited to the
    // experiment's share of input elements when `experiment`) and makes an
    // iterator of the dataset it returns.
    absl::Status MakeCurrent(IteratorContext* ctx, int64_t index,
                             bool experiment) {
      if (in_ == nullptr) {
        return absl::InvalidArgumentError(
            "ChooseFastestBranchDataset has no input iterator (a saved "
            "state without one)");
      }
      int64_t limit = -1;
      if (experiment) {
        // per_branch * numerator / denominator, saturated.
        const __int128 take = static_cast<__int128>(d_->per_branch_) *
                              d_->numerator_ / d_->denominator_;
        limit = take > std::numeric_limits<int64_t>::max()
                    ? std::numeric_limits<int64_t>::max()
                    : static_cast<int64_t>(take);
      }
      const Branch& branch = d_->branches_[index];
      Tensor wrapped(DT_VARIANT, TensorShape({}));
      wrapped.data<Variant>()[0] =
          Variant::Make<DatasetVariant>(std::make_shared<BranchInputDataset>(
              d_->input()->output_dtypes(), in_.get(), limit));
      std::vector<Tensor> args = {std::move(wrapped)};
      args.insert(args.end(), branch.captured.begin(), branch.captured.end());
      DFX_ASSIGN_OR_RETURN(std::vector<Tensor> results,
                           branch.f->Run(ctx, std::move(args)));
      if (results.size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("branch function '", branch.f->name(), "' returned ",
                         results.size(), " values, not one dataset"));
      }
      DFX_ASSIGN_OR_RETURN(
          DatasetPtr ds,
          DatasetFromTensor(results[0], absl::StrCat("the result of branch "
                                                     "function '",
                                                     branch.f->name(), "'")));
      DFX_RETURN_IF_ERROR(CheckOutputTypes(d_->output_dtypes(),
                                           ds->output_dtypes(),
                                           "ChooseFastestBranchDataset"));
      DFX_ASSIGN_OR_RETURN(current_, ds->MakeIterator(ctx));
      current_dataset_ = std::move(ds);
      return absl::OkStatus();
    }

    const std::shared_ptr<const ChooseFastestBranchDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    // The running branch's dataset and iterator (which borrows `in_`).
    DatasetPtr current_dataset_;
    std::unique_ptr<IteratorBase> current_;
    // Each branch's timed GetNext calls, in nanoseconds.
    std::vector<std::vector<double>> times_;
    int64_t branch_ = 0;   // the branch being timed; n when done
    int64_t counter_ = 0;  // its elements read so far
    int64_t fastest_ = -1;
  };

  const std::vector<Branch> branches_;
  const int64_t per_branch_, numerator_, denominator_;
};

class ChooseFastestBranchDatasetOp final : public DatasetOpKernel {
 public:
  explicit ChooseFastestBranchDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_elements_per_branch", &per_branch_));
    ctx->SetStatus(ctx->GetAttr("other_arguments_lengths", &lengths_));
    const AttrValue* branches = FindNodeAttr(ctx->def(), "branches");
    if (!ctx->status().ok()) return;
    if (branches == nullptr || !branches->has_list()) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "attr 'branches' must be a list of functions"));
      return;
    }
    for (int i = 0; i < branches->list().func_size(); ++i) {
      // DatasetFunction reads a func attr: each branch as one of a copy of
      // the node, "branches[i]" (which names it in errors).
      NodeDef def = ctx->def();
      const std::string attr = absl::StrCat("branches[", i, "]");
      *(*def.mutable_attr())[attr].mutable_func() = branches->list().func(i);
      OpKernelConstruction branch_ctx(def, ctx->op_def(), ctx->input_types(),
                                      ctx->output_types(), ctx->device(),
                                      ctx->function_library());
      absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
          DatasetFunction::Create(&branch_ctx, attr);
      if (!f.ok()) {
        ctx->SetStatus(f.status());
        return;
      }
      functions_.push_back(*std::move(f));
    }
    if (functions_.size() != lengths_.size()) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "branches and other_arguments_lengths must have the same length."));
      return;
    }
    if (per_branch_ < 1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "num_elements_per_branch must be at least 1"));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t numerator,
                         ScalarInt64Input(ctx, 1, "ratio_numerator"));
    DFX_ASSIGN_OR_RETURN(int64_t denominator,
                         ScalarInt64Input(ctx, 2, "ratio_denominator"));
    if (numerator <= 0) {
      return absl::InvalidArgumentError(
          "`ratio_numerator` must be greater than zero.");
    }
    if (denominator <= 0) {
      return absl::InvalidArgumentError(
          "`ratio_denominator` must be greater than zero.");
    }
    if (per_branch_ % denominator != 0) {
      return absl::InvalidArgumentError(
          "`num_elements_per_branch` must be divisible by "
          "`ratio_denominator`.");
    }
    // TensorFlow indexes other_arguments by the lengths unchecked; dfx
    // refuses lengths that do not add up to them.
    const int64_t num_other = ctx->num_inputs() - 3;
    int64_t at = 0;
    std::vector<Branch> branches;
    for (size_t i = 0; i < functions_.size(); ++i) {
      if (lengths_[i] < 0 || lengths_[i] > num_other - at) {
        return absl::InvalidArgumentError(absl::StrCat(
            "other_arguments_lengths ", lengths_[i], " of branch ", i,
            " reaches past the ", num_other, " other_arguments"));
      }
      Branch b;
      b.f = functions_[i];
      for (int64_t j = 0; j < lengths_[i]; ++j) {
        b.captured.push_back(ctx->input(static_cast<int>(3 + at + j)));
      }
      at += lengths_[i];
      branches.push_back(std::move(b));
    }
    if (at != num_other) {
      return absl::InvalidArgumentError(
          absl::StrCat("other_arguments_lengths add up to ", at,
                       ", but there are ", num_other, " other_arguments"));
    }
    return std::make_shared<ChooseFastestBranchDataset>(
        std::move(input), output_types(), std::move(branches), per_branch_,
        numerator, denominator);
  }

  int64_t per_branch_ = 1;
  std::vector<int64_t> lengths_;
  std::vector<std::shared_ptr<const DatasetFunction>> functions_;
};

// ---------------------------------------------------------------------------
// WindowOp

class WindowOpKernel final : public DatasetOpKernel {
 public:
  explicit WindowOpKernel(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    const AttrValue* shapes = FindNodeAttr(ctx->def(), "output_shapes");
    components_ = shapes != nullptr ? shapes->list().shape_size() : 0;
    if (ctx->status().ok() && components_ < 1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "WindowOp needs at least one output shape"));
    }
  }

 private:
  // The elements are checked against output_types when they are read (the
  // iterator's types), as TensorFlow's.
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / components_;
    std::vector<std::vector<Tensor>> elements(n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < components_; ++j) {
        elements[i].push_back(ctx->input(i * components_ + j));
      }
    }
    return std::make_shared<ElementsDataset>("Window", output_types(),
                                             std::move(elements));
  }

  int components_ = 0;
};

// ---------------------------------------------------------------------------
// MapDefun

bool ShapeCompatible(const PartialShape& want, const TensorShape& got) {
  if (!want.RankKnown()) return true;
  if (want.rank() != got.dims()) return false;
  for (int d = 0; d < got.dims(); ++d) {
    if (want.dims[d] >= 0 && want.dims[d] != got.dim_size(d)) return false;
  }
  return true;
}

class MapDefunOp final : public OpKernel {
 public:
  explicit MapDefunOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataTypeVector args;
    ctx->SetStatus(ctx->GetAttr("Targuments", &args));
    num_args_ = static_cast<int>(args.size());
    const AttrValue* shapes = FindNodeAttr(ctx->def(), "output_shapes");
    if (!ctx->status().ok()) return;
    if (shapes != nullptr) {
      for (const TensorShapeProto& s : shapes->list().shape()) {
        shapes_.push_back(PartialShape::FromProto(s));
      }
    }
    if (static_cast<int>(shapes_.size()) != ctx->num_outputs()) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Length of output_shapes and output_types must match."));
      return;
    }
    absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
        DatasetFunction::Create(ctx, "f");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    f_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Run(ctx));
  }

 private:
  absl::Status Run(OpKernelContext* ctx) {
    const int64_t rows =
        ctx->input(0).dims() > 0 ? ctx->input(0).dim_size(0) : -1;
    for (int i = 0; i < num_args_; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("All inputs must have rank at least 1. Input ", i,
                         " has a rank of 0."));
      }
      if (t.dim_size(0) != rows) {
        return absl::InvalidArgumentError(absl::StrCat(
            "All inputs must have the same dimension 0. Input ", i,
            " has leading dimension ", t.dim_size(0),
            ", while all previous inputs have leading dimension ", rows));
      }
    }
    const int num_outputs = ctx->num_outputs();
    if (rows == 0) {
      // No call: outputs of a known shape are empty; TensorFlow sets none
      // of the others (and fails, Internal).
      for (int i = 0; i < num_outputs; ++i) {
        if (!shapes_[i].FullyDefined()) {
          return absl::InternalError(absl::StrCat(
              "MapDefun's output ", i,
              " has no value: its shape is not fully defined and the "
              "arguments have no rows for the function to give it"));
        }
        TensorShape shape({0});
        for (int64_t d : shapes_[i].dims) DFX_RETURN_IF_ERROR(shape.AddDim(d));
        ctx->set_output(i, Tensor(output_type(i), shape));
      }
      return absl::OkStatus();
    }
    std::vector<Tensor> captured;
    for (int i = num_args_; i < ctx->num_inputs(); ++i) {
      captured.push_back(ctx->input(i));
    }
    std::vector<PartialShape> want = shapes_;
    std::vector<std::vector<Tensor>> results;
    int64_t held = 0;
    IteratorContext ictx = IteratorContextOf(ctx);
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<Tensor> args;
      for (int i = 0; i < num_args_; ++i) {
        DFX_ASSIGN_OR_RETURN(Tensor row, RowOf(ctx->input(i), r));
        args.push_back(std::move(row));
      }
      args.insert(args.end(), captured.begin(), captured.end());
      DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                           f_->Run(&ictx, std::move(args)));
      // TensorFlow fails on a function with more results than outputs;
      // with fewer it leaves the outputs unwritten (dfx fails).
      if (static_cast<int>(out.size()) != num_outputs) {
        return absl::InvalidArgumentError(
            absl::StrCat("Mismatch in number of function outputs: function '",
                         f_->name(), "' returns ", out.size(),
                         " values, MapDefun has ", num_outputs, " outputs"));
      }
      for (int i = 0; i < num_outputs; ++i) {
        if (out[i].dtype() != output_type(i)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Mismatch in function return type and expected output type "
              "for output: ",
              i));
        }
        if (!ShapeCompatible(want[i], out[i].shape())) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Mismatch in function retval shape, ",
              out[i].shape().DebugString(), ", and expected output shape, ",
              want[i].DebugString(), "."));
        }
        if (!want[i].FullyDefined()) {
          const auto dims = out[i].shape().dim_sizes();
          want[i] = PartialShape::Known({dims.begin(), dims.end()});
        }
      }
      held += ElementBytes(out);
      results.push_back(std::move(out));
      DFX_RETURN_IF_ERROR(CheckHeldElements(held, "MapDefun"));
    }
    Allocator* allocator = ctx->device()->GetAllocator();
    for (int i = 0; i < num_outputs; ++i) {
      DFX_ASSIGN_OR_RETURN(Tensor stacked,
                           StackComponent(allocator, results, i));
      ctx->set_output(i, std::move(stacked));
    }
    return absl::OkStatus();
  }

  int num_args_ = 0;
  std::vector<PartialShape> shapes_;
  std::shared_ptr<const DatasetFunction> f_;
};

}  // namespace
}  // namespace dfx::data

namespace dfx {

void RegisterDataOptKernels(KernelRegistry* registry) {
  RegisterKernel<data::ChooseFastestBranchDatasetOp>(
      registry, KernelDefBuilder("ChooseFastestBranchDataset"));
  RegisterKernel<data::WindowOpKernel>(registry, KernelDefBuilder("WindowOp"));
  RegisterKernel<data::MapDefunOp>(registry, KernelDefBuilder("MapDefun"));
}

}  // namespace dfx

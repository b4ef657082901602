// Kernels of the TensorArrayV3 family: TensorArrayV3, TensorArrayGradV3,
// TensorArrayGradWithShape, TensorArrayWriteV3, TensorArrayReadV3,
// TensorArrayGatherV3, TensorArrayScatterV3, TensorArrayConcatV3,
// TensorArraySplitV3, TensorArraySizeV3, TensorArrayCloseV3. The array
// (tensor_array.h) lives in the step's container. The float `flow` that the
// ops pass along carries no value: it orders the ops of one array in the
// graph (and through loops), as in TensorFlow.
//
// The same kernels serve TensorFlow's older names, as TensorFlow's do: the
// v1 ops (TensorArray, TensorArrayWrite, ...), whose handle is a reference
// to a [2] string tensor ("_tensor_arrays", name), and the V2 ops, which
// pass that tensor by value (LookupStepResource reads all three handles).
// Neither creation op outputs a flow. TensorArrayPack and
// TensorArrayUnpack are the v1 gather and scatter of every index.
//
// Scatter and split store views of their input (Tensor::Slice), not copies:
// an element shares the buffer of the value it came from.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/data_flow/tensor_array.h"
#include "kernels/kernels.h"

namespace dfx::data_flow {
namespace {

constexpr char kContainerPrefix[] = "_tensor_arrays";
constexpr char kGradContainerPrefix[] = "_tensor_array_grads";

// Makes every array's name unique in the process, as TensorFlow does, so
// two runs of one TensorArrayV3 node in a step (a loop) get two arrays.
std::atomic<int64_t> tensor_array_counter{0};

absl::StatusOr<std::shared_ptr<TensorArray>> LookupArray(OpKernelContext* ctx) {
  return LookupStepResource<TensorArray>(ctx, 0);
}

absl::Status CheckScalar(const Tensor& t, const char* what) {
  if (t.dims() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " must be scalar, but had shape: ", t.shape().DebugString()));
}

absl::Status CheckReadDtype(const TensorArray& ta, DataType dtype) {
  if (ta.dtype() == dtype) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "TensorArray dtype is ", DataTypeString(ta.dtype()),
      " but Op requested dtype ", DataTypeString(dtype), "."));
}

absl::Status CheckWriteDtype(const TensorArray& ta, DataType dtype) {
  if (ta.dtype() == dtype) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "TensorArray dtype is ", DataTypeString(ta.dtype()),
      " but Op is trying to write dtype ", DataTypeString(dtype), "."));
}

absl::Status CheckMovable(const OpKernel& kernel, DataType dtype) {
  if (CanMove(dtype)) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      kernel.type_string(), " cannot move ", DataTypeString(dtype),
      " elements"));
}

PartialShape ShapeAttr(OpKernelConstruction* c, const char* name) {
  TensorShapeProto proto;
  c->SetStatus(c->GetAttr(name, &proto));
  return PartialShape::FromProto(proto);
}

Tensor ZeroFlow() { return Tensor::Scalar<float>(0.0f); }

// ---------------------------------------------------------------------------
// Creation

class TensorArrayV3Op : public OpKernel {
 public:
  explicit TensorArrayV3Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("dtype", &options_.dtype));
    options_.element_shape = ShapeAttr(c, "element_shape");
    c->SetStatus(c->GetAttr("dynamic_size", &options_.dynamic_size));
    c->SetStatus(c->GetAttr("clear_after_read", &options_.clear_after_read));
    // The v1 and V2 ops have no such attr.
    if (c->def().attr().contains("identical_element_shapes")) {
      c->SetStatus(c->GetAttr("identical_element_shapes",
                              &options_.identical_element_shapes));
    }
    c->SetStatus(c->GetAttr("tensor_array_name", &name_));
    if (name_.empty()) name_ = c->def().name();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& size = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckScalar(size, "TensorArray size"));
    absl::StatusOr<ScopedStepContainer*> step = StepContainer(ctx);
    DFX_OP_REQUIRES_OK(ctx, step.status());
    TensorArray::Options options = options_;
    options.size = size.scalar<int32_t>();
    const std::string name =
        absl::StrCat(name_, "_", tensor_array_counter.fetch_add(1));
    absl::StatusOr<std::shared_ptr<TensorArray>> ta =
        TensorArray::Create(name, std::move(options));
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    const std::string key = absl::StrCat(kContainerPrefix, name);
    DFX_OP_REQUIRES_OK(ctx, ctx->resource_manager()->Create((*step)->name(),
                                                            key, *ta));
    DFX_OP_REQUIRES_OK(ctx, SetStepHandleOutput(ctx, kContainerPrefix, name,
                                                TensorArray::kTypeName));
    if (ctx->num_outputs() > 1) ctx->set_output(1, ZeroFlow());
  }

 private:
  TensorArray::Options options_;
  std::string name_;
};

// TensorArrayGradV3 and TensorArrayGradWithShape (a third input: a shape
// prefixed to every element's shape). The gradient array of (array, source)
// is made once per step; later calls return it, so every gradient op of one
// tf.gradients call writes into the same array and writes to one index sum.
class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("source", &source_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<ScopedStepContainer*> step = StepContainer(ctx);
    DFX_OP_REQUIRES_OK(ctx, step.status());
    if (input_type(0) != DT_RESOURCE) {
      // TensorFlow's string handles name the forward array's container.
      std::string prefix, forward_name;
      DFX_OP_REQUIRES_OK(
          ctx, HandleNameFromInput(ctx, 0, &prefix, &forward_name));
      DFX_OP_REQUIRES(ctx, prefix == kContainerPrefix,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input container should be '", kContainerPrefix,
                          "',  but received '", prefix, "'")));
    }
    absl::StatusOr<std::shared_ptr<TensorArray>> forward = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, forward.status());
    const TensorArray& fwd = **forward;

    // Once gradients are computed the forward array may not grow.
    (*forward)->DisableDynamicSize();
    absl::StatusOr<int64_t> size = fwd.Size();
    DFX_OP_REQUIRES_OK(ctx, size.status());
    absl::StatusOr<int64_t> marked_size = fwd.MarkedSize();
    DFX_OP_REQUIRES_OK(ctx, marked_size.status());
    DFX_OP_REQUIRES(
        ctx, fwd.GradientsAllowed(),
        absl::InvalidArgumentError(absl::StrCat(
            "Unable to create a gradients TensorArray for ", fwd.name(),
            ".  Perhaps you used the multiple_writes_aggregate flag on a "
            "previous write?  Gradient calculation is impossible when "
            "multiple writes are performed to the same index.")));

    TensorArray::Options options;
    options.dtype = fwd.dtype();
    options.size = *size;
    options.identical_element_shapes = fwd.identical_element_shapes();
    options.dynamic_size = false;
    options.clear_after_read = true;
    options.is_grad = true;
    options.marked_size = *marked_size;
    options.element_shape = fwd.element_shape();
    TensorShape prepend;
    const bool with_shape = ctx->num_inputs() > 2;
    if (with_shape) {
      absl::StatusOr<TensorShape> p = ShapeToPrepend(ctx->input(2));
      DFX_OP_REQUIRES_OK(ctx, p.status());
      prepend = *std::move(p);
      if (options.element_shape.RankKnown()) {
        std::vector<int64_t> dims(prepend.dim_sizes().begin(),
                                  prepend.dim_sizes().end());
        dims.insert(dims.end(), options.element_shape.dims.begin(),
                    options.element_shape.dims.end());
        options.element_shape = PartialShape::Known(std::move(dims));
      }
    }

    const std::string name = absl::StrCat(fwd.name(), "@", source_);
    const std::string key = absl::StrCat(kGradContainerPrefix, name);
    // Built and filled before it is shared: CopyShapesFrom may fail, and
    // LookupOrCreate's factory may not.
    absl::StatusOr<std::shared_ptr<TensorArray>> fresh =
        TensorArray::Create(name, std::move(options));
    DFX_OP_REQUIRES_OK(ctx, fresh.status());
    DFX_OP_REQUIRES_OK(ctx, (*fresh)->CopyShapesFrom(
                                fwd, with_shape ? &prepend : nullptr));
    absl::StatusOr<std::shared_ptr<TensorArray>> grad =
        ctx->resource_manager()->LookupOrCreate<TensorArray>(
            (*step)->name(), key,
            [&fresh]() -> std::shared_ptr<TensorArray> { return *fresh; });
    DFX_OP_REQUIRES_OK(ctx, grad.status());
    DFX_OP_REQUIRES_OK(ctx, SetStepHandleOutput(ctx, kGradContainerPrefix,
                                                name, TensorArray::kTypeName));
    if (ctx->num_outputs() > 1) ctx->set_output(1, ZeroFlow());
  }

 private:
  static absl::StatusOr<TensorShape> ShapeToPrepend(const Tensor& t) {
    if (t.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape_to_prepend must be a vector, but had shape: ",
          t.shape().DebugString()));
    }
    TensorShape shape;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      const int32_t d = t.data<int32_t>()[i];
      if (d < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "shape_to_prepend[", i, "] = ", d, " must be >= 0"));
      }
      absl::Status s = shape.AddDim(d);
      if (!s.ok()) return absl::InvalidArgumentError(s.message());
    }
    return shape;
  }

  std::string source_;
};

// ---------------------------------------------------------------------------
// Write and read

class TensorArrayWriteOp : public OpKernel {
 public:
  explicit TensorArrayWriteOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    const Tensor& value = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckScalar(index, "TensorArray index"));
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    DFX_OP_REQUIRES_OK(ctx, CheckWriteDtype(**ta, value.dtype()));
    DFX_OP_REQUIRES_OK(
        ctx, (*ta)->Write(ctx->allocator(), index.scalar<int32_t>(), value));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckScalar(index, "TensorArray index"));
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    DFX_OP_REQUIRES_OK(ctx, CheckReadDtype(**ta, dtype_));
    absl::StatusOr<Tensor> value =
        (*ta)->Read(ctx->allocator(), index.scalar<int32_t>());
    DFX_OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, *std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// ---------------------------------------------------------------------------
// Gather and concat: many elements into one tensor

// TensorArrayGather*, and TensorArrayPack: the gather of indices 0..n-1,
// n the array's size (its forward array's split size for a gradient array).
class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* c)
      : OpKernel(c), pack_(c->def().op() == "TensorArrayPack") {
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    element_shape_ = ShapeAttr(c, "element_shape");
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    DFX_OP_REQUIRES_OK(ctx, CheckReadDtype(**ta, dtype_));
    absl::Status merged = (*ta)->MergeElementShape(element_shape_);
    DFX_OP_REQUIRES(ctx, merged.ok(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "TensorArray ", (*ta)->name(),
                        ": element_shape does not match the array's: ",
                        merged.message())));
    std::vector<int64_t> index;
    if (pack_) {
      absl::StatusOr<int64_t> size = (*ta)->ConcatSize();
      DFX_OP_REQUIRES_OK(ctx, size.status());
      index.resize(static_cast<size_t>(*size));
      for (int64_t i = 0; i < *size; ++i) index[i] = i;
    } else {
      const Tensor& indices = ctx->input(1);
      DFX_OP_REQUIRES(
          ctx, indices.dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "Expected indices to be a vector, but received shape: ",
              indices.shape().DebugString())));
      index.assign(indices.data<int32_t>(),
                   indices.data<int32_t>() + indices.NumElements());
    }
    const int64_t n = static_cast<int64_t>(index.size());
    if (n == 0) {
      // TensorFlow takes the shape from this op's attr only.
      DFX_OP_REQUIRES(
          ctx, element_shape_.FullyDefined(),
          absl::UnimplementedError(absl::StrCat(
              "TensorArray has size zero, but element shape ",
              element_shape_.DebugString(),
              " is not fully defined. Currently only static shapes are "
              "supported when packing zero-size TensorArrays.")));
      TensorShape shape({0});
      for (int64_t d : element_shape_.dims) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
      }
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, CheckMovable(*this, dtype_));
    std::vector<Tensor> values;
    DFX_OP_REQUIRES_OK(ctx,
                       (*ta)->ReadMany(ctx->allocator(), index, &values));
    const TensorShape& first = values[0].shape();
    DFX_OP_REQUIRES(
        ctx, IsCompatible(element_shape_, first),
        absl::InvalidArgumentError(absl::StrCat(
            "TensorArray was passed element_shape ",
            element_shape_.DebugString(),
            " which does not match the Tensor at index 0: ",
            first.DebugString())));
    for (int64_t i = 1; i < n; ++i) {
      DFX_OP_REQUIRES(
          ctx, values[i].shape() == first,
          absl::InvalidArgumentError(absl::StrCat(
              "TensorArray has inconsistent shapes.  Index 0 has shape: ",
              first.DebugString(), " but index ", i,
              " has shape: ", values[i].shape().DebugString())));
    }
    TensorShape shape({n});
    for (int64_t d : first.dim_sizes()) DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t row = first.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(values[i], 0, out, i * row, row);
    }
  }

 private:
  const bool pack_;
  DataType dtype_ = DT_INVALID;
  PartialShape element_shape_;
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    element_shape_except0_ = ShapeAttr(c, "element_shape_except0");
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    DFX_OP_REQUIRES_OK(ctx, CheckReadDtype(**ta, dtype_));
    absl::StatusOr<int64_t> size = (*ta)->ConcatSize();
    DFX_OP_REQUIRES_OK(ctx, size.status());
    const int64_t n = *size;
    Tensor* out = nullptr;
    Tensor* lengths = nullptr;
    if (n == 0) {
      DFX_OP_REQUIRES(
          ctx, element_shape_except0_.FullyDefined(),
          absl::UnimplementedError(absl::StrCat(
              "TensorArray has size zero, but element_shape_except0 ",
              element_shape_except0_.DebugString(),
              " is not fully defined. Currently only static shapes are "
              "supported when concatenating zero-size TensorArrays.")));
      TensorShape shape({0});
      for (int64_t d : element_shape_except0_.dims) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
      }
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(1, TensorShape({0}), &lengths));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, CheckMovable(*this, dtype_));
    std::vector<int64_t> index(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) index[i] = i;
    std::vector<Tensor> values;
    DFX_OP_REQUIRES_OK(ctx,
                       (*ta)->ReadMany(ctx->allocator(), index, &values));

    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({n}), &lengths));
    TensorShape except0;
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const TensorShape& s = values[i].shape();
      DFX_OP_REQUIRES(
          ctx, s.dims() >= 1,
          absl::InvalidArgumentError(absl::StrCat(
              "Concat saw a scalar shape at index ", i,
              " but requires at least vectors.  Did you mean to call pack?")));
      TensorShape rest = s;
      rest.RemoveDim(0);
      if (i == 0) {
        except0 = rest;
        DFX_OP_REQUIRES(
            ctx, IsCompatible(element_shape_except0_, except0),
            absl::InvalidArgumentError(absl::StrCat(
                "TensorArray was passed element_shape_except0 ",
                element_shape_except0_.DebugString(),
                " but index 0 has (excepting dimension 0) shape: ",
                except0.DebugString(), " which does not match.")));
      } else {
        DFX_OP_REQUIRES(
            ctx, rest == except0,
            absl::InvalidArgumentError(absl::StrCat(
                "TensorArray has inconsistent shapes.  Index 0 has "
                "(excepting dimension 0) shape: ",
                except0.DebugString(), " but index ", i,
                " has (excepting dimension 0) shape: ", rest.DebugString())));
      }
      lengths->data<int64_t>()[i] = s.dim_size(0);
      total += s.dim_size(0);
    }
    TensorShape shape({total});
    for (int64_t d : except0.dim_sizes()) {
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
    }
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t offset = 0;
    for (const Tensor& v : values) {
      CopyElements(v, 0, out, offset, v.NumElements());
      offset += v.NumElements();
    }
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape element_shape_except0_;
};

// ---------------------------------------------------------------------------
// Scatter and split: one tensor into many elements

// TensorArrayScatter*, and TensorArrayUnpack: the scatter to indices
// 0..n-1 of a value of n rows, n the array's size, which it marks.
class TensorArrayScatterOp : public OpKernel {
 public:
  explicit TensorArrayScatterOp(OpKernelConstruction* c)
      : OpKernel(c), unpack_(c->def().op() == "TensorArrayUnpack") {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    const Tensor& value = ctx->input(unpack_ ? 1 : 2);
    DFX_OP_REQUIRES_OK(ctx, CheckWriteDtype(**ta, value.dtype()));
    DFX_OP_REQUIRES(
        ctx, value.dims() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Input value for unpack must be at least a vector but received "
            "shape: ",
            value.shape().DebugString())));
    absl::StatusOr<int64_t> size = (*ta)->Size();
    DFX_OP_REQUIRES_OK(ctx, size.status());
    std::vector<int64_t> index;
    if (unpack_) {
      index.resize(static_cast<size_t>(value.dim_size(0)));
      for (int64_t i = 0; i < value.dim_size(0); ++i) index[i] = i;
    } else {
      const Tensor& indices = ctx->input(1);
      DFX_OP_REQUIRES(
          ctx, indices.dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "Expected indices to be a vector, but received shape: ",
              indices.shape().DebugString())));
      DFX_OP_REQUIRES(
          ctx, indices.NumElements() == value.dim_size(0),
          absl::InvalidArgumentError(absl::StrCat(
              "Expected len(indices) == values.shape[0], but saw: ",
              indices.NumElements(), " vs. ", value.dim_size(0))));
      index.assign(indices.data<int32_t>(),
                   indices.data<int32_t>() + indices.NumElements());
    }
    const int64_t n = static_cast<int64_t>(index.size());
    const int64_t max_index =
        n == 0 ? -1 : *std::max_element(index.begin(), index.end());
    int64_t array_size = *size;
    if ((*ta)->HasDynamicSize() && array_size < max_index + 1) {
      array_size = max_index + 1;
    }
    if (unpack_) {
      DFX_OP_REQUIRES(
          ctx, n == array_size,
          absl::InvalidArgumentError(absl::StrCat(
              "Input value must have first dimension equal to the array size "
              "(",
              n, " vs. ", array_size, ")")));
    } else {
      DFX_OP_REQUIRES(ctx, max_index < array_size,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Max scatter index must be < array size (",
                          max_index, " vs. ", array_size, ")")));
    }
    TensorShape element = value.shape();
    element.RemoveDim(0);
    std::vector<Tensor> elements;
    elements.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      absl::StatusOr<Tensor> e = value.Slice(i, i + 1).Reshaped(element);
      DFX_OP_REQUIRES_OK(ctx, e.status());
      elements.push_back(*std::move(e));
    }
    if (unpack_) DFX_OP_REQUIRES_OK(ctx, (*ta)->SetMarkedSize(array_size));
    DFX_OP_REQUIRES_OK(ctx,
                       (*ta)->WriteMany(ctx->allocator(), index, elements));
    ctx->set_output(0, ctx->input(num_inputs() - 1));
  }

 private:
  const bool unpack_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  explicit TensorArraySplitOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, lengths.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected lengths to be a vector, received shape: ",
            lengths.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, value.dims() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected value to be at least a vector, but received shape: ",
            value.shape().DebugString())));
    const int64_t n = lengths.NumElements();
    const int64_t* len = lengths.data<int64_t>();
    // Summed with a bound so that huge lengths cannot overflow.
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      DFX_OP_REQUIRES(ctx, len[i] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected lengths to be non-negative, but lengths[",
                          i, "] = ", len[i])));
      total = len[i] > value.dim_size(0) - total ? value.dim_size(0) + 1
                                                 : total + len[i];
    }
    DFX_OP_REQUIRES(
        ctx, total == value.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "Expected sum of lengths to be equal to values.shape[0], but sum "
            "of lengths is ",
            Sum(len, n), " and value's shape is: ",
            value.shape().DebugString())));
    absl::StatusOr<int64_t> size = (*ta)->Size();
    DFX_OP_REQUIRES_OK(ctx, size.status());
    int64_t array_size = *size;
    if ((*ta)->HasDynamicSize() && array_size < n) array_size = n;
    DFX_OP_REQUIRES(
        ctx, array_size == n,
        absl::InvalidArgumentError(absl::StrCat(
            "TensorArray's size is not equal to the size of lengths (",
            array_size, " vs. ", n,
            "), and the TensorArray is not marked as dynamically "
            "resizeable")));
    DFX_OP_REQUIRES_OK(ctx, CheckWriteDtype(**ta, value.dtype()));

    std::vector<Tensor> elements;
    std::vector<int64_t> index;
    elements.reserve(static_cast<size_t>(n));
    index.reserve(static_cast<size_t>(n));
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      elements.push_back(value.Slice(offset, offset + len[i]));
      index.push_back(i);
      offset += len[i];
    }
    DFX_OP_REQUIRES_OK(ctx, (*ta)->SetMarkedSize(array_size));
    DFX_OP_REQUIRES_OK(ctx,
                       (*ta)->WriteMany(ctx->allocator(), index, elements));
    ctx->set_output(0, ctx->input(3));
  }

 private:
  // For the error message only; saturates instead of overflowing.
  static int64_t Sum(const int64_t* v, int64_t n) {
    int64_t s = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (v[i] > std::numeric_limits<int64_t>::max() - s) {
        return std::numeric_limits<int64_t>::max();
      }
      s += v[i];
    }
    return s;
  }
};

// ---------------------------------------------------------------------------
// Size and close

class TensorArraySizeOp : public OpKernel {
 public:
  explicit TensorArraySizeOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    absl::StatusOr<int64_t> size = (*ta)->Size();
    DFX_OP_REQUIRES_OK(ctx, size.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(*size)));
  }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  explicit TensorArrayCloseOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<TensorArray>> ta = LookupArray(ctx);
    DFX_OP_REQUIRES_OK(ctx, ta.status());
    // The array stays in the step's container (closed, empty) until the
    // step ends, so later uses say it was closed rather than not found.
    (*ta)->ClearAndMarkClosed();
  }
};

// The v1 and V2 names, with the dtypes TensorFlow's CPU kernels serve:
// every type for the ops that move whole elements, the plain (and
// quantized) types for the ones that copy into one tensor, as in
// TensorFlow. (The V3 kernels stay registered for every dtype.)
void RegisterLegacyTensorArrayKernels(KernelRegistry* registry) {
  const DataTypeVector plain = {
      DT_STRING, DT_BOOL,   DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT,
      DT_BFLOAT16, DT_HALF, DT_INT32,      DT_INT8,      DT_UINT8,  DT_INT16,
      DT_UINT16, DT_UINT32, DT_INT64,      DT_UINT64};
  DataTypeVector all = plain;  // TensorFlow's TF_CALL_ALL_TYPES
  all.push_back(DT_VARIANT);
  all.push_back(DT_RESOURCE);
  // Gather, pack and concat copy into one tensor: dfx cannot copy variant
  // elements there (CheckMovable), so it serves the quantized types only.
  DataTypeVector copied = plain;
  for (DataType t : {DT_QINT32, DT_QINT8, DT_QUINT8}) copied.push_back(t);
  for (const char* v : {"", "V2"}) {
    const auto name = [v](const char* op) { return absl::StrCat(op, v); };
    RegisterKernel<TensorArrayV3Op>(registry,
                                    KernelDefBuilder(name("TensorArray")));
    RegisterKernel<TensorArrayGradOp>(
        registry, KernelDefBuilder(name("TensorArrayGrad")));
    RegisterKernel<TensorArrayWriteOp>(
        registry,
        KernelDefBuilder(name("TensorArrayWrite")).TypeConstraint("T", all));
    RegisterKernel<TensorArrayReadOp>(
        registry, KernelDefBuilder(name("TensorArrayRead"))
                      .TypeConstraint("dtype", all));
    RegisterKernel<TensorArrayGatherOp>(
        registry, KernelDefBuilder(name("TensorArrayGather"))
                      .TypeConstraint("dtype", copied));
    RegisterKernel<TensorArrayScatterOp>(
        registry,
        KernelDefBuilder(name("TensorArrayScatter")).TypeConstraint("T", all));
    RegisterKernel<TensorArrayConcatOp>(
        registry, KernelDefBuilder(name("TensorArrayConcat"))
                      .TypeConstraint("dtype", copied));
    RegisterKernel<TensorArraySplitOp>(
        registry,
        KernelDefBuilder(name("TensorArraySplit")).TypeConstraint("T", all));
    RegisterKernel<TensorArraySizeOp>(
        registry, KernelDefBuilder(name("TensorArraySize")));
    RegisterKernel<TensorArrayCloseOp>(
        registry, KernelDefBuilder(name("TensorArrayClose")));
  }
  RegisterKernel<TensorArrayGatherOp>(
      registry,
      KernelDefBuilder("TensorArrayPack").TypeConstraint("dtype", copied));
  RegisterKernel<TensorArrayScatterOp>(
      registry,
      KernelDefBuilder("TensorArrayUnpack").TypeConstraint("T", all));
}

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry* registry) {
  RegisterKernel<TensorArrayV3Op>(registry, KernelDefBuilder("TensorArrayV3"));
  RegisterKernel<TensorArrayGradOp>(registry,
                                    KernelDefBuilder("TensorArrayGradV3"));
  RegisterKernel<TensorArrayGradOp>(
      registry, KernelDefBuilder("TensorArrayGradWithShape"));
  RegisterKernel<TensorArrayWriteOp>(registry,
                                     KernelDefBuilder("TensorArrayWriteV3"));
  RegisterKernel<TensorArrayReadOp>(registry,
                                    KernelDefBuilder("TensorArrayReadV3"));
  RegisterKernel<TensorArrayGatherOp>(registry,
                                      KernelDefBuilder("TensorArrayGatherV3"));
  RegisterKernel<TensorArrayScatterOp>(
      registry, KernelDefBuilder("TensorArrayScatterV3"));
  RegisterKernel<TensorArrayConcatOp>(registry,
                                      KernelDefBuilder("TensorArrayConcatV3"));
  RegisterKernel<TensorArraySplitOp>(registry,
                                     KernelDefBuilder("TensorArraySplitV3"));
  RegisterKernel<TensorArraySizeOp>(registry,
                                    KernelDefBuilder("TensorArraySizeV3"));
  RegisterKernel<TensorArrayCloseOp>(registry,
                                     KernelDefBuilder("TensorArrayCloseV3"));
  RegisterLegacyTensorArrayKernels(registry);
}

}  // namespace dfx::data_flow

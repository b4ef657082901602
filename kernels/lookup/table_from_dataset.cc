// InitializeTableFromDataset (tf.data.experimental.DatasetInitializer):
// fills a HashTable once from a dataset of (key, value) scalar pairs,
// TensorFlow 2.21's semantics (core/kernels/data/experimental/
// lookup_ops.cc, InitializableLookupTable::Initialize):
//
// - the dataset's two components must have the table's key and value
//   dtypes and be scalars (InvalidArgument);
// - an empty dataset is OutOfRange "end of iterator", even for a table
//   already initialized;
// - a table already initialized stays as it is (no error), as TensorFlow
//   does for a second run of the initializer;
// - a key given twice with two values is FailedPrecondition, and the table
//   stays uninitialized.
//
// The kernel reads the whole dataset on its own thread, as
// DatasetToSingleElement does.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/kernels.h"
#include "kernels/lookup/lookup_table.h"

namespace dfx {
namespace {

// Element i's component c, a scalar of `dtype`, into `out`'s element i.
void CopyScalar(const Tensor& from, Tensor* out, int64_t i) {
  switch (out->dtype()) {
    case DT_INT32:
      out->data<int32_t>()[i] = from.data<int32_t>()[0];
      break;
    case DT_INT64:
      out->data<int64_t>()[i] = from.data<int64_t>()[0];
      break;
    case DT_FLOAT:
      out->data<float>()[i] = from.data<float>()[0];
      break;
    case DT_DOUBLE:
      out->data<double>()[i] = from.data<double>()[0];
      break;
    case DT_BOOL:
      out->data<bool>()[i] = from.data<bool>()[0];
      break;
    case DT_STRING:
      out->data<std::string>()[i] = from.data<std::string>()[0];
      break;
    default:
      break;  // no HashTable has other dtypes
  }
}

class InitializeTableFromDatasetOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table =
        GetInitializableTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    absl::StatusOr<data::DatasetPtr> dataset = data::DatasetFromInput(ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, dataset.status());
    const DataTypeVector& types = (*dataset)->output_dtypes();
    DFX_OP_REQUIRES(ctx, types.size() == 2,
                    absl::InvalidArgumentError(
                        "Dataset should have two output types only"));
    DFX_OP_REQUIRES(
        ctx, types[0] == t.key_dtype(),
        absl::InvalidArgumentError(absl::StrCat(
            "Key dtype expected: ", DataTypeString(t.key_dtype()),
            " but obtained: ", DataTypeString(types[0]), " from the dataset")));
    DFX_OP_REQUIRES(
        ctx, types[1] == t.value_dtype(),
        absl::InvalidArgumentError(absl::StrCat(
            "Value dtype expected: ", DataTypeString(t.value_dtype()),
            " but obtained: ", DataTypeString(types[1]), " from the dataset")));

    data::IteratorContext it_ctx = data::IteratorContextOf(ctx);
    absl::StatusOr<std::unique_ptr<data::IteratorBase>> it =
        (*dataset)->MakeIterator(&it_ctx);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    std::vector<std::vector<Tensor>> elements;
    for (;;) {
      std::vector<Tensor> element;
      bool end = false;
      DFX_OP_REQUIRES_OK(ctx, (*it)->GetNext(&it_ctx, &element, &end));
      if (end) break;
      // TensorFlow checks the dataset's static shapes (and says "key" for
      // both components).
      for (const Tensor& c : element) {
        DFX_OP_REQUIRES(ctx, c.dims() == 0,
                        absl::InvalidArgumentError(
                            absl::StrCat("Expected scalar for key. Obtained: ",
                                         c.shape().DebugString())));
      }
      elements.push_back(std::move(element));
    }
    DFX_OP_REQUIRES(ctx, !elements.empty(),
                    absl::OutOfRangeError("end of iterator"));
    if (t.is_initialized()) return;
    const int64_t n = static_cast<int64_t>(elements.size());
    Tensor keys(t.key_dtype(), TensorShape({n}));
    Tensor values(t.value_dtype(), TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) {
      CopyScalar(elements[i][0], &keys, i);
      CopyScalar(elements[i][1], &values, i);
    }
    absl::Status s = t.Initialize(keys, values);
    // Another run initialized it meanwhile.
    if (absl::IsFailedPrecondition(s) && t.is_initialized()) return;
    DFX_OP_REQUIRES_OK(ctx, s);
  }
};

}  // namespace

void RegisterTableFromDatasetKernels(KernelRegistry* registry) {
  RegisterKernel<InitializeTableFromDatasetOp>(
      registry, KernelDefBuilder("InitializeTableFromDataset"));
}

}  // namespace dfx

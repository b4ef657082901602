// ParseExample (tf.compat.v1's batch parser) and ParseSingleExample:
// tf.train.Example protos (DT_STRING scalars) into dense features
// (FixedLenFeature: fixed shape, default used when the key is absent) and
// sparse features (VarLenFeature: SparseTensor of each example's values).
// Dense features of variable length (FixedLenSequenceFeature: a dense shape
// whose first dim is unknown) become [batch, longest, ...] padded with their
// default. Checks and messages follow TensorFlow's example parsing.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/types.h"
#include "kernels/sparse/example_util.h"
#include "kernels/sparse/sparse_util.h"
#include "proto/example.pb.h"

namespace dfx::sparse_internal {

int ListSize(const Feature& f, DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return f.float_list().value_size();
    case DT_INT64: return f.int64_list().value_size();
    default: return f.bytes_list().value_size();
  }
}

DataType FeatureType(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList: return DT_FLOAT;
    case Feature::kInt64List: return DT_INT64;
    case Feature::kBytesList: return DT_STRING;
    default: return DT_INVALID;
  }
}

void CopyValues(const Feature& f, DataType dtype, Tensor* out, int64_t at) {
  switch (dtype) {
    case DT_FLOAT:
      std::copy(f.float_list().value().begin(), f.float_list().value().end(),
                out->data<float>() + at);
      break;
    case DT_INT64:
      std::copy(f.int64_list().value().begin(), f.int64_list().value().end(),
                out->data<int64_t>() + at);
      break;
    default:
      std::copy(f.bytes_list().value().begin(), f.bytes_list().value().end(),
                out->data<std::string>() + at);
  }
}

namespace {

// Copies n elements of a float, int64 or string tensor.
void CopyFrom(const Tensor& from, int64_t from_at, Tensor* to, int64_t to_at,
              int64_t n) {
  switch (from.dtype()) {
    case DT_FLOAT:
      std::copy_n(from.data<float>() + from_at, n, to->data<float>() + to_at);
      break;
    case DT_INT64:
      std::copy_n(from.data<int64_t>() + from_at, n,
                  to->data<int64_t>() + to_at);
      break;
    default:
      std::copy_n(from.data<std::string>() + from_at, n,
                  to->data<std::string>() + to_at);
  }
}

// What both kernels parse, and how they name errors.
struct ParseConfig {
  std::vector<std::string> sparse_keys;
  DataTypeVector sparse_types;
  std::vector<std::string> dense_keys;
  DataTypeVector dense_types;
  // Per dense key: its shape, or for a variable-length feature
  // (FixedLenSequenceFeature: first dim unknown) the shape of one row.
  std::vector<TensorShape> dense_shapes;
  std::vector<bool> variable;
};

class ParseExampleBase : public OpKernel {
 public:
  // single: ParseSingleExample's attrs and error wording, else ParseExample's.
  ParseExampleBase(OpKernelConstruction* ctx, bool single)
      : OpKernel(ctx), single_(single) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("sparse_types", &config_.sparse_types));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tdense", &config_.dense_types));
    int64_t num_sparse = 0;
    int64_t num_dense = static_cast<int64_t>(config_.dense_types.size());
    if (single) {
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_sparse", &num_sparse));
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->GetAttr("sparse_keys", &config_.sparse_keys));
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_keys", &config_.dense_keys));
      DFX_OP_REQUIRES(
          ctx,
          static_cast<int64_t>(config_.sparse_keys.size()) == num_sparse,
          absl::InvalidArgumentError(absl::StrCat(
              "len(sparse_keys) != num_sparse: ", config_.sparse_keys.size(),
              " vs. ", num_sparse)));
      DFX_OP_REQUIRES(
          ctx,
          static_cast<int64_t>(config_.dense_keys.size()) == num_dense,
          absl::InvalidArgumentError(absl::StrCat(
              "len(dense_keys) != len(Tdense): ", config_.dense_keys.size(),
              " vs. ", num_dense)));
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Nsparse", &num_sparse));
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Ndense", &num_dense));
    }
    DFX_OP_REQUIRES(
        ctx, static_cast<int64_t>(config_.sparse_types.size()) == num_sparse,
        absl::InvalidArgumentError(absl::StrCat(
            "len(sparse_types) != ", single ? "num_sparse" : "Nsparse", ": ",
            config_.sparse_types.size(), " vs. ", num_sparse)));
    DFX_OP_REQUIRES(
        ctx, static_cast<int64_t>(config_.dense_types.size()) == num_dense,
        absl::InvalidArgumentError(absl::StrCat(
            "len(Tdense) != Ndense: ", config_.dense_types.size(), " vs. ",
            num_dense)));
    const AttrValue* shapes = FindNodeAttr(ctx->def(), "dense_shapes");
    DFX_OP_REQUIRES(
        ctx,
        shapes != nullptr && shapes->list().shape_size() == num_dense,
        absl::InvalidArgumentError(absl::StrCat(
            "len(dense_shapes) != len(dense_keys): ",
            shapes == nullptr ? 0 : shapes->list().shape_size(), " vs. ",
            num_dense)));
    for (const TensorShapeProto& p : shapes->list().shape()) {
      TensorShape s;
      DFX_OP_REQUIRES(ctx, !p.unknown_rank(),
                      absl::InvalidArgumentError(
                          "dense_shapes must have a known rank"));
      const bool variable = p.dim_size() > 0 && p.dim(0).size() < 0;
      for (int d = variable ? 1 : 0; d < p.dim_size(); ++d) {
        DFX_OP_REQUIRES(
            ctx, p.dim(d).size() >= 0,
            absl::InvalidArgumentError(
                "only the first dim of a dense shape may be unknown"));
        DFX_OP_REQUIRES_OK(ctx, s.AddDim(p.dim(d).size()));
      }
      config_.dense_shapes.push_back(s);
      config_.variable.push_back(variable);
    }
  }

 protected:
  // Parses `serialized` (one string per example, features named by
  // sparse_keys and dense_keys; `names` empty or one per
  // example) with dense defaults `defaults`; batched: outputs carry a
  // leading batch dim (ParseExample) or not (ParseSingleExample).
  void Parse(OpKernelContext* ctx, const std::vector<std::string>& sparse_keys,
             const std::vector<std::string>& dense_keys,
             const std::vector<const std::string*>& serialized,
             const std::vector<const std::string*>& names,
             const std::vector<const Tensor*>& defaults) {
    const int ns = static_cast<int>(config_.sparse_types.size());
    const int nd = static_cast<int>(config_.dense_types.size());
    const bool batched = !single_;
    const int64_t batch = static_cast<int64_t>(serialized.size());
    for (int k = 0; k < nd; ++k) {
      const Tensor& def = *defaults[k];
      if (config_.variable[k]) {
        DFX_OP_REQUIRES(
            ctx, def.NumElements() == 1,
            absl::InvalidArgumentError(absl::StrCat(
                "dense_shape[", k, "] is a variable length shape: ",
                VariableShapeString(k),
                ", therefore def_value[", k,
                "] must contain a single element (the padding element).  But "
                "its shape is: ",
                def.shape().DebugString())));
        continue;
      }
      DFX_OP_REQUIRES(
          ctx, def.NumElements() == 0 || def.shape() == config_.dense_shapes[k],
          absl::InvalidArgumentError(absl::StrCat(
              "def_value[", k, "].shape() == ", def.shape().DebugString(),
              " is not compatible with dense_shapes_[", k, "] == ",
              config_.dense_shapes[k].DebugString())));
    }
    std::vector<Tensor*> dense(nd);
    // Each variable-length feature's values per example (empty if absent).
    std::vector<std::vector<Feature>> rows_of(nd);
    for (int k = 0; k < nd; ++k) {
      if (config_.variable[k]) {
        rows_of[k].resize(static_cast<size_t>(batch));
        continue;  // allocated once the longest example is known
      }
      TensorShape shape;
      if (batched) DFX_OP_REQUIRES_OK(ctx, shape.AddDim(batch));
      for (int64_t d : config_.dense_shapes[k].dim_sizes()) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
      }
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(3 * ns + k, shape, &dense[k]));
    }
    // Each sparse feature's values per example, as (example, feature).
    std::vector<std::vector<Feature>> sparse(
        ns, std::vector<Feature>(static_cast<size_t>(batch)));
    Example example;
    for (int64_t b = 0; b < batch; ++b) {
      const std::string& bytes = *serialized[b];
      DFX_OP_REQUIRES(ctx, example.ParseFromString(bytes),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Could not parse example input, value: '", bytes,
                          "'")));
      const std::string name =
          names.empty() || names[b]->empty() ? "<unknown>" : *names[b];
      // Where an error happened: "Name: n, Key: k, Index: b." for batches,
      // "Key: k." for a single example.
      auto where = [&](const std::string& key) {
        return single_ ? absl::StrCat("Key: ", key, ".")
                       : absl::StrCat("Name: ", name, ", Key: ", key,
                                      ", Index: ", b, ".");
      };
      const auto& features = example.features().feature();
      for (int k = 0; k < nd; ++k) {
        const std::string& key = dense_keys[k];
        const DataType dtype = config_.dense_types[k];
        const int64_t per = config_.dense_shapes[k].num_elements();
        auto it = features.find(key);
        const DataType got =
            it == features.end() ? DT_INVALID : FeatureType(it->second);
        if (config_.variable[k]) {
          if (got == DT_INVALID) continue;  // no rows
          DFX_OP_REQUIRES(ctx, got == dtype,
                          absl::InvalidArgumentError(absl::StrCat(
                              where(key),
                              "  Data types don't match. Data type: ",
                              DataTypeString(got), " but expected type: ",
                              DataTypeString(dtype))));
          const int size = ListSize(it->second, dtype);
          DFX_OP_REQUIRES(
              ctx, per == 0 ? size == 0 : size % per == 0,
              absl::InvalidArgumentError(absl::StrCat(
                  where(key), "  Number of ", DataTypeString(dtype),
                  " values is not a multiple of stride length. Saw ", size,
                  " values but output shape is: ", VariableShapeString(k))));
          rows_of[k][b] = it->second;
          continue;
        }
        if (got == DT_INVALID) {
          const Tensor& def = *defaults[k];
          DFX_OP_REQUIRES(
              ctx, def.NumElements() > 0,
              absl::InvalidArgumentError(absl::StrCat(
                  single_ ? "" : absl::StrCat("Name: ", name, ", "),
                  "Feature: ", key, " (data type: ", DataTypeString(dtype),
                  ") is required but could not be found.")));
          CopyFrom(def, 0, dense[k], b * per, per);
          continue;
        }
        DFX_OP_REQUIRES(ctx, got == dtype,
                        absl::InvalidArgumentError(absl::StrCat(
                            where(key), "  Data types don't match. Data type: ",
                            DataTypeString(got),
                            " but expected type: ", DataTypeString(dtype))));
        const int size = ListSize(it->second, dtype);
        DFX_OP_REQUIRES(
            ctx, size == per,
            absl::InvalidArgumentError(absl::StrCat(
                where(key), "  Number of ", DataTypeString(dtype),
                " values != expected.  Values size: ", size,
                " but output shape: ",
                config_.dense_shapes[k].DebugString())));
        CopyValues(it->second, dtype, dense[k], b * per);
      }
      for (int k = 0; k < ns; ++k) {
        const std::string& key = sparse_keys[k];
        auto it = features.find(key);
        if (it == features.end()) continue;
        const DataType got = FeatureType(it->second);
        if (got == DT_INVALID) continue;  // an empty Feature: no values
        DFX_OP_REQUIRES(
            ctx, got == config_.sparse_types[k],
            absl::InvalidArgumentError(absl::StrCat(
                where(key), "  Data types don't match. Expected type: ",
                DataTypeString(config_.sparse_types[k]),
                ", Actual type: ", DataTypeString(got))));
        sparse[k][b] = it->second;
      }
    }
    // Variable-length features: [batch, longest, row shape...] (no batch
    // dim for a single example), padded with the default.
    for (int k = 0; k < nd; ++k) {
      if (!config_.variable[k]) continue;
      const DataType dtype = config_.dense_types[k];
      const int64_t per = config_.dense_shapes[k].num_elements();
      int64_t longest = 0;
      for (const Feature& f : rows_of[k]) {
        if (per > 0) longest = std::max<int64_t>(longest, ListSize(f, dtype) / per);
      }
      TensorShape shape;
      if (batched) DFX_OP_REQUIRES_OK(ctx, shape.AddDim(batch));
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(longest));
      for (int64_t d : config_.dense_shapes[k].dim_sizes()) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
      }
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(3 * ns + k, shape, &dense[k]));
      const int64_t stride = longest * per;  // elements per example
      for (int64_t i = 0; i < dense[k]->NumElements(); ++i) {
        CopyFrom(*defaults[k], 0, dense[k], i, 1);
      }
      for (int64_t b = 0; b < batch; ++b) {
        if (ListSize(rows_of[k][b], dtype) > 0) {
          CopyValues(rows_of[k][b], dtype, dense[k], b * stride);
        }
      }
    }
    for (int k = 0; k < ns; ++k) {
      const DataType dtype = config_.sparse_types[k];
      int64_t total = 0, longest = 0;
      for (const Feature& f : sparse[k]) {
        const int64_t size = ListSize(f, dtype);
        total += size;
        longest = std::max(longest, size);
      }
      const int64_t rank = batched ? 2 : 1;
      Tensor* indices = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, TensorShape({total, rank}), &indices));
      Tensor* values = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(ns + k, TensorShape({total}), &values));
      Tensor* shape = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(2 * ns + k, TensorShape({rank}), &shape));
      int64_t at = 0;
      int64_t* idx = indices->data<int64_t>();
      for (int64_t b = 0; b < batch; ++b) {
        const Feature& f = sparse[k][b];
        const int64_t size = ListSize(f, dtype);
        if (size > 0) CopyValues(f, dtype, values, at);
        for (int64_t j = 0; j < size; ++j, ++at) {
          if (batched) {
            idx[2 * at] = b;
            idx[2 * at + 1] = j;
          } else {
            idx[at] = j;
          }
        }
      }
      int64_t* s = shape->data<int64_t>();
      if (batched) {
        s[0] = batch;
        s[1] = longest;
      } else {
        s[0] = longest;
      }
    }
  }

  const ParseConfig& config() const { return config_; }

  // "[?,2]": a variable-length dense shape as TensorFlow prints it.
  std::string VariableShapeString(int k) const {
    std::string s = "[?";
    for (int64_t d : config_.dense_shapes[k].dim_sizes()) {
      absl::StrAppend(&s, ",", d);
    }
    return s + "]";
  }

 private:
  const bool single_;
  ParseConfig config_;
};

class ParseExampleOp : public ParseExampleBase {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx)
      : ParseExampleBase(ctx, /*single=*/false) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& names = ctx->input(1);
    const int ns = static_cast<int>(config().sparse_types.size());
    const int nd = static_cast<int>(config().dense_types.size());
    DFX_OP_REQUIRES(ctx, serialized.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected serialized to be a vector, got shape: ",
                        serialized.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, names.NumElements() == 0 || names.shape() == serialized.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Expected names have the same shape as serialized: name.shape=",
            names.shape().DebugString(),
            ", serialized.shape=", serialized.shape().DebugString())));
    // The keys come as scalar inputs.
    std::vector<std::string> sparse_keys(ns), dense_keys(nd);
    for (int k = 0; k < ns + nd; ++k) {
      const Tensor& key = ctx->input(2 + k);
      DFX_OP_REQUIRES(ctx, key.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected ", k < ns ? "sparse_keys[" : "dense_keys[",
                          k < ns ? k : k - ns, "] to be a scalar, got shape: ",
                          key.shape().DebugString())));
      (k < ns ? sparse_keys[k] : dense_keys[k - ns]) =
          key.data<std::string>()[0];
    }
    std::vector<const std::string*> ser, nm;
    for (int64_t i = 0; i < serialized.NumElements(); ++i) {
      ser.push_back(serialized.data<std::string>() + i);
      if (names.NumElements() > 0) nm.push_back(names.data<std::string>() + i);
    }
    std::vector<const Tensor*> defaults;
    for (int k = 0; k < nd; ++k) defaults.push_back(&ctx->input(2 + ns + nd + k));
    Parse(ctx, sparse_keys, dense_keys, ser, nm, defaults);
  }

};

class ParseSingleExampleOp : public ParseExampleBase {
 public:
  explicit ParseSingleExampleOp(OpKernelConstruction* ctx)
      : ParseExampleBase(ctx, /*single=*/true) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    DFX_OP_REQUIRES(ctx, serialized.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected serialized to be a scalar, got shape: ",
                        serialized.shape().DebugString())));
    std::vector<const Tensor*> defaults;
    for (size_t k = 0; k < config().dense_types.size(); ++k) {
      defaults.push_back(&ctx->input(1 + static_cast<int>(k)));
    }
    Parse(ctx, config().sparse_keys, config().dense_keys,
          {serialized.data<std::string>()}, {}, defaults);
  }
};

}  // namespace

void RegisterParseExampleKernels(KernelRegistry* registry) {
  RegisterKernel<ParseExampleOp>(registry, KernelDefBuilder("ParseExample"));
  RegisterKernel<ParseSingleExampleOp>(registry,
                                       KernelDefBuilder("ParseSingleExample"));
}

}  // namespace dfx::sparse_internal

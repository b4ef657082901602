// ParseSingleSequenceExample, ParseSequenceExample and
// ParseSequenceExampleV2: tf.train.SequenceExample protos (what
// tf.io.parse_single_sequence_example and tf.io.parse_sequence_example
// emit) into context features (dense with defaults, sparse, ragged in V2)
// and feature lists (dense: [steps, shape...] padded with zeros across a
// batch, with each example's length; sparse: [steps, longest]; ragged in
// V2: values with outer and inner row splits). The Feature reading is
// tf.Example's (example_util.h); checks and messages follow TensorFlow's:
// ParseSingleSequenceExample's own wording, the batch ops' fast parser's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/types.h"
#include "kernels/sparse/example_util.h"
#include "kernels/sparse/sparse_util.h"
#include "proto/example.pb.h"

namespace dfx::sparse_internal {
namespace {

enum class Version { kSingle, kV1, kV2 };

// The features of one kind: keys, value dtypes, (dense) shapes, (ragged)
// split dtypes.
struct Group {
  std::vector<std::string> keys;
  DataTypeVector types;
  std::vector<TensorShape> shapes;
  DataTypeVector splits;
  int size() const { return static_cast<int>(types.size()); }
};

absl::Status ReadShapes(OpKernelConstruction* ctx, const std::string& attr,
                        std::vector<TensorShape>* out) {
  const AttrValue* shapes = FindNodeAttr(ctx->def(), attr);
  if (shapes == nullptr) return absl::OkStatus();
  for (const TensorShapeProto& p : shapes->list().shape()) {
    bool known = !p.unknown_rank();
    for (const auto& d : p.dim()) known = known && d.size() >= 0;
    TensorShape s;
    if (!known) {
      std::string text = "[";
      for (int i = 0; i < p.dim_size(); ++i) {
        absl::StrAppend(
            &text, i > 0 ? "," : "",
            p.dim(i).size() < 0 ? "?" : absl::StrCat(p.dim(i).size()));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("Shape ", p.unknown_rank() ? "<unknown>" : text + "]",
                       " is not fully defined"));
    }
    for (const auto& d : p.dim()) DFX_RETURN_IF_ERROR(s.AddDim(d.size()));
    out->push_back(s);
  }
  return absl::OkStatus();
}

// "[3]": a shape as TensorFlow's errors print it.
std::string ShapeString(const TensorShape& s) { return s.DebugString(); }

// Writes `n` zeros (empty strings) of dtype to out[at, at + n).
void Zero(Tensor* out, int64_t at, int64_t n) {
  switch (out->dtype()) {
    case DT_FLOAT:
      std::fill_n(out->data<float>() + at, n, 0.0f);
      break;
    case DT_INT64:
      std::fill_n(out->data<int64_t>() + at, n, int64_t{0});
      break;
    default:
      std::fill_n(out->data<std::string>() + at, n, std::string());
  }
}

// Copies n elements of a float, int64 or string tensor.
void CopyElements(const Tensor& from, Tensor* to, int64_t to_at, int64_t n) {
  switch (from.dtype()) {
    case DT_FLOAT:
      std::copy_n(from.data<float>(), n, to->data<float>() + to_at);
      break;
    case DT_INT64:
      std::copy_n(from.data<int64_t>(), n, to->data<int64_t>() + to_at);
      break;
    default:
      std::copy_n(from.data<std::string>(), n, to->data<std::string>() + to_at);
  }
}

// Sets split `i` of an int32 or int64 row-splits tensor.
void SetSplit(Tensor* splits, int64_t i, int64_t value) {
  if (splits->dtype() == DT_INT32) {
    splits->data<int32_t>()[i] = static_cast<int32_t>(value);
  } else {
    splits->data<int64_t>()[i] = value;
  }
}

class ParseSequenceExampleOp : public OpKernel {
 public:
  ParseSequenceExampleOp(OpKernelConstruction* ctx, Version version)
      : OpKernel(ctx), version_(version) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("context_sparse_types", &cs_.types));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Tcontext_dense", &cd_.types));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("feature_list_sparse_types", &fs_.types));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("feature_list_dense_types", &fd_.types));
    DFX_OP_REQUIRES_OK(ctx,
                       ReadShapes(ctx, "context_dense_shapes", &cd_.shapes));
    DFX_OP_REQUIRES_OK(
        ctx, ReadShapes(ctx, "feature_list_dense_shapes", &fd_.shapes));
    int64_t ncs = 0, ncd = 0, nfs = 0, nfd = 0;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Ncontext_sparse", &ncs));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Nfeature_list_sparse", &nfs));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Nfeature_list_dense", &nfd));
    if (version_ == Version::kV2) {
      ncd = cd_.size();
      DFX_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("context_ragged_value_types", &cr_.types));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("context_ragged_split_types", &cr_.splits));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("feature_list_ragged_value_types", &fr_.types));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("feature_list_ragged_split_types", &fr_.splits));
      DFX_OP_REQUIRES(
          ctx, cr_.types.size() == cr_.splits.size(),
          absl::InvalidArgumentError("len(context_ragged_value_types) != "
                                     "len(context_ragged_split_types)"));
      DFX_OP_REQUIRES(
          ctx, fr_.types.size() == fr_.splits.size(),
          absl::InvalidArgumentError("len(feature_list_ragged_value_types) != "
                                     "len(feature_list_ragged_split_types)"));
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("Ncontext_dense", &ncd));
    }
    if (version_ == Version::kV1) {
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("context_sparse_keys", &cs_.keys));
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("context_dense_keys", &cd_.keys));
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->GetAttr("feature_list_sparse_keys", &fs_.keys));
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->GetAttr("feature_list_dense_keys", &fd_.keys));
      std::vector<std::string> missing;
      DFX_OP_REQUIRES_OK(
          ctx,
          ctx->GetAttr("feature_list_dense_missing_assumed_empty", &missing));
      missing_.insert(missing_.end(), missing.begin(), missing.end());
      DFX_OP_REQUIRES(
          ctx,
          static_cast<int64_t>(cs_.keys.size()) == ncs &&
              static_cast<int64_t>(cd_.keys.size()) == ncd &&
              static_cast<int64_t>(fs_.keys.size()) == nfs &&
              static_cast<int64_t>(fd_.keys.size()) == nfd,
          absl::InvalidArgumentError(
              "The number of keys does not match the number of features"));
    }
    DFX_OP_REQUIRES(
        ctx,
        cs_.size() == ncs && cd_.size() == ncd && fs_.size() == nfs &&
            fd_.size() == nfd,
        absl::InvalidArgumentError(absl::StrCat(
            "len(context_sparse_types) == ", cs_.size(),
            ", len(Tcontext_dense) == ", cd_.size(),
            ", len(feature_list_sparse_types) == ", fs_.size(),
            ", len(feature_list_dense_types) == ", fd_.size(),
            " do not match Ncontext_sparse == ", ncs,
            ", Ncontext_dense == ", ncd, ", Nfeature_list_sparse == ", nfs,
            ", Nfeature_list_dense == ", nfd)));
    DFX_OP_REQUIRES(
        ctx,
        static_cast<int64_t>(cd_.shapes.size()) == ncd &&
            static_cast<int64_t>(fd_.shapes.size()) == nfd,
        absl::InvalidArgumentError(absl::StrCat(
            "len(context_dense_shapes) == ", cd_.shapes.size(),
            " and len(feature_list_dense_shapes) == ", fd_.shapes.size(),
            " must match Ncontext_dense == ", ncd,
            " and Nfeature_list_dense == ", nfd)));
  }

  void Compute(OpKernelContext* ctx) override {
    switch (version_) {
      case Version::kSingle:
        return ComputeSingle(ctx);
      case Version::kV1:
        return ComputeBatch(ctx, 2, cs_, cd_, fs_, fd_);
      case Version::kV2:
        return ComputeV2(ctx);
    }
  }

 private:
  // ParseSingleSequenceExample: keys as scalar inputs, the missing-allowed
  // feature lists as a string vector.
  void ComputeSingle(OpKernelContext* ctx) {
    const int ncs = cs_.size(), ncd = cd_.size(), nfs = fs_.size(),
              nfd = fd_.size();
    Group cs = cs_, cd = cd_, fs = fs_, fd = fd_;
    const Tensor& missing = ctx->input(1);
    int at = 2;
    auto keys = [&](Group* g, int n, const char* what) {
      g->keys.clear();
      for (int k = 0; k < n; ++k, ++at) {
        const Tensor& key = ctx->input(at);
        if (key.dims() != 0) {
          ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              "Expected ", what, "[", k,
              "] to be a scalar, got shape: ", key.shape().DebugString())));
          return false;
        }
        g->keys.push_back(key.data<std::string>()[0]);
      }
      return true;
    };
    if (!keys(&cs, ncs, "context_sparse_keys") ||
        !keys(&cd, ncd, "context_dense_keys") ||
        !keys(&fs, nfs, "feature_list_sparse_keys") ||
        !keys(&fd, nfd, "feature_list_dense_keys")) {
      return;
    }
    DFX_OP_REQUIRES(
        ctx, missing.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected feature_list_dense_missing_assumed_empty to be a vector, "
            "got shape: ",
            missing.shape().DebugString())));
    std::vector<bool> missing_ok(nfd, false);
    for (int k = 0; k < nfd; ++k) {
      for (int64_t i = 0; i < missing.NumElements(); ++i) {
        if (missing.data<std::string>()[i] == fd.keys[k]) missing_ok[k] = true;
      }
    }
    const Tensor& debug_name = ctx->input(at + ncd);
    DFX_OP_REQUIRES(ctx,
                    debug_name.NumElements() == 0 || debug_name.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected debug_name to be a scalar, got shape: ",
                        debug_name.shape().DebugString())));
    const Tensor& serialized = ctx->input(0);
    DFX_OP_REQUIRES(ctx, serialized.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected serialized to be a scalar, got shape: ",
                        serialized.shape().DebugString())));
    std::vector<const Tensor*> defaults;
    for (int k = 0; k < ncd; ++k) defaults.push_back(&ctx->input(at + k));
    std::vector<std::string> names;
    if (debug_name.NumElements() > 0) {
      names.push_back(debug_name.data<std::string>()[0]);
    }
    Parse(ctx, {serialized.data<std::string>()}, names, /*batched=*/false, cs,
          cd, Group(), fs, fd, Group(), missing_ok, defaults);
  }

  // ParseSequenceExample: keys from attrs; `first_default` is the input
  // index of context_dense_defaults.
  void ComputeBatch(OpKernelContext* ctx, int first_default, const Group& cs,
                    const Group& cd, const Group& fs, const Group& fd) {
    std::vector<bool> missing_ok(fd.size(), false);
    for (int k = 0; k < fd.size(); ++k) {
      missing_ok[k] = std::find(missing_.begin(), missing_.end(), fd.keys[k]) !=
                      missing_.end();
    }
    Batch(ctx, first_default, cs, cd, Group(), fs, fd, Group(), missing_ok);
  }

  void Batch(OpKernelContext* ctx, int first_default, const Group& cs,
             const Group& cd, const Group& cr, const Group& fs, const Group& fd,
             const Group& fr, const std::vector<bool>& missing_ok) {
    const Tensor& serialized = ctx->input(0);
    const Tensor& debug_name = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, serialized.dims() <= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected serialized to be a scalar or vector, got shape: ",
            serialized.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx,
        debug_name.NumElements() == 0 ||
            debug_name.shape() == serialized.shape(),
        absl::InvalidArgumentError(
            "example_names must be empty or have the correct number of "
            "elements"));
    std::vector<const std::string*> ser;
    std::vector<std::string> names;
    for (int64_t i = 0; i < serialized.NumElements(); ++i) {
      ser.push_back(serialized.data<std::string>() + i);
      if (debug_name.NumElements() > 0) {
        names.push_back(debug_name.data<std::string>()[i]);
      }
    }
    std::vector<const Tensor*> defaults;
    for (int k = 0; k < cd.size(); ++k) {
      defaults.push_back(&ctx->input(first_default + k));
    }
    Parse(ctx, ser, names, serialized.dims() == 1, cs, cd, cr, fs, fd, fr,
          missing_ok, defaults);
  }

  // ParseSequenceExampleV2: keys as string vectors, the missing-allowed
  // feature lists as a bool vector.
  void ComputeV2(OpKernelContext* ctx) {
    Group cs = cs_, cd = cd_, cr = cr_, fs = fs_, fd = fd_, fr = fr_;
    struct KeyInput {
      Group* group;
      const char* name;
      const char* count;
    };
    const KeyInput inputs[] = {
        {&cs, "context_sparse_keys", "Ncontext_sparse"},
        {&cd, "context_dense_keys", "Ncontext_dense"},
        {&cr, "context_ragged_keys", "Ncontext_ragged"},
        {&fs, "feature_list_sparse_keys", "Nfeature_list_sparse"},
        {&fd, "feature_list_dense_keys", "Nfeature_list_dense"},
        {&fr, "feature_list_ragged_keys", "Nfeature_list_ragged"}};
    for (int i = 0; i < 6; ++i) {
      const Tensor& t = ctx->input(2 + i);
      Group* g = inputs[i].group;
      DFX_OP_REQUIRES(
          ctx, t.dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "Expected ", inputs[i].name,
              " to be a vector, got shape: ", t.shape().DebugString())));
      DFX_OP_REQUIRES(ctx, t.NumElements() == g->size(),
                      absl::InvalidArgumentError(
                          absl::StrCat("Expected len(", inputs[i].name,
                                       ") to match ", inputs[i].count)));
      g->keys.assign(t.data<std::string>(),
                     t.data<std::string>() + t.NumElements());
    }
    const Tensor& missing = ctx->input(8);
    DFX_OP_REQUIRES(
        ctx, missing.dims() == 1 && missing.NumElements() == fd.size(),
        absl::InvalidArgumentError(
            "Expected len(feature_list_dense_missing_assumed_empty to match "
            "Nfeature_list_dense"));
    std::vector<bool> missing_ok(missing.data<bool>(),
                                 missing.data<bool>() + missing.NumElements());
    Batch(ctx, 9, cs, cd, cr, fs, fd, fr, missing_ok);
  }

  // Parses `serialized` (batched: outputs carry a leading batch dim).
  void Parse(OpKernelContext* ctx,
             const std::vector<const std::string*>& serialized,
             const std::vector<std::string>& names, bool batched,
             const Group& cs, const Group& cd, const Group& cr, const Group& fs,
             const Group& fd, const Group& fr,
             const std::vector<bool>& missing_ok,
             const std::vector<const Tensor*>& defaults) {
    const bool single = version_ == Version::kSingle;
    const int ncs = cs.size(), ncd = cd.size(), ncr = cr.size(),
              nfs = fs.size(), nfd = fd.size(), nfr = fr.size();
    const int64_t batch = static_cast<int64_t>(serialized.size());
    const bool v2 = version_ == Version::kV2;
    // Output indices.
    const int o_cd = 3 * ncs, o_cr = o_cd + ncd, o_fs = o_cr + 2 * ncr,
              o_fd = o_fs + 3 * nfs, o_fl = o_fd + nfd,
              o_fr = o_fl + (single ? 0 : nfd);
    for (int k = 0; k < ncd; ++k) {
      const Tensor& def = *defaults[k];
      if (def.NumElements() == 0) continue;
      DFX_OP_REQUIRES(
          ctx, def.shape() == cd.shapes[k],
          absl::InvalidArgumentError(absl::StrCat(
              "def_value[", k, "].shape() == ", def.shape().DebugString(),
              single ? " != context_dense_shapes_["
                     : " is not compatible with "
                       "dense_shapes_[",
              k, "] == ", cd.shapes[k].DebugString())));
    }
    if (!single) {
      // The batch parser takes each key once per kind of feature.
      DFX_OP_REQUIRES_OK(ctx, CheckDistinct("Context feature ", cd, cs, cr));
      DFX_OP_REQUIRES_OK(ctx, CheckDistinct("Sequence feature ", fd, fs, fr));
    }
    std::vector<SequenceExample> examples(static_cast<size_t>(batch));
    auto name_of = [&](int64_t b) -> std::string {
      if (names.empty()) return "<unknown>";
      return single || !names[b].empty() ? names[b] : "<unknown>";
    };
    for (int64_t b = 0; b < batch; ++b) {
      const std::string& bytes = *serialized[b];
      DFX_OP_REQUIRES(
          ctx, examples[b].ParseFromString(bytes),
          absl::InvalidArgumentError(
              single ? absl::StrCat("Could not parse example input, value: '",
                                    bytes, "'")
                     : absl::StrCat("Invalid protocol message input, example "
                                    "id: ",
                                    name_of(b))));
    }
    const TensorShape batch_dims =
        batched ? TensorShape({batch}) : TensorShape();
    // Context dense.
    for (int k = 0; k < ncd; ++k) {
      const DataType dtype = cd.types[k];
      const int64_t per = cd.shapes[k].num_elements();
      TensorShape shape = batch_dims;
      for (int64_t d : cd.shapes[k].dim_sizes()) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
      }
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(o_cd + k, shape, &out));
      for (int64_t b = 0; b < batch; ++b) {
        const auto& dict = examples[b].context().feature();
        auto it = dict.find(cd.keys[k]);
        if (it == dict.end()) {
          DFX_OP_REQUIRES(
              ctx, defaults[k]->NumElements() > 0,
              absl::InvalidArgumentError(
                  single ? absl::StrCat("Name: ", name_of(b),
                                        ", Context feature '", cd.keys[k],
                                        "' is required but could not be "
                                        "found.")
                         : absl::StrCat("Feature: ", cd.keys[k],
                                        " (data type: ", DataTypeString(dtype),
                                        ") is required but could not be "
                                        "found.")));
          CopyElements(*defaults[k], out, b * per, per);
          continue;
        }
        DFX_OP_REQUIRES_OK(ctx, CheckType(it->second, dtype, name_of(b),
                                          "Context feature: ", cd.keys[k], ""));
        if (!single && ListSize(it->second, dtype) != per) {
          ctx->SetStatus(absl::InvalidArgumentError(
              absl::StrCat("Inconsistent max number of elements for feature ",
                           cd.keys[k], ": expected ", per, ", but found ",
                           ListSize(it->second, dtype))));
          return;
        }
        DFX_OP_REQUIRES_OK(ctx, CheckCount(it->second, dtype, cd.shapes[k],
                                           name_of(b), cd.keys[k], 0));
        CopyValues(it->second, dtype, out, b * per);
      }
    }
    // Context sparse: indices [n, rank], shape [batch?, longest].
    for (int k = 0; k < ncs; ++k) {
      std::vector<const Feature*> found(static_cast<size_t>(batch), nullptr);
      int64_t total = 0, longest = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const auto& dict = examples[b].context().feature();
        auto it = dict.find(cs.keys[k]);
        if (it == dict.end() || FeatureType(it->second) == DT_INVALID) continue;
        DFX_OP_REQUIRES_OK(ctx, CheckType(it->second, cs.types[k], name_of(b),
                                          "Context feature: ", cs.keys[k], ""));
        found[b] = &it->second;
        const int64_t n = ListSize(it->second, cs.types[k]);
        total += n;
        longest = std::max(longest, n);
      }
      const int64_t rank = batched ? 2 : 1;
      Tensor *indices, *values, *shape;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, TensorShape({total, rank}), &indices));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(ncs + k, TensorShape({total}), &values));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(2 * ncs + k, TensorShape({rank}), &shape));
      int64_t at = 0;
      int64_t* idx = indices->data<int64_t>();
      for (int64_t b = 0; b < batch; ++b) {
        if (found[b] == nullptr) continue;
        const int64_t n = ListSize(*found[b], cs.types[k]);
        if (n > 0) CopyValues(*found[b], cs.types[k], values, at);
        for (int64_t j = 0; j < n; ++j, ++at) {
          if (batched) *idx++ = b;
          *idx++ = j;
        }
      }
      int64_t* s = shape->data<int64_t>();
      if (batched) *s++ = batch;
      *s = longest;
    }
    // Context ragged: values and row splits [batch + 1].
    for (int k = 0; k < ncr; ++k) {
      std::vector<const Feature*> found(static_cast<size_t>(batch), nullptr);
      int64_t total = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const auto& dict = examples[b].context().feature();
        auto it = dict.find(cr.keys[k]);
        if (it == dict.end() || FeatureType(it->second) == DT_INVALID) continue;
        DFX_OP_REQUIRES_OK(ctx, CheckType(it->second, cr.types[k], name_of(b),
                                          "Context feature: ", cr.keys[k], ""));
        found[b] = &it->second;
        total += ListSize(it->second, cr.types[k]);
      }
      Tensor *values, *splits;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(o_cr + k, TensorShape({total}), &values));
      // TensorFlow leaves a single example's splits unset; dfx gives 0.
      DFX_OP_REQUIRES_OK(
          ctx,
          ctx->allocate_output(
              o_cr + ncr + k,
              batched ? TensorShape({batch + 1}) : TensorShape(), &splits));
      int64_t at = 0;
      SetSplit(splits, 0, 0);
      for (int64_t b = 0; b < batch; ++b) {
        if (found[b] != nullptr) {
          const int64_t n = ListSize(*found[b], cr.types[k]);
          if (n > 0) CopyValues(*found[b], cr.types[k], values, at);
          at += n;
        }
        if (batched) SetSplit(splits, b + 1, at);
      }
    }
    // Feature lists, per example (nullptr when absent).
    auto lists = [&](const std::string& key) {
      std::vector<const FeatureList*> out(static_cast<size_t>(batch), nullptr);
      for (int64_t b = 0; b < batch; ++b) {
        const auto& dict = examples[b].feature_lists().feature_list();
        auto it = dict.find(key);
        if (it != dict.end()) out[b] = &it->second;
      }
      return out;
    };
    // Feature list dense: [batch?, longest, shape...] and lengths [batch?].
    for (int k = 0; k < nfd; ++k) {
      const DataType dtype = fd.types[k];
      const int64_t per = fd.shapes[k].num_elements();
      const std::vector<const FeatureList*> fl = lists(fd.keys[k]);
      int64_t longest = 0;
      for (int64_t b = 0; b < batch; ++b) {
        DFX_OP_REQUIRES(
            ctx, fl[b] != nullptr || missing_ok[k],
            absl::InvalidArgumentError(absl::StrCat(
                "Name: ", name_of(b), ", Feature list '", fd.keys[k],
                "' is required but could not be found.  Did you mean to "
                "include it in feature_list_dense_missing_assumed_empty or "
                "feature_list_dense_defaults?")));
        if (fl[b] == nullptr) continue;
        longest = std::max<int64_t>(longest, fl[b]->feature_size());
        for (int t = 0; t < fl[b]->feature_size(); ++t) {
          const Feature& f = fl[b]->feature(t);
          DFX_OP_REQUIRES_OK(
              ctx, CheckType(f, dtype, name_of(b), "Feature list: ", fd.keys[k],
                             absl::StrCat(", Index: ", t)));
          DFX_OP_REQUIRES_OK(ctx, CheckCount(f, dtype, fd.shapes[k], name_of(b),
                                             fd.keys[k], t));
        }
      }
      TensorShape shape = batch_dims;
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(longest));
      for (int64_t d : fd.shapes[k].dim_sizes()) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
      }
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(o_fd + k, shape, &out));
      Zero(out, 0, out->NumElements());
      Tensor* lengths = nullptr;
      if (!single) {
        DFX_OP_REQUIRES_OK(
            ctx, ctx->allocate_output(o_fl + k, batch_dims, &lengths));
      }
      for (int64_t b = 0; b < batch; ++b) {
        const int steps = fl[b] == nullptr ? 0 : fl[b]->feature_size();
        if (lengths != nullptr) lengths->data<int64_t>()[b] = steps;
        for (int t = 0; t < steps; ++t) {
          if (per > 0) {
            CopyValues(fl[b]->feature(t), dtype, out, (b * longest + t) * per);
          }
        }
      }
    }
    // Feature list sparse: indices [n, rank] (example?, step, j), shape
    // [batch?, longest list, longest step].
    for (int k = 0; k < nfs; ++k) {
      const DataType dtype = fs.types[k];
      const std::vector<const FeatureList*> fl = lists(fs.keys[k]);
      int64_t total = 0, steps = 0, longest = 0;
      for (int64_t b = 0; b < batch; ++b) {
        if (fl[b] == nullptr) continue;
        steps = std::max<int64_t>(steps, fl[b]->feature_size());
        for (int t = 0; t < fl[b]->feature_size(); ++t) {
          const Feature& f = fl[b]->feature(t);
          if (FeatureType(f) == DT_INVALID) continue;
          DFX_OP_REQUIRES_OK(
              ctx, CheckType(f, dtype, name_of(b),
                             single ? "Feature List: " : "Feature list: ",
                             fs.keys[k], absl::StrCat(", Index: ", t)));
          const int64_t n = ListSize(f, dtype);
          total += n;
          longest = std::max(longest, n);
        }
      }
      const int64_t rank = batched ? 3 : 2;
      Tensor *indices, *values, *shape;
      DFX_OP_REQUIRES_OK(
          ctx,
          ctx->allocate_output(o_fs + k, TensorShape({total, rank}), &indices));
      DFX_OP_REQUIRES_OK(
          ctx,
          ctx->allocate_output(o_fs + nfs + k, TensorShape({total}), &values));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(o_fs + 2 * nfs + k, TensorShape({rank}),
                                    &shape));
      int64_t at = 0;
      int64_t* idx = indices->data<int64_t>();
      for (int64_t b = 0; b < batch; ++b) {
        if (fl[b] == nullptr) continue;
        for (int t = 0; t < fl[b]->feature_size(); ++t) {
          const Feature& f = fl[b]->feature(t);
          const int64_t n =
              FeatureType(f) == DT_INVALID ? 0 : ListSize(f, dtype);
          if (n > 0) CopyValues(f, dtype, values, at);
          for (int64_t j = 0; j < n; ++j, ++at) {
            if (batched) *idx++ = b;
            *idx++ = t;
            *idx++ = j;
          }
        }
      }
      int64_t* s = shape->data<int64_t>();
      if (batched) *s++ = batch;
      *s++ = steps;
      *s = longest;
    }
    if (!v2) return;
    // Feature list ragged: values, outer splits [batch + 1] (steps per
    // example), inner splits [steps + 1] (values per step).
    for (int k = 0; k < nfr; ++k) {
      const DataType dtype = fr.types[k];
      const std::vector<const FeatureList*> fl = lists(fr.keys[k]);
      int64_t total = 0, steps = 0;
      for (int64_t b = 0; b < batch; ++b) {
        if (fl[b] == nullptr) continue;
        steps += fl[b]->feature_size();
        for (int t = 0; t < fl[b]->feature_size(); ++t) {
          const Feature& f = fl[b]->feature(t);
          if (FeatureType(f) == DT_INVALID) continue;
          DFX_OP_REQUIRES_OK(
              ctx, CheckType(f, dtype, name_of(b), "Feature list: ", fr.keys[k],
                             absl::StrCat(", Index: ", t)));
          total += ListSize(f, dtype);
        }
      }
      Tensor *values, *outer, *inner;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(o_fr + k, TensorShape({total}), &values));
      // TensorFlow leaves a single example's outer splits unset; dfx gives 0.
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(
                   o_fr + nfr + k,
                   batched ? TensorShape({batch + 1}) : TensorShape(), &outer));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(o_fr + 2 * nfr + k,
                                    TensorShape({steps + 1}), &inner));
      int64_t at = 0, step = 0;
      SetSplit(outer, 0, 0);
      SetSplit(inner, 0, 0);
      for (int64_t b = 0; b < batch; ++b) {
        const int n = fl[b] == nullptr ? 0 : fl[b]->feature_size();
        for (int t = 0; t < n; ++t) {
          const Feature& f = fl[b]->feature(t);
          const int64_t size =
              FeatureType(f) == DT_INVALID ? 0 : ListSize(f, dtype);
          if (size > 0) CopyValues(f, dtype, values, at);
          at += size;
          SetSplit(inner, ++step, at);
        }
        if (batched) SetSplit(outer, b + 1, step);
      }
    }
  }

  // InvalidArgument when a key is in two of the dense, sparse and ragged
  // groups.
  static absl::Status CheckDistinct(const char* what, const Group& dense,
                                    const Group& sparse, const Group& ragged) {
    auto in = [](const Group& g, const std::string& key) {
      return std::find(g.keys.begin(), g.keys.end(), key) != g.keys.end();
    };
    for (const std::string& key : dense.keys) {
      if (in(sparse, key)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, key, " cannot be both dense and sparse"));
      }
      if (in(ragged, key)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, key, " cannot be both dense and ragged"));
      }
    }
    for (const std::string& key : sparse.keys) {
      if (in(ragged, key)) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, key, " cannot be both sparse and ragged"));
      }
    }
    return absl::OkStatus();
  }

  // InvalidArgument when `f` does not hold `dtype`.
  absl::Status CheckType(const Feature& f, DataType dtype,
                         const std::string& name, const char* what,
                         const std::string& key,
                         const std::string& index) const {
    if (FeatureType(f) == dtype) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "Name: ", name, ", ", what, key, index,
        ".  Data types don't match. Expected type: ", DataTypeString(dtype)));
  }

  // InvalidArgument when `f` does not hold shape's number of values.
  absl::Status CheckCount(const Feature& f, DataType dtype,
                          const TensorShape& shape, const std::string& name,
                          const std::string& key, int64_t index) const {
    const int64_t size = ListSize(f, dtype);
    if (size == shape.num_elements()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "Name: ", name, ", Key: ", key, ", Index: ", index, ".  Number of ",
        version_ == Version::kSingle ? absl::StrCat(DataTypeString(dtype), " ")
                                     : "",
        "values != expected.  values size: ", size,
        " but output shape: ", ShapeString(shape)));
  }

  const Version version_;
  Group cs_, cd_, cr_, fs_, fd_, fr_;
  std::vector<std::string>
      missing_;  // V1's feature_list_dense_missing_assumed_empty
};

class ParseSingleSequenceExampleOp : public ParseSequenceExampleOp {
 public:
  explicit ParseSingleSequenceExampleOp(OpKernelConstruction* ctx)
      : ParseSequenceExampleOp(ctx, Version::kSingle) {}
};

class ParseSequenceExampleV1Op : public ParseSequenceExampleOp {
 public:
  explicit ParseSequenceExampleV1Op(OpKernelConstruction* ctx)
      : ParseSequenceExampleOp(ctx, Version::kV1) {}
};

class ParseSequenceExampleV2Op : public ParseSequenceExampleOp {
 public:
  explicit ParseSequenceExampleV2Op(OpKernelConstruction* ctx)
      : ParseSequenceExampleOp(ctx, Version::kV2) {}
};

}  // namespace

void RegisterParseSequenceExampleKernels(KernelRegistry* registry) {
  RegisterKernel<ParseSingleSequenceExampleOp>(
      registry, KernelDefBuilder("ParseSingleSequenceExample"));
  RegisterKernel<ParseSequenceExampleV1Op>(
      registry, KernelDefBuilder("ParseSequenceExample"));
  RegisterKernel<ParseSequenceExampleV2Op>(
      registry, KernelDefBuilder("ParseSequenceExampleV2"));
}

}  // namespace dfx::sparse_internal

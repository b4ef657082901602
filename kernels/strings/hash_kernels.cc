// StringToHashBucketFast (FarmHash's Fingerprint64, which TensorFlow's
// Fingerprint64 is, modulo num_buckets), StringToHashBucket (TensorFlow's
// Hash64) and StringToHashBucketStrong (SipHash-2-4 keyed by `key`,
// TensorFlow's StrongKeyedHash). The hashes are fixed by their algorithms: a
// bucket must equal TensorFlow's for the same string on every machine, which is
// what trained embeddings index by.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/fingerprint.h"
#include "kernels/strings/string_util.h"

namespace dfx::strings {
namespace {

// FarmHash's Fingerprint64 (kernels/fingerprint.h) as a hash of bytes.
uint64_t FarmFingerprint64(const char* s, size_t n) {
  return Fingerprint64(absl::string_view(s, n));
}

// TensorFlow's own Hash64 (kernels/fingerprint.h), which the deprecated
// StringToHashBucket uses.
uint64_t TfHash64Bytes(const char* s, size_t n) {
  return TfHash64(absl::string_view(s, n));
}

// Per string: its bytes read, 8 written, a few cycles a byte.
const Eigen::TensorOpCost kHashCost(32, 8, 64);

// StringToHashBucketFast (Fingerprint64) and StringToHashBucket (Hash64).
template <uint64_t (*kHash)(const char*, size_t)>
class HashBucketFastOp : public OpKernel {
 public:
  explicit HashBucketFastOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("num_buckets", &num_buckets_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    int64_t* o = out->data<int64_t>();
    ParallelFor(
        *ctx->device(), in.NumElements(), kHashCost,
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            o[i] = static_cast<int64_t>(kHash(s[i].data(), s[i].size()) %
                                        static_cast<uint64_t>(num_buckets_));
          }
        });
  }

 private:
  int64_t num_buckets_ = 1;
};

class HashBucketStrongOp : public OpKernel {
 public:
  explicit HashBucketStrongOp(OpKernelConstruction* c) : OpKernel(c) {
    std::vector<int64_t> key;
    c->SetStatus(c->GetAttr("num_buckets", &num_buckets_));
    c->SetStatus(c->GetAttr("key", &key));
    if (!c->status().ok()) return;
    if (key.size() != 2) {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Key must have 2 elements, got ", key.size())));
      return;
    }
    k0_ = static_cast<uint64_t>(key[0]);
    k1_ = static_cast<uint64_t>(key[1]);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    int64_t* o = out->data<int64_t>();
    ParallelFor(
        *ctx->device(), in.NumElements(), kHashCost,
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            o[i] = static_cast<int64_t>(SipHash24(k0_, k1_, s[i]) %
                                        static_cast<uint64_t>(num_buckets_));
          }
        });
  }

 private:
  int64_t num_buckets_ = 1;
  uint64_t k0_ = 0, k1_ = 0;
};

}  // namespace

void RegisterStringHashKernels(KernelRegistry* registry) {
  RegisterKernel<HashBucketFastOp<FarmFingerprint64>>(
      registry, KernelDefBuilder("StringToHashBucketFast"));
  RegisterKernel<HashBucketFastOp<TfHash64Bytes>>(
      registry, KernelDefBuilder("StringToHashBucket"));
  RegisterKernel<HashBucketStrongOp>(
      registry, KernelDefBuilder("StringToHashBucketStrong"));
}

}  // namespace dfx::strings

// DecodeCompressed: each string inflated (ZLIB, GZIP) or decompressed
// (ZSTD), or copied ("").
//
// ZLIB and GZIP follow TensorFlow's ZlibInputStream, since its loop decides
// what odd inputs give: a truncated stream yields what inflated so far
// without error; bytes after the end of a zlib stream are ignored; after a
// gzip member another member must follow (concatenated members decode,
// trailing garbage is a DataLoss); inflate errors are DataLoss with zlib's
// code and message. Output is capped at 1 GB, as in TensorFlow, so a small
// input cannot exhaust memory.
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/codec/codec_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

constexpr int64_t kMaxOutputBytes = int64_t{1} << 30;
constexpr size_t kChunk = 256 << 10;

absl::Status Inflate(const std::string& in, bool gzip, std::string* out) {
  out->clear();
  z_stream z = {};
  if (inflateInit2(&z, gzip ? MAX_WBITS + 16 : MAX_WBITS) != Z_OK) {
    return absl::InternalError("inflateInit2 failed");
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::vector<Bytef> buf(kChunk);
  absl::Status status;
  while (true) {
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      status = absl::DataLossError(
          absl::StrCat("inflate() failed with error ", rc,
                       z.msg != nullptr ? absl::StrCat(": ", z.msg) : ""));
      break;
    }
    // Concatenated gzip members: start on the next one.
    if (rc == Z_STREAM_END && gzip) inflateReset(&z);
    const size_t produced = buf.size() - z.avail_out;
    // An inflate call that produces nothing ends the stream, complete or
    // not (TensorFlow then finds no more input to feed). The whole input
    // is available here, so inflate only stops short of output at the end
    // of the data or of a zlib stream.
    if (produced == 0) break;
    if (static_cast<int64_t>(out->size() + produced) > kMaxOutputBytes) {
      status = absl::InvalidArgumentError("Decompressed size exceeds 1GB limit");
      break;
    }
    out->append(reinterpret_cast<const char*>(buf.data()), produced);
  }
  inflateEnd(&z);
  return status;
}

absl::Status Unzstd(const std::string& in, std::string* out) {
  const unsigned long long size =  // NOLINT(runtime/int): zstd's type
      ZSTD_getFrameContentSize(in.data(), in.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) {
    return absl::InvalidArgumentError("Failed to determine decompressed size");
  }
  if (size > static_cast<unsigned long long>(kMaxOutputBytes)) {  // NOLINT
    return absl::InvalidArgumentError("Decompressed size exceeds 1GB limit");
  }
  out->resize(size);
  const size_t got =
      ZSTD_decompress(out->data(), out->size(), in.data(), in.size());
  if (ZSTD_isError(got)) {
    out->clear();
    return absl::InvalidArgumentError(absl::StrCat(
        "Failed to decompress zstd input: ", ZSTD_getErrorName(got)));
  }
  out->resize(got);
  return absl::OkStatus();
}

class DecodeCompressedOp : public OpKernel {
 public:
  explicit DecodeCompressedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("compression_type", &type_));
    if (!type_.empty() && type_ != "ZLIB" && type_ != "GZIP" &&
        type_ != "ZSTD") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Only ZLIB, ZSTD, GZIP or NONE are supported compressions"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bytes = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, bytes.shape(), &out));
    const std::string* in = bytes.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < bytes.NumElements(); ++i) {
      if (type_.empty()) {
        o[i] = in[i];
      } else if (type_ == "ZSTD") {
        DFX_OP_REQUIRES_OK(ctx, Unzstd(in[i], &o[i]));
      } else {
        DFX_OP_REQUIRES_OK(ctx, Inflate(in[i], type_ == "GZIP", &o[i]));
      }
    }
  }

 private:
  std::string type_;
};

}  // namespace

void RegisterDecodeCompressedKernel(KernelRegistry* registry) {
  RegisterKernel<DecodeCompressedOp>(registry,
                                     KernelDefBuilder("DecodeCompressed"));
}

}  // namespace dfx

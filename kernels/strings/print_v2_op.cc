// PrintV2: writes its scalar string input and `end` to the server's stdout,
// stderr or log (tf.print's op). TensorFlow's "file://" streams are refused:
// a GraphDef from a client should not choose files on the server to append
// to.
#include <cstdio>
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "kernels/math/misc_kernels.h"
#include "runtime/tensor.h"

namespace dfx::misc_internal {
namespace {

class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("output_stream", &stream_));
    ctx->SetStatus(ctx->GetAttr("end", &end_));
    if (!ctx->status().ok()) return;
    if (absl::StartsWith(stream_, "file://")) {
      ctx->SetStatus(absl::UnimplementedError(absl::StrCat(
          "PrintV2: dfx does not print to files (output_stream ", stream_,
          "); use stdout, stderr or log(info|warning|error)")));
      return;
    }
    for (const char* valid :
         {"stdout", "stderr", "log(info)", "log(warning)", "log(error)"}) {
      if (stream_ == valid) return;
    }
    ctx->SetStatus(absl::InvalidArgumentError(
        absl::StrCat("Unknown output stream: ", stream_,
                     ", Valid streams are: stdout stderr log(info) "
                     "log(warning) log(error)")));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input is expected to be scalar, but got ",
                        input.shape().DebugString())));
    const std::string message =
        absl::StrCat(input.data<std::string>()[0], end_);
    if (stream_ == "stdout") {
      std::cout << message << std::flush;
    } else if (stream_ == "stderr") {
      std::cerr << message << std::flush;
    } else if (stream_ == "log(info)") {
      spdlog::info("{}", message);
    } else if (stream_ == "log(warning)") {
      spdlog::warn("{}", message);
    } else {
      spdlog::error("{}", message);
    }
  }

 private:
  std::string stream_;
  std::string end_;
};

}  // namespace

void RegisterPrintV2Kernels(KernelRegistry* registry) {
  RegisterKernel<PrintV2Op>(registry, KernelDefBuilder("PrintV2"));
}

}  // namespace dfx::misc_internal

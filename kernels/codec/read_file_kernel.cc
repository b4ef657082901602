// ReadFile: the whole of a local file as a string scalar, the first node of
// tf.io.read_file -> decode_* input pipelines. Errors carry TensorFlow's
// codes and its "path; strerror" text: NotFound for a missing file,
// FailedPrecondition for a directory, PermissionDenied.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/codec/codec_kernels.h"
#include "runtime/file_policy.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

absl::Status ErrnoStatus(const std::string& path, int err) {
  const std::string text = absl::StrCat(path, "; ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(text);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(text);
    case EISDIR:
      return absl::FailedPreconditionError(text);
    default:
      return absl::UnknownError(text);
  }
}

absl::Status ReadWholeFile(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus(path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return ErrnoStatus(path, EISDIR);
  }
  out->clear();
  // The size is a hint only: a file that grows or shrinks (a pipe, /proc)
  // is read to its end.
  out->reserve(st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0);
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ErrnoStatus(path, err);
    }
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return absl::OkStatus();
}

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filename = ctx->input(0);
    DFX_OP_REQUIRES(ctx, filename.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input filename tensor must be scalar, but had shape: ",
                        filename.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    // Inside the server's --data-dir when it has one.
    absl::StatusOr<std::string> path =
        ResolveDataPath(name(), filename.scalar<std::string>());
    DFX_OP_REQUIRES_OK(ctx, path.status());
    DFX_OP_REQUIRES_OK(ctx, ReadWholeFile(*path, &out->scalar<std::string>()));
  }
};

}  // namespace

void RegisterReadFileKernel(KernelRegistry* registry) {
  RegisterKernel<ReadFileOp>(registry, KernelDefBuilder("ReadFile"));
}

}  // namespace dfx

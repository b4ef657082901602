#include "checkpoint/internal/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "absl/base/const_init.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace dfx::checkpoint_internal {

absl::Status IoError(absl::string_view operation, absl::string_view path,
                     int errno_value) {
  const std::string message =
      absl::StrCat(operation, " ", path, ": ", std::strerror(errno_value));
  switch (errno_value) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return absl::ResourceExhaustedError(message);
    case EISDIR:
    case ENOTDIR:
    case ENOTEMPTY:
      return absl::FailedPreconditionError(message);
    default:
      return absl::UnknownError(message);
  }
}

absl::StatusOr<std::unique_ptr<WritableFile>> WritableFile::Create(
    std::string path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return IoError("cannot create", path, errno);
  return std::unique_ptr<WritableFile>(new WritableFile(std::move(path), fd));
}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status WritableFile::Append(const void* data, size_t n) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("write to closed file ", path_));
  }
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t written = ::write(fd_, p, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot write", path_, errno);
    }
    p += written;
    n -= static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

absl::Status WritableFile::SyncAndClose() {
  if (fd_ < 0) return absl::OkStatus();
  absl::Status status;
  if (::fsync(fd_) != 0) status = IoError("cannot sync", path_, errno);
  if (::close(fd_) != 0 && status.ok()) {
    status = IoError("cannot close", path_, errno);
  }
  fd_ = -1;
  return status;
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> RandomAccessFile::Open(
    std::string path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return IoError("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return IoError("cannot stat", path, e);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return IoError("cannot read", path, EISDIR);
  }
  return std::unique_ptr<RandomAccessFile>(new RandomAccessFile(
      std::move(path), fd, static_cast<uint64_t>(st.st_size)));
}

RandomAccessFile::~RandomAccessFile() { ::close(fd_); }

absl::Status RandomAccessFile::ReadExactly(uint64_t offset, size_t n,
                                           void* dst) const {
  char* p = static_cast<char*>(dst);
  size_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot read", path_, errno);
    }
    if (got == 0) {
      return absl::DataLossError(absl::StrCat(
          path_, " is truncated: reading [", offset, ", ", offset + n,
          ") hit the end of the file at ", offset + done));
    }
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  auto file = RandomAccessFile::Open(path);
  if (!file.ok()) return file.status();
  std::string contents((*file)->size(), '\0');
  absl::Status s = (*file)->ReadExactly(0, contents.size(), contents.data());
  if (!s.ok()) return s;
  return contents;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

absl::Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return IoError("cannot rename", absl::StrCat(from, " to ", to), errno);
  }
  return absl::OkStatus();
}

void RemoveFileQuietly(const std::string& path) { ::unlink(path.c_str()); }

void RemoveDirQuietly(const std::string& dir) { ::rmdir(dir.c_str()); }

absl::Status CreateDirs(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("cannot create directory", dir, ec.value());
  return absl::OkStatus();
}

void SyncDirQuietly(const std::string& dir) {
  const std::string path = dir.empty() ? "." : dir;
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

std::string Dirname(absl::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == absl::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

uint64_t RandomId() {
  static absl::Mutex mu(absl::kConstInit);
  static std::mt19937_64* gen = new std::mt19937_64(std::random_device()());
  absl::MutexLock lock(&mu);
  return (*gen)();
}

}  // namespace dfx::checkpoint_internal

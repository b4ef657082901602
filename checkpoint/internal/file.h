// POSIX file access for the checkpoint module: a write-once file that is
// synced before it is renamed into place, positional reads, and errno
// mapped to canonical status codes naming the path.
#ifndef DFX_CHECKPOINT_INTERNAL_FILE_H_
#define DFX_CHECKPOINT_INTERNAL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx::checkpoint_internal {

// An error for `errno_value` from `operation` on `path`: NotFound (ENOENT),
// AlreadyExists, PermissionDenied, ResourceExhausted (ENOSPC, EDQUOT),
// FailedPrecondition (EISDIR, ENOTDIR, ENOTEMPTY), Unknown otherwise.
absl::Status IoError(absl::string_view operation, absl::string_view path,
                     int errno_value);

// A new file opened for writing; fails when `path` exists. Not thread-safe.
class WritableFile {
 public:
  static absl::StatusOr<std::unique_ptr<WritableFile>> Create(std::string path);
  // Closes without syncing when still open.
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  absl::Status Append(const void* data, size_t n);
  // fsync, then close.
  absl::Status SyncAndClose();
  const std::string& path() const { return path_; }

 private:
  WritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  const std::string path_;
  int fd_;
};

// A file opened for positional reads. Thread-safe.
class RandomAccessFile {
 public:
  // NotFound naming `path` when it does not exist.
  static absl::StatusOr<std::unique_ptr<RandomAccessFile>> Open(
      std::string path);
  ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  // Reads exactly n bytes at `offset` into `dst`. DataLoss naming the file
  // when it ends first.
  absl::Status ReadExactly(uint64_t offset, size_t n, void* dst) const;
  // The size when the file was opened.
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  RandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  const std::string path_;
  const int fd_;
  const uint64_t size_;
};

// The whole file.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// Whether `path` exists (any kind of file).
bool FileExists(const std::string& path);

// Whether `path` is a directory.
bool IsDirectory(const std::string& path);

// rename(2), with the error naming both paths.
absl::Status RenameFile(const std::string& from, const std::string& to);

// Removes a file, ignoring errors (cleanup paths).
void RemoveFileQuietly(const std::string& path);

// Removes an empty directory, ignoring errors (it may hold other files).
void RemoveDirQuietly(const std::string& dir);

// Creates `dir` and its parents when missing ("" means the current
// directory and is a no-op).
absl::Status CreateDirs(const std::string& dir);

// fsync of a directory, so that renames in it survive a crash. Errors are
// ignored: some file systems cannot sync directories.
void SyncDirQuietly(const std::string& dir);

// The directory part of a path: "a/b/c" -> "a/b", "c" -> "", "/c" -> "/".
std::string Dirname(absl::string_view path);

// A random 64-bit number for temporary file names.
uint64_t RandomId();

}  // namespace dfx::checkpoint_internal

#endif  // DFX_CHECKPOINT_INTERNAL_FILE_H_

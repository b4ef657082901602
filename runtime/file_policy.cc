#include "runtime/file_policy.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;

absl::Mutex data_dir_mu(absl::kConstInit);
std::string* data_dir_value ABSL_GUARDED_BY(data_dir_mu) = nullptr;

// True when `path` is `dir` or below it (both absolute and normal).
bool IsInside(const fs::path& path, const std::string& dir) {
  const std::string p = path.string();
  if (p == dir) return true;
  const std::string prefix = dir == "/" ? dir : dir + "/";
  return absl::StartsWith(p, prefix);
}

absl::Status Outside(absl::string_view node, absl::string_view path,
                     const std::string& dir, absl::string_view why = "") {
  return absl::PermissionDeniedError(absl::StrCat(
      "node '", node, "': path '", path, "'", why,
      " is outside the data directory '", dir,
      "' (dfx server --data-dir): file ops may only read and write below it"));
}

}  // namespace

absl::Status SetDataDir(const std::string& dir) {
  std::string resolved;
  if (!dir.empty()) {
    std::error_code ec;
    const fs::path real = fs::canonical(dir, ec);
    if (ec) {
      return absl::InvalidArgumentError(absl::StrCat(
          "data directory '", dir, "': ", ec.message()));
    }
    if (!fs::is_directory(real, ec)) {
      return absl::InvalidArgumentError(
          absl::StrCat("data directory '", dir, "' is not a directory"));
    }
    resolved = real.string();
  }
  absl::MutexLock lock(&data_dir_mu);
  delete data_dir_value;
  data_dir_value = resolved.empty() ? nullptr : new std::string(resolved);
  return absl::OkStatus();
}

std::string DataDir() {
  absl::MutexLock lock(&data_dir_mu);
  return data_dir_value == nullptr ? std::string() : *data_dir_value;
}

absl::StatusOr<std::string> ResolveDataPath(absl::string_view node,
                                            absl::string_view path) {
  const std::string dir = DataDir();
  if (dir.empty()) return std::string(path);
  if (path.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", node, "': a path with a NUL byte"));
  }
  const fs::path given{std::string(path)};
  const fs::path full = given.is_absolute() ? given : fs::path(dir) / given;
  // The real path of the longest existing prefix, then the rest made
  // normal: "new/../../x" under DIR is outside, even though "new" does
  // not exist yet (a writer creates missing directories).
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(full, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat(
        "node '", node, "': path '", path, "' cannot be resolved under the "
        "data directory '", dir, "': ", ec.message()));
  }
  if (!IsInside(resolved, dir)) return Outside(node, path, dir);
  return resolved.string();
}

absl::StatusOr<std::string> ResolveDataPrefix(absl::string_view node,
                                              absl::string_view prefix) {
  DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node, prefix));
  const std::string dir = DataDir();
  if (dir.empty()) return resolved;
  // The files are "<prefix>.index" and so on: a prefix that is the data
  // directory itself would put them beside it.
  if (resolved == dir) {
    return Outside(node, prefix, dir,
                   " (as a checkpoint prefix: its files would lie beside "
                   "the data directory)");
  }
  const fs::path p(resolved);
  const std::string stem = p.filename().string();
  std::error_code ec;
  if (stem.empty() || !fs::is_directory(p.parent_path(), ec)) return resolved;
  for (fs::directory_iterator it(p.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!absl::StartsWith(name, stem + ".")) continue;
    std::error_code real_ec;
    const fs::path real = fs::weakly_canonical(it->path(), real_ec);
    if (real_ec || !IsInside(real, dir)) {
      return Outside(node, it->path().string(), dir,
                     absl::StrCat(" (a file of prefix '", prefix,
                                  "', which resolves to '",
                                  real_ec ? "?" : real.string(), "')"));
    }
  }
  return resolved;
}

}  // namespace dfx

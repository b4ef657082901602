// The file policy: the one directory tree that file ops of a graph
// (SaveV2, RestoreV2, MergeV2Checkpoints) may read and write, set once per
// process by `dfx server --data-dir DIR`.
//
// The setting is process-wide: one server per process (as `dfx server`
// runs), and tests that set it clear it again. Without a data directory
// every path is used as given (relative to the working directory), as
// before.
//
// The check is on paths, not on open file descriptors: a process that can
// swap a directory inside DIR for a symlink between the check and the open
// can still escape. It guards against graphs, not against local users of
// the server's machine.
#ifndef DFX_RUNTIME_FILE_POLICY_H_
#define DFX_RUNTIME_FILE_POLICY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx {

// Confines the file ops of every graph this process runs to `dir` (its
// real path, symlinks resolved); an empty `dir` lifts the confinement.
// InvalidArgument naming `dir` when it does not exist or is not a
// directory. Thread-safe; meant to be called once at start.
absl::Status SetDataDir(const std::string& dir);

// The data directory (a real, absolute path), or empty when none is set.
std::string DataDir();

// The path a file op of node `node` must use for `path`. Without a data
// directory: `path` unchanged. With one: a relative `path` is taken under
// the data directory; the result has its longest existing prefix resolved
// (symlinks, "..") and the rest normalized, and must lie inside the data
// directory (or be it). PermissionDenied naming the node, the path and
// the data directory otherwise.
absl::StatusOr<std::string> ResolveDataPath(absl::string_view node,
                                            absl::string_view path);

// As ResolveDataPath for a checkpoint prefix, which names a family of
// files ("<prefix>.index", "<prefix>.data-00000-of-00001", temporary
// "<prefix>....tempstate<id>" files): also every existing file in the
// prefix's directory whose name starts with the prefix's last component
// and a '.' must resolve inside the data directory (a symlink
// "model.index" pointing out is PermissionDenied), and the prefix must not
// be the data directory itself (its files would lie beside it).
absl::StatusOr<std::string> ResolveDataPrefix(absl::string_view node,
                                              absl::string_view prefix);

}  // namespace dfx

#endif  // DFX_RUNTIME_FILE_POLICY_H_

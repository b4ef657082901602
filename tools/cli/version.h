// `dfx version` (also `dfx --version`): the version, the commit and the
// build options of this dfx.
#ifndef DFX_TOOLS_CLI_VERSION_H_
#define DFX_TOOLS_CLI_VERSION_H_

#include <ostream>
#include <string>
#include <vector>

namespace dfx::cli {

// What this binary was built from and with, fixed when CMake configured
// the build folder.
struct BuildInfo {
  std::string version;     // CMake's project VERSION, e.g. "0.1.0"
  std::string commit;      // short git commit ("-dirty" suffix), or "unknown"
  std::string build_type;  // CMAKE_BUILD_TYPE, e.g. "RelWithDebInfo"
  bool cuda = false;       // GPU kernels built in
  std::string cpu_level;   // "x86-64-v3" or "baseline" (DFX_CPU_LEVEL)
  std::string sanitizer;   // "address", "thread" or "none"
  std::string compiler;    // e.g. "GNU 12.2.0"
  // The malloc this process runs on: "jemalloc 5.3.0-...", "glibc" or
  // "sanitizer"; starts with the configured DFX_BUILD_MALLOC.
  std::string malloc;
};

const BuildInfo& GetBuildInfo();

// The text `dfx version` prints: "dfx VERSION" on the first line, then one
// "key: value" line each for the commit and the build options.
std::string VersionText();

// `dfx version [--json]`: the text above, or one JSON object with the
// fields of BuildInfo. Unknown flags are a usage error (exit 2).
int VersionMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_VERSION_H_

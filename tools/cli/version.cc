#include "tools/cli/version.h"

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "tools/cli/command.h"
#include "tools/cli/version_info.h"  // generated: build/tools/cli/

// jemalloc's control interface, when jemalloc is this process's malloc
// (linked, or preloaded); null otherwise.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp,
                       void* newp, size_t newlen) __attribute__((weak));

namespace dfx::cli {
namespace {

std::string MallocInUse() {
  if (mallctl != nullptr) {
    const char* version = nullptr;
    size_t size = sizeof(version);
    if (mallctl("version", &version, &size, nullptr, 0) == 0 &&
        version != nullptr) {
      return absl::StrCat("jemalloc ", version);
    }
    return "jemalloc";
  }
  return std::string(DFX_BUILD_SANITIZER) == "none" ? "glibc" : "sanitizer";
}

constexpr char kVersionUsage[] = R"(usage: dfx version [--json]
       dfx --version

Prints the version of dfx, the git commit it was built from (as of the
build folder's last CMake configure; "-dirty" when the checkout had
uncommitted changes) and its build options: build type, CUDA on or off,
CPU level (x86-64-v3 or baseline), sanitizer, compiler; and the malloc it
runs on (jemalloc, linked by default; glibc; or the sanitizer's).

  --json  one JSON object: version, commit, build_type, cuda, cpu_level,
          sanitizer, compiler, malloc
)";

}  // namespace

const BuildInfo& GetBuildInfo() {
  static const BuildInfo* const info = new BuildInfo{
      DFX_VERSION_STRING,   DFX_GIT_COMMIT,
      DFX_BUILD_TYPE,       std::string(DFX_BUILD_CUDA) == "on",
      DFX_BUILD_CPU_LEVEL,  DFX_BUILD_SANITIZER,
      DFX_BUILD_COMPILER,   MallocInUse()};
  return *info;
}

std::string VersionText() {
  const BuildInfo& info = GetBuildInfo();
  return absl::StrCat("dfx ", info.version, "\n",
                      "commit: ", info.commit, "\n",
                      "build type: ", info.build_type, "\n",
                      "cuda: ", info.cuda ? "on" : "off", "\n",
                      "cpu level: ", info.cpu_level, "\n",
                      "sanitizer: ", info.sanitizer, "\n",
                      "compiler: ", info.compiler, "\n",
                      "malloc: ", info.malloc, "\n");
}

int VersionMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (arg == "-h" || arg == "--help") {
      out << kVersionUsage;
      return kExitOk;
    } else {
      err << "dfx version: error: unknown flag '" << arg
          << "' (see 'dfx version --help')\n";
      return kExitUsage;
    }
  }
  if (!json) {
    out << VersionText();
    return kExitOk;
  }
  const BuildInfo& info = GetBuildInfo();
  nlohmann::json j = {{"version", info.version},
                      {"commit", info.commit},
                      {"build_type", info.build_type},
                      {"cuda", info.cuda},
                      {"cpu_level", info.cpu_level},
                      {"sanitizer", info.sanitizer},
                      {"compiler", info.compiler},
                      {"malloc", info.malloc}};
  out << j.dump() << "\n";
  return kExitOk;
}

}  // namespace dfx::cli

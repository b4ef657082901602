#include "tools/bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dfx {

namespace fs = std::filesystem;

std::string FindSourceDir() {
  if (const char* env = std::getenv("DFX_SOURCE_DIR")) return env;
  std::vector<fs::path> starts = {fs::current_path()};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) starts.push_back(exe.parent_path());
  for (fs::path p : starts) {
    for (; !p.empty() && p != p.root_path(); p = p.parent_path()) {
      if (fs::exists(p / "tools" / "tf_env") &&
          fs::exists(p / "tools" / "bench" / "tf_kernels.py")) {
        return p.string();
      }
    }
  }
  return "";
}

std::string RunCommand(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  *status = pclose(pipe);
  return out;
}

std::string TensorFlowPython(const std::string& root) {
  int status = 0;
  std::string python =
      RunCommand(absl::StrCat("'", root, "/tools/tf_env' --check 2>/dev/null"),
                 &status);
  while (!python.empty() && (python.back() == '\n' || python.back() == ' ')) {
    python.pop_back();
  }
  return status == 0 ? python : std::string();
}

std::string BinaryDir() {
  std::error_code ec;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace dfx

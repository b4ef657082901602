// A fresh directory under the system's temporary directory for a test's
// files, removed with everything in it when the object goes. Each object
// has its own directory, so tests (and several runs of one test binary)
// never write over each other's files.
#ifndef DFX_TESTS_TESTING_TEMP_DIR_H_
#define DFX_TESTS_TESTING_TEMP_DIR_H_

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/logging.h"

namespace dfx::testing {

class TempDir {
 public:
  // The directory is named `prefix` plus six random characters.
  explicit TempDir(std::string_view prefix = "dfx_test_") {
    std::string tmpl = (std::filesystem::temp_directory_path() /
                        (std::string(prefix) + "XXXXXX"))
                           .string();
    DFX_CHECK_MSG(::mkdtemp(tmpl.data()) != nullptr, "mkdtemp " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of `name` in the directory (which need not exist).
  std::string File(const std::string& name) const {
    return (std::filesystem::path(path_) / name).string();
  }
  std::string operator/(const std::string& name) const { return File(name); }

  // Writes `bytes` to the file `name` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& bytes) const {
    const std::string path = File(name);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << bytes;
    DFX_CHECK_MSG(f.good(), "writing " + path);
    return path;
  }

  // The names in the directory (recursively, relative), sorted.
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(path_)) {
      out.push_back(std::filesystem::relative(e.path(), path_).string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_TEMP_DIR_H_

// Helpers the dfx_bench subcommands share to reach TensorFlow: where the
// source tree (tools/tf_env, the comparison scripts) is, and running a
// command for its output.
#ifndef DFX_TOOLS_BENCH_BENCH_UTIL_H_
#define DFX_TOOLS_BENCH_BENCH_UTIL_H_

#include <string>

namespace dfx {

// The repository root (holding tools/tf_env): $DFX_SOURCE_DIR, else the
// first parent of the working directory or of this binary that has it;
// empty when there is none.
std::string FindSourceDir();

// Runs `command` through the shell; returns its standard output (empty on
// failure) and sets `status` to its wait status.
std::string RunCommand(const std::string& command, int* status);

// The python of the TensorFlow virtualenv (`tools/tf_env --check`), or
// empty when it does not exist.
std::string TensorFlowPython(const std::string& root);

// The directory of the running binary (where dfx_bench finds `dfx`);
// empty when /proc/self/exe cannot be read.
std::string BinaryDir();

}  // namespace dfx

#endif  // DFX_TOOLS_BENCH_BENCH_UTIL_H_

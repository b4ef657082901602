// A client that keeps one session open and runs one step per line of
// stdin, for tests/integration/run_netns_cluster: the graph is
// tests/data/three_tasks.pbtxt (out = relu(x @ w) + 1) with a fixed feed.
// Each step answers one line on stdout: "ok V0 V1 V2 V3" (the values of
// out) or "error CODE: MESSAGE". Every step has a 30 s deadline.
//
//   step_client --target grpc://HOST:PORT --graph three_tasks.pbtxt
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_def_import.h"
#include "runtime/session.h"

namespace {

int Usage() {
  std::cerr << "usage: step_client --target grpc://HOST:PORT --graph FILE\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target, graph_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--target") {
      target = argv[i + 1];
    } else if (flag == "--graph") {
      graph_path = argv[i + 1];
    } else {
      return Usage();
    }
  }
  if (target.empty() || graph_path.empty() || argc % 2 == 0) return Usage();
  absl::StatusOr<dfx::GraphDef> graph = dfx::ReadGraphDefFile(graph_path);
  if (!graph.ok()) {
    std::cerr << "step_client: " << graph.status() << "\n";
    return 1;
  }
  dfx::SessionOptions options;
  options.config.set_operation_timeout_in_ms(30000);
  absl::StatusOr<std::unique_ptr<dfx::Session>> session =
      dfx::Session::Create(target, options);
  if (!session.ok()) {
    std::cerr << "step_client: " << session.status() << "\n";
    return 1;
  }
  if (absl::Status s = (*session)->Extend(*graph); !s.ok()) {
    std::cerr << "step_client: " << s << "\n";
    return 1;
  }
  const dfx::Tensor x = dfx::Tensor::FromVector<float>(
      {1, -1, 2, 0.5}, dfx::TensorShape({2, 2}));
  std::string line;
  while (std::getline(std::cin, line)) {
    dfx::RunOptions run_options;
    run_options.set_timeout_in_ms(30000);
    std::vector<dfx::Tensor> outputs;
    const absl::Status s = (*session)->Run(run_options, {{"x", x}}, {"out"},
                                           {}, &outputs, nullptr);
    if (s.ok()) {
      std::cout << "ok " << outputs[0].SummarizeValue(10) << std::endl;
    } else {
      std::cout << "error " << absl::StatusCodeToString(s.code()) << ": "
                << s.message() << std::endl;
    }
  }
  return (*session)->Close().ok() ? 0 : 1;
}

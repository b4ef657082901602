// The status page's "Device memory" table and the dfx_device_memory_*
// gauges of a server whose device has an arena of its own (a GPU's), with
// a fake GPU: a BFC arena over host memory marked as the device's.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_server.h"
#include "rpc/grpc_util.h"
#include "runtime/bfc_allocator.h"
#include "runtime/device.h"
#include "runtime/more_devices.h"
#include "tests/testing/metrics_text.h"
#include "base/metrics.h"
#include "base/status_macros.h"
// Last: it includes <resolv.h>, whose _res macro breaks Eigen's headers.
#include "httplib.h"

namespace dfx {
namespace {

// Host memory that the arena reports as the device's.
class DeviceSubAllocator final : public SubAllocator {
 public:
  std::string Name() const override { return "fake_gpu"; }
  void* Alloc(size_t num_bytes) override {
    return std::aligned_alloc(kBfcAlignment, num_bytes);
  }
  void Free(void* ptr, size_t) override { std::free(ptr); }
  bool IsHostMemory() const override { return false; }
};

class FakeGpu final : public Device {
 public:
  FakeGpu(DeviceAttributes attrs, std::unique_ptr<BfcAllocator> arena,
          ThreadPool* pool)
      : Device(std::move(attrs), arena.get(), pool), arena_(std::move(arena)) {}
  bool HostReadable() const override { return false; }
  BfcAllocator* arena() { return arena_.get(); }

 private:
  std::unique_ptr<BfcAllocator> arena_;
};

FakeGpu* the_gpu = nullptr;

MoreDevicesFactory OneFakeGpu() {
  return [](const std::string& task, ThreadPool* pool)
             -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
    BfcAllocatorOptions options;
    options.name = "GPU_0_bfc";
    options.memory_limit = int64_t{64} << 20;
    DFX_ASSIGN_OR_RETURN(
        std::unique_ptr<BfcAllocator> arena,
        BfcAllocator::Create(std::make_unique<DeviceSubAllocator>(), options));
    DeviceAttributes attrs;
    attrs.set_name(absl::StrCat(task, "/device:GPU:0"));
    attrs.set_device_type("GPU");
    attrs.set_incarnation(424242);
    auto gpu = std::make_unique<FakeGpu>(attrs, std::move(arena), pool);
    the_gpu = gpu.get();
    std::vector<std::unique_ptr<Device>> out;
    out.push_back(std::move(gpu));
    return out;
  };
}

std::string Get(const std::string& url, const std::string& path) {
  httplib::Client client(url);
  client.set_read_timeout(10, 0);
  client.set_connection_timeout(10, 0);
  httplib::Result r = client.Get(path.c_str());
  if (!r || r->status != 200) return "";
  return r->body;
}

TEST_CASE(
    "status page: a device with an arena of its own shows its memory in a "
    "table and in dfx_device_memory gauges") {
  ScopedMoreDevices fake(OneFakeGpu());
  absl::StatusOr<std::unique_ptr<GrpcServer>> server;
  for (int attempt = 0; attempt < 3 && !server.ok(); ++attempt) {
    absl::StatusOr<int> port = PickFreeLoopbackPort();
    REQUIRE(port.ok());
    GrpcServerOptions options;
    absl::StatusOr<ClusterDef> cluster = ParseClusterJson(
        absl::StrCat(R"({"worker": ["127.0.0.1:)", *port, R"("]})"));
    REQUIRE(cluster.ok());
    options.cluster = *cluster;
    options.job_name = "worker";
    options.inter_op_threads = 2;
    options.intra_op_threads = 1;
    options.http_port = 0;
    server = GrpcServer::Create(options);
  }
  REQUIRE(server.ok());
  REQUIRE(the_gpu != nullptr);
  const std::string device = "/job:worker/replica:0/task:0/device:GPU:0";

  // 1 MiB in use, then freed: the peak stays.
  absl::StatusOr<void*> block = the_gpu->arena()->Allocate(size_t{1} << 20);
  REQUIRE(block.ok());
  const std::string url = (*server)->status_url();
  absl::StatusOr<testing::MetricsText> metrics =
      testing::ParseMetricsText(Get(url, "/metrics"));
  REQUIRE(metrics.ok());
  const std::string label = absl::StrCat("{device=\"", device, "\"}");
  CHECK(metrics->Get("dfx_device_memory_in_use_bytes" + label) == 1 << 20);
  CHECK(metrics->Get("dfx_device_memory_limit_bytes" + label) == 64 << 20);
  CHECK(metrics->Get("dfx_device_memory_reserved_bytes" + label) >= 1 << 20);
  const std::string page = Get(url, "/");
  CHECK_THAT(page, Catch::Contains("<table id=\"device-memory\">"));
  CHECK_THAT(page, Catch::Contains(device));
  CHECK_THAT(page, Catch::Contains("GPU_0_bfc"));
  CHECK_THAT(page, Catch::Contains("1.0 MiB (1.6%)"));
  // The CPU shares the host allocator: no row of its own.
  CHECK_THAT(page, !Catch::Contains("device:CPU:0</td>"));

  the_gpu->arena()->Deallocate(*block);
  metrics = testing::ParseMetricsText(Get(url, "/metrics"));
  REQUIRE(metrics.ok());
  CHECK(metrics->Get("dfx_device_memory_in_use_bytes" + label) == 0);
  CHECK(metrics->Get("dfx_device_memory_peak_bytes" + label) == 1 << 20);

  // Once the server is gone, so are its device gauges.
  (*server)->Stop();
  server->reset();
  the_gpu = nullptr;
  CHECK_THAT(MetricsRegistry::Default().RenderText(),
             !Catch::Contains("dfx_device_memory_in_use_bytes{"));
}

}  // namespace
}  // namespace dfx

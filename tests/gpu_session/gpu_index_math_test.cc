// What the GPU's Tile, Slice, StridedSlice and StridedSliceGrad kernels
// (gpu/kernels/index_gpu.cc) compute, run on the host: the CPU kernels'
// plan, SimplifiedStridedCopy, the kernel's walk (MakeIndexCopyDims) and
// its per-element offsets (IndexCopyOffsets, what each CUDA thread
// computes), against the CPU kernels on random shapes and subscripts.
// Needs no GPU (it runs in every CUDA build); the [gpu] tests in
// gpu_kernels_test.cc check the launches themselves.
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "gpu/kernels/index_gpu.h"
#include "kernels/array/index_util.h"
#include "runtime/session.h"
#include "tests/gpu_session/cpu_session_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using array_internal::IndexPlan;
using testing::OnCpu;

// The GPU kernel's output for `plan`, computed on the host: a view or the
// strided copy element by element as the CUDA threads make it.
Tensor AsTheGpuWould(const Tensor& source, const IndexPlan& plan) {
  Tensor out(source.dtype(), plan.shape);
  const int64_t e = DataTypeSize(source.dtype());
  const char* src = static_cast<const char*>(source.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  if (plan.kind == IndexPlan::Kind::kForward) {
    std::memcpy(dst, src, source.TotalBytes());
    return out;
  }
  if (plan.kind == IndexPlan::Kind::kRows) {
    const int64_t row =
        source.dim_size(0) == 0 ? 0 : source.NumElements() / source.dim_size(0);
    std::memcpy(dst, src + plan.row_begin * row * e, out.TotalBytes());
    return out;
  }
  std::memset(dst, plan.zero_first ? 0 : 0x5a, out.TotalBytes());
  if (out.NumElements() == 0 || source.NumElements() == 0) return out;
  const array_internal::StridedCopySpec copy =
      array_internal::SimplifiedStridedCopy(plan.copy);
  gpu::IndexCopyDims p;
  int64_t n = 0;
  REQUIRE(gpu::MakeIndexCopyDims(static_cast<int>(copy.dims.size()),
                                 copy.dims.data(), copy.src_strides.data(),
                                 copy.dst_strides.data(), copy.src_offset,
                                 copy.dst_offset, &p, &n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t s, d;
    gpu::IndexCopyOffsets(p, i, &s, &d);
    REQUIRE(s >= 0);
    REQUIRE(s < source.NumElements());
    REQUIRE(d >= 0);
    REQUIRE(d < out.NumElements());
    std::memcpy(dst + d * e, src + s * e, e);
  }
  return out;
}

AttrValue Type(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
AttrValue Int(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}

TEST_CASE(
    "gpu index arithmetic on the host: Tile, Slice, StridedSlice and "
    "StridedSliceGrad give the CPU kernels' bytes") {
  std::mt19937 gen(11);
  auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(gen() % static_cast<unsigned>(hi - lo + 1));
  };
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    const int rank = pick(1, 4);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d)
      dims.push_back(pick(round % 7 == 0 ? 0 : 1, 4));
    Tensor x(DT_INT64, *TensorShape::Build(dims));
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<int64_t>()[i] = i + 1;
    const int op = round % 4;
    INFO("round " << round << " op " << op);
    std::vector<Tensor> inputs;
    std::map<std::string, AttrValue> attrs = {{"T", Type(DT_INT64)}};
    IndexPlan plan;
    absl::Status planned;
    std::string name;
    const Tensor* source = &x;
    Tensor dy;
    if (op == 0) {
      std::vector<int32_t> m;
      for (int d = 0; d < rank; ++d) m.push_back(pick(0, 3));
      name = "Tile";
      attrs["Tmultiples"] = Type(DT_INT32);
      inputs = {x, Tensor::FromVector<int32_t>(m)};
      planned = array_internal::PlanTile(x, inputs[1], &plan);
    } else if (op == 1) {
      std::vector<int32_t> begin, size;
      for (int d = 0; d < rank; ++d) {
        begin.push_back(pick(0, static_cast<int>(dims[d])));
        size.push_back(pick(-1, static_cast<int>(dims[d]) - begin.back()));
      }
      name = "Slice";
      attrs["Index"] = Type(DT_INT32);
      inputs = {x, Tensor::FromVector<int32_t>(begin),
                Tensor::FromVector<int32_t>(size)};
      planned = array_internal::PlanSlice(x, inputs[1], inputs[2], &plan);
    } else {
      std::vector<int32_t> begin, end, strides;
      const int n = pick(1, rank);
      for (int d = 0; d < n; ++d) {
        begin.push_back(pick(-5, 5));
        end.push_back(pick(-5, 5));
        int s = pick(-2, 2);
        strides.push_back(s == 0 ? 1 : s);
      }
      StridedSliceMasks masks;
      masks.begin_mask = pick(0, 15);
      masks.end_mask = pick(0, 15);
      masks.shrink_axis_mask = round % 3 == 0 ? pick(0, 3) : 0;
      masks.new_axis_mask = round % 5 == 0 ? pick(0, 3) : 0;
      attrs["Index"] = Type(DT_INT32);
      attrs["begin_mask"] = Int(masks.begin_mask);
      attrs["end_mask"] = Int(masks.end_mask);
      attrs["ellipsis_mask"] = Int(0);
      attrs["new_axis_mask"] = Int(masks.new_axis_mask);
      attrs["shrink_axis_mask"] = Int(masks.shrink_axis_mask);
      const Tensor b = Tensor::FromVector<int32_t>(begin);
      const Tensor e = Tensor::FromVector<int32_t>(end);
      const Tensor s = Tensor::FromVector<int32_t>(strides);
      if (op == 2) {
        name = "StridedSlice";
        inputs = {x, b, e, s};
        planned = array_internal::PlanStridedSlice(x, b, e, s, masks, &plan);
      } else {
        // The gradient of the same slice, dy shaped as its output.
        IndexPlan forward;
        if (!array_internal::PlanStridedSlice(x, b, e, s, masks, &forward)
                 .ok()) {
          continue;
        }
        dy = Tensor(DT_INT64, forward.shape);
        for (int64_t i = 0; i < dy.NumElements(); ++i) {
          dy.data<int64_t>()[i] = 100 + i;
        }
        name = "StridedSliceGrad";
        std::vector<int32_t> shape(dims.begin(), dims.end());
        inputs = {Tensor::FromVector<int32_t>(shape), b, e, s, dy};
        planned = array_internal::PlanStridedSliceGrad(inputs[0], b, e, s, dy,
                                                       masks, &plan);
        source = &dy;
      }
    }
    const absl::StatusOr<Tensor> cpu = OnCpu(name, inputs, attrs);
    INFO(name << " " << x.shape().DebugString() << ": "
              << (cpu.ok() ? std::string("ok") : cpu.status().ToString()));
    // One planning for both devices: the same verdict.
    REQUIRE(cpu.ok() == planned.ok());
    if (!cpu.ok()) {
      CHECK(std::string(cpu.status().message())
                .find(std::string(planned.message())) != std::string::npos);
      continue;
    }
    const Tensor gpu = AsTheGpuWould(*source, plan);
    REQUIRE(gpu.shape() == cpu->shape());
    CHECK(std::memcmp(gpu.raw_data(), cpu->raw_data(), gpu.TotalBytes()) == 0);
    ++compared;
  }
  CHECK(compared > 200);
}

}  // namespace
}  // namespace dfx

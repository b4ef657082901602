// The sparse optimizer kernels (SparseApply*, ResourceSparseApply*): rows
// named by indices, duplicates applied in order, against the reference
// model; large updates split over the intra-op pool (by columns, or by row
// ranges) keep that order; bad indices and shapes.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/training_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::FindOptimizer;
using testing::IsOk;
using testing::MakeUpdate;
using testing::Optimizer;
using testing::Optimizers;
using testing::ReferenceUpdate;
using testing::RunUpdate;
using testing::StatusIs;
using testing::Tolerance;
using testing::ToleranceRatio;
using testing::Update;
using testing::UpdateResult;

// An update of rows `indices` of a variable of `shape`.
Update SparseUpdate(const Optimizer& opt, const std::string& op, DataType dtype,
                    std::vector<int64_t> shape, std::vector<int64_t> indices,
                    DataType index_type = DT_INT32, uint32_t seed = 1) {
  Update u = MakeUpdate(opt, op, dtype, std::move(shape),
                        static_cast<int64_t>(indices.size()), seed);
  u.indices = std::move(indices);
  u.index_type = index_type;
  return u;
}

void CheckAgainstReference(const std::string& optimizer, const Update& u) {
  INFO(u.op << " T=" << DataTypeString(u.dtype)
            << " Tindices=" << DataTypeString(u.index_type));
  const UpdateResult got = RunUpdate(u);
  REQUIRE_OK(got.status);
  const auto [rtol, atol] = Tolerance(u.dtype);
  CHECK(ToleranceRatio(got.vars, ReferenceUpdate(optimizer, u), rtol, atol) <=
        1.0);
  if (u.op.rfind("Resource", 0) != 0) CHECK(got.forwarded_ref);
}

// Every sparse form: (op, optimizer).
std::vector<std::pair<std::string, const Optimizer*>> SparseOps() {
  std::vector<std::pair<std::string, const Optimizer*>> ops;
  for (const Optimizer& opt : Optimizers()) {
    if (!opt.sparse) continue;
    ops.emplace_back("ResourceSparseApply" + opt.name, &opt);
    if (opt.sparse_ref) ops.emplace_back("SparseApply" + opt.name, &opt);
  }
  return ops;
}

TEST_CASE(
    "Each sparse optimizer updates the indexed rows, duplicates in "
    "order, in every type and both forms",
    "[training]") {
  for (const auto& [op, opt] : SparseOps()) {
    for (DataType dtype : opt->sparse_types) {
      for (DataType index_type : {DT_INT32, DT_INT64}) {
        CheckAgainstReference(
            opt->name,
            SparseUpdate(*opt, op, dtype, {5, 3}, {1, 3, 1, 4}, index_type));
      }
    }
  }
}

TEST_CASE(
    "Sparse updates of rows of one element, rank-3 variables and no "
    "indices",
    "[training]") {
  for (const auto& [op, opt] : SparseOps()) {
    CheckAgainstReference(opt->name,
                          SparseUpdate(*opt, op, DT_DOUBLE, {6}, {5, 0, 5, 2}));
    CheckAgainstReference(
        opt->name, SparseUpdate(*opt, op, DT_FLOAT, {4, 2, 3}, {3, 0, 3}));
    const Update none = SparseUpdate(*opt, op, DT_FLOAT, {5, 3}, {});
    const UpdateResult got = RunUpdate(none);
    REQUIRE_OK(got.status);
    CHECK(got.vars == none.vars);
  }
}

// n indices into `rows` rows, every row several times, scrambled.
std::vector<int64_t> Scrambled(int64_t n, int64_t rows) {
  std::vector<int64_t> idx(n);
  for (int64_t i = 0; i < n; ++i) idx[i] = (i * 7919) % rows;
  return idx;
}

TEST_CASE(
    "Large sparse updates split over the intra-op pool keep the order "
    "of duplicate rows",
    "[training]") {
  for (const char* name : {"Momentum", "Adagrad", "Ftrl", "RMSProp"}) {
    const Optimizer& opt = FindOptimizer(name);
    const std::string op = std::string("ResourceSparseApply") + name;
    // Narrow rows: split by row ranges, each row named three times.
    CheckAgainstReference(name,
                          SparseUpdate(opt, op, DT_DOUBLE, {20000, 2},
                                       Scrambled(60000, 20000), DT_INT64));
    // Wide rows: split by columns.
    CheckAgainstReference(
        name, SparseUpdate(opt, op, DT_DOUBLE, {16, 1500}, Scrambled(48, 16)));
    // Rows of one element.
    CheckAgainstReference(
        name, SparseUpdate(opt, op, DT_FLOAT, {5000}, Scrambled(40000, 5000)));
  }
}

// --- Bad input.

TEST_CASE(
    "An index out of range is InvalidArgument naming it, no row is "
    "touched",
    "[training]") {
  const Optimizer& adagrad = FindOptimizer("Adagrad");
  for (const char* op : {"SparseApplyAdagrad", "ResourceSparseApplyAdagrad"}) {
    for (DataType index_type : {DT_INT32, DT_INT64}) {
      Update u =
          SparseUpdate(adagrad, op, DT_FLOAT, {5, 3}, {0, 2, 5}, index_type);
      UpdateResult got = RunUpdate(u);
      CHECK_THAT(got.status,
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Index 5 at offset 2 in indices is out of range"));
      CHECK(got.vars == u.vars);
      u.indices = {-1, 0, 1};
      got = RunUpdate(u);
      CHECK_THAT(got.status,
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Index -1 at offset 0 in indices is out of range"));
      CHECK(got.vars == u.vars);
    }
  }
  // KerasMomentum words it as the scatter ops do.
  Update k = SparseUpdate(FindOptimizer("KerasMomentum"),
                          "ResourceSparseApplyKerasMomentum", DT_DOUBLE, {5, 3},
                          {4, 9}, DT_INT64);
  CHECK_THAT(RunUpdate(k).status, StatusIs(absl::StatusCode::kInvalidArgument,
                                           "indices[1] = 9 is not in [0, 5)"));
}

TEST_CASE("Sparse shapes: indices a vector, grad = indices + var rows",
          "[training]") {
  const Optimizer& momentum = FindOptimizer("Momentum");
  Update u =
      SparseUpdate(momentum, "SparseApplyMomentum", DT_FLOAT, {5, 3}, {1, 2});
  u.override_inputs["indices"] =
      Tensor::FromVector<int32_t>({1, 2}, TensorShape({2, 1}));
  CHECK_THAT(RunUpdate(u).status, StatusIs(absl::StatusCode::kInvalidArgument,
                                           "indices must be one-dimensional"));

  u = SparseUpdate(momentum, "SparseApplyMomentum", DT_FLOAT, {5, 3}, {1, 2});
  u.indices = {1, 2, 3};
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "grad must be the same size as indices in the first "
                      "dimension"));

  u = SparseUpdate(momentum, "ResourceSparseApplyMomentum", DT_FLOAT, {5, 3},
                   {1, 2});
  u.grad_shape = {2, 4};
  u.grad.resize(8, 0.5);
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "var and grad must match in dimension 1"));

  u = SparseUpdate(momentum, "ResourceSparseApplyMomentum", DT_FLOAT, {5, 3},
                   {1, 2});
  u.grad_shape = {6};
  CHECK_THAT(RunUpdate(u).status, StatusIs(absl::StatusCode::kInvalidArgument,
                                           "grad must have the rank of var"));

  u = SparseUpdate(momentum, "ResourceSparseApplyMomentum", DT_FLOAT, {}, {0});
  u.grad_shape = {1};
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "var must be at least 1 dimensional"));
}

TEST_CASE(
    "Rows of zero elements: an error where TensorFlow checks, a no-op "
    "elsewhere",
    "[training]") {
  Update a = SparseUpdate(FindOptimizer("Adagrad"), "SparseApplyAdagrad",
                          DT_FLOAT, {5, 0}, {1, 2});
  CHECK_THAT(RunUpdate(a).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Inner dimension should be greater than zero."));
  Update m = SparseUpdate(FindOptimizer("Momentum"), "SparseApplyMomentum",
                          DT_FLOAT, {5, 0}, {1, 2});
  CHECK_THAT(RunUpdate(m).status, IsOk());
  // Indices are still checked.
  m.indices = {1, 7};
  CHECK_THAT(RunUpdate(m).status,
             StatusIs(absl::StatusCode::kInvalidArgument, "Index 7"));
}

TEST_CASE("Sparse Ftrl checks its hyper-parameters' ranges", "[training]") {
  const Optimizer& ftrl = FindOptimizer("FtrlV2");
  auto with = [&](const char* name, double value, bool multiply = false) {
    Update u = SparseUpdate(ftrl, "ResourceSparseApplyFtrlV2", DT_DOUBLE,
                            {5, 3}, {1, 2});
    u.hyper[name] = value;
    u.attrs["multiply_linear_by_lr"] = multiply;
    return RunUpdate(u).status;
  };
  CHECK_THAT(with("lr", 0.0), StatusIs(absl::StatusCode::kInvalidArgument,
                                       "lr is not a positive scalar: []"));
  CHECK_THAT(with("lr", 0.0, /*multiply=*/true), IsOk());
  CHECK_THAT(with("lr", -0.1, /*multiply=*/true),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "lr is not a positive scalar (or zero if "
                      "multiply_linear_by_lr is set)"));
  CHECK_THAT(with("l1", -0.1),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "l1 regularization strength is not a non-negative"));
  CHECK_THAT(with("l2", -0.1),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "l2 regularization strength is not a non-negative"));
  CHECK_THAT(with("l2_shrinkage", -0.1),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "l2 shrinkage regularization strength is not a "
                      "non-negative"));
  CHECK_THAT(with("lr_power", 0.5),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "lr_power is not a non-positive scalar"));
}

}  // namespace
}  // namespace dfx

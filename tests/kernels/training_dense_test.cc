// The dense optimizer kernels (Apply*, ResourceApply*): one step of each
// against a plain reference model of TensorFlow's rules, in every type and
// both forms, attr variants, large variables split over the intra-op pool,
// and bad input.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/training_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::FindOptimizer;
using testing::FloatTensor;
using testing::MakeUpdate;
using testing::MakeVariable;
using testing::Optimizer;
using testing::Optimizers;
using testing::ReferenceUpdate;
using testing::RunUpdate;
using testing::StatusIs;
using testing::Tolerance;
using testing::ToleranceRatio;
using testing::Update;
using testing::UpdateResult;
using testing::VariableHandle;

std::string TypeName(DataType t) { return DataTypeString(t); }

// Runs `u` and checks it against the reference model.
void CheckAgainstReference(const std::string& optimizer, const Update& u) {
  INFO(u.op << " T=" << TypeName(u.dtype));
  const UpdateResult got = RunUpdate(u);
  REQUIRE_OK(got.status);
  const auto [rtol, atol] = Tolerance(u.dtype);
  CHECK(ToleranceRatio(got.vars, ReferenceUpdate(optimizer, u), rtol, atol) <=
        1.0);
  if (u.op.rfind("Resource", 0) != 0) CHECK(got.forwarded_ref);
}

TEST_CASE(
    "Each dense optimizer takes TensorFlow's step, in every type and "
    "both forms",
    "[training]") {
  for (const Optimizer& opt : Optimizers()) {
    for (DataType dtype : opt.types) {
      CheckAgainstReference(
          opt.name, MakeUpdate(opt, "ResourceApply" + opt.name, dtype, {3, 4}));
      if (opt.ref) {
        CheckAgainstReference(
            opt.name, MakeUpdate(opt, "Apply" + opt.name, dtype, {3, 4}));
      }
    }
  }
}

TEST_CASE("Dense updates of vectors, scalars and empty variables",
          "[training]") {
  for (const Optimizer& opt : Optimizers()) {
    CheckAgainstReference(
        opt.name, MakeUpdate(opt, "ResourceApply" + opt.name, DT_DOUBLE, {7}));
    CheckAgainstReference(
        opt.name, MakeUpdate(opt, "ResourceApply" + opt.name, DT_FLOAT, {}));
    CheckAgainstReference(opt.name, MakeUpdate(opt, "ResourceApply" + opt.name,
                                               DT_FLOAT, {0, 3}));
  }
}

TEST_CASE(
    "Nesterov momentum, Adagrad without slot updates, Ftrl's "
    "variants and l1 = 0",
    "[training]") {
  for (const char* name : {"Momentum", "KerasMomentum", "Adam"}) {
    Update u =
        MakeUpdate(FindOptimizer(name), std::string("ResourceApply") + name,
                   DT_DOUBLE, {2, 5});
    u.attrs["use_nesterov"] = true;
    CheckAgainstReference(name, u);
  }
  for (const char* name : {"Adagrad", "AdagradV2"}) {
    Update u = MakeUpdate(FindOptimizer(name), std::string("Apply") + name,
                          DT_FLOAT, {2, 5});
    u.attrs["update_slots"] = false;
    CheckAgainstReference(name, u);
    // The accumulator is left as it was.
    const UpdateResult got = RunUpdate(u);
    REQUIRE_OK(got.status);
    CHECK(got.vars[1] == u.vars[1]);
  }
  for (const char* name : {"Ftrl", "FtrlV2"}) {
    for (bool multiply : {false, true}) {
      for (double power : {-0.5, -0.7, 0.0}) {
        Update u =
            MakeUpdate(FindOptimizer(name), std::string("ResourceApply") + name,
                       DT_DOUBLE, {2, 5});
        u.attrs["multiply_linear_by_lr"] = multiply;
        u.hyper["lr_power"] = power;
        INFO("multiply_linear_by_lr=" << multiply << " lr_power=" << power);
        CheckAgainstReference(name, u);
      }
    }
  }
  for (const char* name :
       {"ProximalGradientDescent", "ProximalAdagrad", "AdagradDA", "Ftrl"}) {
    Update u =
        MakeUpdate(FindOptimizer(name), std::string("ResourceApply") + name,
                   DT_DOUBLE, {2, 5});
    u.hyper["l1"] = 0;
    CheckAgainstReference(name, u);
  }
}

TEST_CASE(
    "Adam's step by hand: lr_t = lr*sqrt(1-beta2^t)/(1-beta1^t), "
    "epsilon added to sqrt(v)",
    "[training]") {
  Update u;
  u.op = "ResourceApplyAdam";
  u.shape = {1};
  u.vars = {{1.0}, {0.5}, {0.25}};
  u.hyper = {{"beta1_power", 0.9}, {"beta2_power", 0.999}, {"lr", 0.1},
             {"beta1", 0.9},       {"beta2", 0.999},       {"epsilon", 0.01}};
  u.grad = {2.0};
  const UpdateResult got = RunUpdate(u);
  REQUIRE_OK(got.status);
  const double m = 0.5 + (2.0 - 0.5) * 0.1;          // 0.65
  const double v = 0.25 + (4.0 - 0.25) * 0.001;      // 0.25375
  const double lr_t = 0.1 * std::sqrt(0.001) / 0.1;  // sqrt(0.001)
  const double var = 1.0 - lr_t * m / (std::sqrt(v) + 0.01);
  CHECK(got.vars[1][0] == Approx(m).epsilon(1e-15));
  CHECK(got.vars[2][0] == Approx(v).epsilon(1e-15));
  CHECK(got.vars[0][0] == Approx(var).epsilon(1e-14));
}

TEST_CASE("RMSProp's step by hand: ms first, then mom, then var",
          "[training]") {
  Update u;
  u.op = "ApplyRMSProp";
  u.dtype = DT_DOUBLE;
  u.shape = {1};
  u.vars = {{1.0}, {0.5}, {0.2}};
  u.hyper = {{"lr", 0.1}, {"rho", 0.9}, {"momentum", 0.5}, {"epsilon", 0.01}};
  u.grad = {2.0};
  const UpdateResult got = RunUpdate(u);
  REQUIRE_OK(got.status);
  const double ms = 0.5 + (4.0 - 0.5) * 0.1;  // 0.85
  const double mom = 0.2 * 0.5 + 0.1 * 2.0 / std::sqrt(ms + 0.01);
  CHECK(got.vars[1][0] == Approx(ms).epsilon(1e-15));
  CHECK(got.vars[2][0] == Approx(mom).epsilon(1e-15));
  CHECK(got.vars[0][0] == Approx(1.0 - mom).epsilon(1e-15));
  CHECK(got.forwarded_ref);
}

TEST_CASE(
    "Large dense updates split over the intra-op pool equal the "
    "element-by-element reference",
    "[training]") {
  for (const char* name : {"Adam", "Ftrl", "CenteredRMSProp", "Momentum"}) {
    CheckAgainstReference(name, MakeUpdate(FindOptimizer(name),
                                           std::string("ResourceApply") + name,
                                           DT_FLOAT, {300, 257}));
  }
  CheckAgainstReference(
      "Adagrad",
      MakeUpdate(FindOptimizer("Adagrad"), "ApplyAdagrad", DT_HALF, {100003}));
}

// --- Bad input.

TEST_CASE(
    "An uninitialized variable fails the update with FailedPrecondition, "
    "a missing one with NotFound",
    "[training]") {
  Update u =
      MakeUpdate(FindOptimizer("Momentum"), "ApplyMomentum", DT_FLOAT, {2, 3});
  u.override_inputs["accum"];  // a default, uninitialized Tensor
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kFailedPrecondition, "uninitialized"));

  u.op = "ResourceApplyMomentum";
  u.override_inputs["accum"] = VariableHandle("train_no_such_variable");
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kNotFound, "train_no_such_variable"));
}

TEST_CASE(
    "Slots of another shape than var are InvalidArgument, var "
    "untouched",
    "[training]") {
  Update u = MakeUpdate(FindOptimizer("Adam"), "ApplyAdam", DT_FLOAT, {2, 3});
  u.override_inputs["v"] = FloatTensor(DT_FLOAT, {3, 2}, {1, 1, 1, 1, 1, 1});
  UpdateResult got = RunUpdate(u);
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kInvalidArgument,
                                  "var and v do not have the same shape"));
  CHECK(got.vars[0] == u.vars[0]);

  u.op = "ResourceApplyAdam";
  u.override_inputs["v"] = MakeVariable(
      "train_other", FloatTensor(DT_FLOAT, {6}, {1, 1, 1, 1, 1, 1}));
  got = RunUpdate(u);
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kInvalidArgument,
                                  "var and v do not have the same shape"));
  CHECK(got.vars[0] == u.vars[0]);
}

TEST_CASE("A gradient of another shape is InvalidArgument", "[training]") {
  Update u = MakeUpdate(FindOptimizer("GradientDescent"),
                        "ResourceApplyGradientDescent", DT_DOUBLE, {2, 3});
  u.grad_shape = {3, 2};
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "var and delta do not have the same shape"));
  u.grad_shape = {6};
  CHECK_THAT(RunUpdate(u).status, StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("Hyper-parameters must be scalars", "[training]") {
  Update u =
      MakeUpdate(FindOptimizer("Adam"), "ResourceApplyAdam", DT_FLOAT, {2, 3});
  u.override_inputs["lr"] = FloatTensor(DT_FLOAT, {2}, {0.1, 0.1});
  UpdateResult got = RunUpdate(u);
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kInvalidArgument,
                                  "lr is not a scalar: [2]"));
  CHECK(got.vars[0] == u.vars[0]);
  u.override_inputs.clear();
  u.override_inputs["beta2_power"] = FloatTensor(DT_FLOAT, {1}, {0.5});
  CHECK_THAT(RunUpdate(u).status, StatusIs(absl::StatusCode::kInvalidArgument,
                                           "beta2_power is not a scalar"));

  Update da =
      MakeUpdate(FindOptimizer("AdagradDA"), "ApplyAdagradDA", DT_FLOAT, {2});
  da.override_inputs["global_step"] = Tensor::FromVector<int64_t>({1, 2});
  CHECK_THAT(RunUpdate(da).status, StatusIs(absl::StatusCode::kInvalidArgument,
                                            "global_step is not a scalar"));
}

TEST_CASE(
    "ProximalAdagrad needs lr > 0 and l1, l2 >= 0, dense Ftrl takes "
    "any lr, as TensorFlow",
    "[training]") {
  Update u = MakeUpdate(FindOptimizer("ProximalAdagrad"),
                        "ResourceApplyProximalAdagrad", DT_DOUBLE, {4});
  u.hyper["lr"] = 0;
  CHECK_THAT(RunUpdate(u).status, StatusIs(absl::StatusCode::kInvalidArgument,
                                           "lr is not a positive scalar"));
  u.hyper["lr"] = 0.1;
  u.hyper["l1"] = -0.5;
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "l1 regularization strength is not a non-negative "
                      "scalar"));

  Update f = MakeUpdate(FindOptimizer("Ftrl"), "ApplyFtrl", DT_DOUBLE, {4});
  f.hyper["lr"] = -0.1;
  CheckAgainstReference("Ftrl", f);
}

TEST_CASE("A resource variable of another type than T is InvalidArgument",
          "[training]") {
  Update u = MakeUpdate(FindOptimizer("GradientDescent"),
                        "ResourceApplyGradientDescent", DT_DOUBLE, {3});
  u.override_inputs["var"] =
      MakeVariable("train_float_var", FloatTensor(DT_FLOAT, {3}, {1, 2, 3}));
  CHECK_THAT(RunUpdate(u).status,
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "var is a float variable, but the op updates double"));
}

TEST_CASE("No kernel for types TensorFlow has none for", "[training]") {
  const Optimizer& adamax = FindOptimizer("AdaMax");
  Update u = MakeUpdate(adamax, "ApplyAdaMax", DT_BFLOAT16, {2});
  CHECK_THAT(RunUpdate(u).status, StatusIs(absl::StatusCode::kNotFound));
  Update p = MakeUpdate(FindOptimizer("ProximalAdagrad"),
                        "ApplyProximalAdagrad", DT_HALF, {2});
  CHECK_THAT(RunUpdate(p).status, StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace dfx

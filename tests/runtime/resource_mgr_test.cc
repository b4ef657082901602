// ResourceMgr: containers, lookup by type, cleanup; and DT_RESOURCE tensors
// (ResourceHandle elements) through TensorProto both ways.
#include "runtime/resource_mgr.h"

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

TEST_CASE("resources are found by container, name and type") {
  ResourceMgr mgr;
  REQUIRE(mgr.Create("", "v", std::make_shared<Var>(DT_FLOAT)).ok());
  // The empty container is the default one.
  auto v = mgr.Lookup<Var>("localhost", "v");
  REQUIRE(v.ok());
  CHECK((*v)->dtype() == DT_FLOAT);
  CHECK_THAT(mgr.Create("localhost", "v", std::make_shared<Var>(DT_INT32)),
             StatusIs(absl::StatusCode::kAlreadyExists));
  CHECK_THAT(mgr.Lookup<Var>("other", "v").status(),
             StatusIs(absl::StatusCode::kNotFound, "other/v"));
  // A reference variable of the same name is another resource.
  CHECK_THAT(mgr.Lookup<LegacyVar>("", "v").status(),
             StatusIs(absl::StatusCode::kNotFound));
  auto legacy = mgr.LookupOrCreate<LegacyVar>(
      "", "v", [] { return std::make_shared<LegacyVar>(DT_DOUBLE); });
  REQUIRE(legacy.ok());
  CHECK((*legacy)->dtype() == DT_DOUBLE);
  CHECK(mgr.List().size() == 2);
}

TEST_CASE("LookupOrCreate makes the resource once") {
  ResourceMgr mgr;
  int made = 0;
  auto make = [&] {
    ++made;
    return std::make_shared<Var>(DT_FLOAT);
  };
  auto a = mgr.LookupOrCreate<Var>("c", "x", make);
  auto b = mgr.LookupOrCreate<Var>("c", "x", make);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->get() == b->get());
  CHECK(made == 1);
}

TEST_CASE("Cleanup drops one container, a held resource lives on") {
  ResourceMgr mgr;
  REQUIRE(mgr.Create("a", "v", std::make_shared<Var>(DT_FLOAT)).ok());
  REQUIRE(mgr.Create("b", "v", std::make_shared<Var>(DT_FLOAT)).ok());
  auto held = mgr.Lookup<Var>("a", "v");
  REQUIRE(held.ok());
  mgr.Cleanup("a");
  mgr.Cleanup("never-existed");
  CHECK_THAT(mgr.Lookup<Var>("a", "v").status(),
             StatusIs(absl::StatusCode::kNotFound));
  CHECK(mgr.Lookup<Var>("b", "v").ok());
  CHECK((*held)->dtype() == DT_FLOAT);  // still usable by its holder
  CHECK_THAT(mgr.Delete("b", "v", Var::kTypeName), StatusIs(absl::StatusCode::kOk));
  CHECK_THAT(mgr.Delete("b", "v", Var::kTypeName),
             StatusIs(absl::StatusCode::kNotFound));
  mgr.Clear();
  CHECK(mgr.List().empty());
}

TEST_CASE("resource tensors travel through TensorProto") {
  Tensor t(DT_RESOURCE, TensorShape({2}));
  t.data<ResourceHandle>()[0].set_name("w");
  t.data<ResourceHandle>()[0].set_container("localhost");
  t.data<ResourceHandle>()[0].set_device(
      "/job:ps/replica:0/task:0/device:CPU:0");
  t.data<ResourceHandle>()[0].set_dtypes_and_shapes({{DT_FLOAT, {}}});
  t.data<ResourceHandle>()[1].set_name("b");
  for (bool content : {false, true}) {
    TensorProto proto;
    if (content) {
      t.AsProtoTensorContent(&proto);
    } else {
      t.AsProtoField(&proto);
    }
    CHECK(proto.resource_handle_val_size() == 2);
    auto back = Tensor::FromProto(proto);
    REQUIRE(back.ok());
    CHECK(back->data<ResourceHandle>()[0].name() == "w");
    CHECK(back->data<ResourceHandle>()[0].device() ==
          "/job:ps/replica:0/task:0/device:CPU:0");
    CHECK(back->data<ResourceHandle>()[0].dtypes_and_shapes().size() == 1);
    CHECK(back->data<ResourceHandle>()[1].name() == "b");
    CHECK(back->DeepCopy().data<ResourceHandle>()[1].name() == "b");
  }
  // TensorFlow's other spelling: serialized handles in tensor_content.
  TensorProto proto;
  proto.set_dtype(DT_RESOURCE);
  proto.mutable_tensor_shape();
  ResourceHandleProto h;
  h.set_name("z");
  const std::string bytes = h.SerializeAsString();
  proto.mutable_tensor_content()->push_back(static_cast<char>(bytes.size()));
  proto.mutable_tensor_content()->append(bytes);
  auto z = Tensor::FromProto(proto);
  REQUIRE(z.ok());
  CHECK(z->scalar<ResourceHandle>().name() == "z");
  proto.mutable_tensor_content()->push_back('x');
  CHECK_THAT(Tensor::FromProto(proto).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

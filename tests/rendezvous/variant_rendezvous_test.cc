// A DT_VARIANT tensor goes through the local rendezvous as it is: the
// receiver sees the very list the sender put in, not a copy.
#include "rendezvous/local_rendezvous.h"
#include "runtime/tensor_list.h"
#include "runtime/variant.h"
#include "tests/rendezvous/rendezvous_conformance.h"

namespace dfx {
namespace {

using testing::ConformanceKey;
using testing::RecvResult;

TEST_CASE("LocalRendezvous hands a TensorList over unchanged") {
  TensorList list(DT_FLOAT, PartialShape::Known({2}));
  list.tensors.push_back(Tensor::FromVector<float>({1, 2}));
  Tensor sent(DT_VARIANT, TensorShape());
  sent.scalar<Variant>() = Variant::Make<TensorList>(std::move(list));

  LocalRendezvous r;
  RecvResult got;
  r.RecvAsync(ConformanceKey("list"), {}, got.Callback());
  REQUIRE_OK(r.Send(ConformanceKey("list"), {}, sent, false));
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  REQUIRE(got.value.dtype() == DT_VARIANT);
  CHECK(got.value.SharesBufferWith(sent));
  CHECK(got.value.scalar<Variant>().get<TensorList>() ==
        sent.scalar<Variant>().get<TensorList>());
}

}  // namespace
}  // namespace dfx

#include "runtime/resource_handle.h"

#include "absl/strings/str_cat.h"

namespace dfx {

void ResourceHandle::AsProto(ResourceHandleProto* proto) const {
  proto->Clear();
  proto->set_device(device_);
  proto->set_container(container_);
  proto->set_name(name_);
  proto->set_hash_code(hash_code_);
  proto->set_maybe_type_name(maybe_type_name_);
  for (const DtypeAndShape& ds : dtypes_and_shapes_) {
    auto* out = proto->add_dtypes_and_shapes();
    out->set_dtype(ds.dtype);
    *out->mutable_shape() = ds.shape;
  }
}

void ResourceHandle::FromProto(const ResourceHandleProto& proto) {
  device_ = proto.device();
  container_ = proto.container();
  name_ = proto.name();
  hash_code_ = proto.hash_code();
  maybe_type_name_ = proto.maybe_type_name();
  dtypes_and_shapes_.clear();
  for (const auto& ds : proto.dtypes_and_shapes()) {
    dtypes_and_shapes_.push_back({ds.dtype(), ds.shape()});
  }
}

std::string ResourceHandle::DebugString() const {
  return absl::StrCat(container_, "/", name_, " on ",
                      device_.empty() ? "(no device)" : device_, " (",
                      maybe_type_name_.empty() ? "?" : maybe_type_name_, ")");
}

}  // namespace dfx

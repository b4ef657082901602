// ResourceHandle: the element type of DT_RESOURCE tensors. Names a resource
// (a variable, ...) in one device's ResourceMgr by container and name; the
// handle itself holds no pointer, so it can travel between tasks.
#ifndef DFX_RUNTIME_RESOURCE_HANDLE_H_
#define DFX_RUNTIME_RESOURCE_HANDLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/resource_handle.pb.h"
#include "proto/types.pb.h"
#include "proto/tensor_shape.pb.h"

namespace dfx {

class ResourceHandle {
 public:
  struct DtypeAndShape {
    DataType dtype = DT_INVALID;
    TensorShapeProto shape;
  };

  ResourceHandle() = default;

  const std::string& device() const { return device_; }
  void set_device(std::string v) { device_ = std::move(v); }
  const std::string& container() const { return container_; }
  void set_container(std::string v) { container_ = std::move(v); }
  const std::string& name() const { return name_; }
  void set_name(std::string v) { name_ = std::move(v); }
  uint64_t hash_code() const { return hash_code_; }
  void set_hash_code(uint64_t v) { hash_code_ = v; }
  // The resource's type ("Var"); a lookup checks it.
  const std::string& maybe_type_name() const { return maybe_type_name_; }
  void set_maybe_type_name(std::string v) { maybe_type_name_ = std::move(v); }
  const std::vector<DtypeAndShape>& dtypes_and_shapes() const {
    return dtypes_and_shapes_;
  }
  void set_dtypes_and_shapes(std::vector<DtypeAndShape> v) {
    dtypes_and_shapes_ = std::move(v);
  }

  void AsProto(ResourceHandleProto* proto) const;
  void FromProto(const ResourceHandleProto& proto);

  // "container/name on device (type)".
  std::string DebugString() const;

 private:
  std::string device_;
  std::string container_;
  std::string name_;
  uint64_t hash_code_ = 0;
  std::string maybe_type_name_;
  std::vector<DtypeAndShape> dtypes_and_shapes_;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_RESOURCE_HANDLE_H_

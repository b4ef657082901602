// The CPU kernels a device whose memory the host cannot read (a GPU) runs
// as they are, as TensorFlow's GPU registrations of the same ops do:
//  - ops that read only the shapes of their device-memory args (Shape,
//    Size, Rank) or forward the buffer under a new shape (Reshape,
//    ExpandDims, Squeeze), with the shape-like args in host memory;
//  - the int32 (and int64) shape arithmetic of a GPU's graph (int32 lives
//    in host memory there), computed on the host by the CPU kernel.
// Const, NoOp and the control-flow forwarders are registered for GPUs where
// their CPU kernels are.
#include <vector>

#include "kernels/kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {

void RegisterDeviceHostKernels(KernelRegistry* registry,
                               const std::string& device) {
  // Shapes only: the data stays where it is, the shape (int32 or int64)
  // is written to host memory.
  for (const char* op : {"Shape", "ShapeN", "Size", "Rank"}) {
    registry->RegisterCpuKernelOn(
        KernelDefBuilder(op).Device(device).HostMemory("output"));
  }
  registry->RegisterCpuKernelOn(
      KernelDefBuilder("Reshape").Device(device).HostMemory("shape"));
  registry->RegisterCpuKernelOn(
      KernelDefBuilder("ExpandDims").Device(device).HostMemory("dim"));
  registry->RegisterCpuKernelOn(KernelDefBuilder("Squeeze").Device(device));

  // Resource variables: the handles are host memory, the values stay where
  // they are (a GPU variable's tensor in its memory); the updates that
  // touch elements are the device's own kernels.
  for (const char* op : {"VarHandleOp", "ReadVariableOp", "AssignVariableOp",
                         "VarIsInitializedOp", "VariableShape",
                         "DestroyResourceOp"}) {
    registry->RegisterCpuKernelOn(KernelDefBuilder(op).Device(device));
  }

  // On the host: everything the gradients' shape arithmetic uses, in
  // int32 (host memory on a GPU) and int64 (a Size's count; an int64 input
  // in device memory is copied out first).
  const DataTypeVector int32 = {DT_INT32};
  const DataTypeVector ints = {DT_INT32, DT_INT64};
  for (const char* op :
       {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "FloorDiv",
        "FloorMod", "Neg", "Equal", "NotEqual", "Less", "LessEqual",
        "Greater", "GreaterEqual", "Unpack", "BroadcastGradientArgs",
        "BroadcastArgs", "InvertPermutation", "Sum", "Prod", "Max", "Min",
        "Cumsum", "DynamicStitch", "Select", "SelectV2"}) {
    registry->RegisterCpuKernelOn(KernelDefBuilder(op)
                                      .Device(device)
                                      .TypeConstraint("T", ints)
                                      .AllHostMemory());
  }
  // int32 only: the GPU kernels move int64 data (gpu/kernels/array_gpu.cc,
  // index_gpu.cc).
  for (const char* op :
       {"Pack", "ConcatV2", "Concat", "Fill", "Transpose", "ZerosLike",
        "OnesLike", "BroadcastTo", "Slice", "StridedSlice", "Tile"}) {
    registry->RegisterCpuKernelOn(KernelDefBuilder(op)
                                      .Device(device)
                                      .TypeConstraint("T", int32)
                                      .AllHostMemory());
  }
  // Casts from or to int32 (a shape's size into a float divisor).
  registry->RegisterCpuKernelOn(KernelDefBuilder("Cast")
                                    .Device(device)
                                    .TypeConstraint("SrcT", int32)
                                    .AllHostMemory());
  registry->RegisterCpuKernelOn(KernelDefBuilder("Cast")
                                    .Device(device)
                                    .TypeConstraint("DstT", int32)
                                    .AllHostMemory());
  registry->RegisterCpuKernelOn(KernelDefBuilder("Range")
                                    .Device(device)
                                    .TypeConstraint("Tidx", ints)
                                    .AllHostMemory());
  registry->RegisterCpuKernelOn(KernelDefBuilder("GatherV2")
                                    .Device(device)
                                    .TypeConstraint("Tparams", int32)
                                    .AllHostMemory());
}

}  // namespace dfx

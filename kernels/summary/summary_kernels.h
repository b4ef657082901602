// Registration of the summary family's kernel files; RegisterSummaryKernels
// (kernels/kernels.h, in summary_kernels.cc) calls each.
#ifndef DFX_KERNELS_SUMMARY_SUMMARY_KERNELS_H_
#define DFX_KERNELS_SUMMARY_SUMMARY_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::summary {

// SummaryWriter, CreateSummaryFileWriter, Write*Summary, WriteRawProtoSummary,
// WriteGraphSummary, FlushSummaryWriter, CloseSummaryWriter, ImportEvent
// (writer_kernels.cc).
void RegisterWriterKernels(KernelRegistry* registry);

}  // namespace dfx::summary

#endif  // DFX_KERNELS_SUMMARY_SUMMARY_KERNELS_H_

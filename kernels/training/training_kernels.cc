// RegisterTrainingKernels: the optimizer kernels of every family, CPU, for
// the variable types TensorFlow 2.21 registers on CPU (complex excepted).
#include "kernels/kernels.h"
#include "kernels/training/training_util.h"

namespace dfx {

void RegisterTrainingKernels(KernelRegistry* registry) {
  training::RegisterSgdKernels(registry);
  training::RegisterAdagradKernels(registry);
  training::RegisterAdamKernels(registry);
  training::RegisterRmsPropFtrlKernels(registry);
}

}  // namespace dfx

// CUDA kernels for the softmax family and the optimizer updates. Plain C++
// for nvcc (nn_gpu.cu) and g++ (the OpKernels). T is float or double (the
// softmax family also __half and __nv_bfloat16, computed in float);
// every launch enqueues on `stream` and returns the launch error.
#ifndef DFX_GPU_KERNELS_NN_GPU_H_
#define DFX_GPU_KERNELS_NN_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

// Row-wise over [rows, classes]: softmax, or log-softmax when `log`. Each
// row is shifted by its maximum first.
template <typename T>
cudaError_t LaunchSoftmax(cudaStream_t stream, const T* logits, T* out,
                          int64_t rows, int64_t classes, bool log);

// loss[r] = sum over c of labels[r][c] * (log_sum[r] - shifted[r][c]),
// backprop = softmax(logits) - labels (SoftmaxCrossEntropyWithLogits).
template <typename T>
cudaError_t LaunchSoftmaxXent(cudaStream_t stream, const T* logits,
                              const T* labels, T* loss, T* backprop,
                              int64_t rows, int64_t classes);

// loss[r] = log_sum[r] - shifted[r][labels[r]], backprop = softmax(logits)
// - one_hot(labels). REQUIRES: every label in [0, classes) (checked on the
// host). Index is int32_t or int64_t.
template <typename T, typename Index>
cudaError_t LaunchSparseSoftmaxXent(cudaStream_t stream, const T* logits,
                                    const Index* labels, T* loss,
                                    T* backprop, int64_t rows,
                                    int64_t classes);

// The optimizer updates, element-wise over n values; scalar
// hyper-parameters are read from device memory.
// var -= alpha * delta.
template <typename T>
cudaError_t LaunchApplyGradientDescent(cudaStream_t stream, T* var,
                                       const T* alpha, const T* delta,
                                       int64_t n);
// accum = accum * momentum + grad; var -= lr * (grad + momentum * accum)
// with Nesterov, else var -= lr * accum.
template <typename T>
cudaError_t LaunchApplyMomentum(cudaStream_t stream, T* var, T* accum,
                                const T* lr, const T* grad, const T* momentum,
                                bool nesterov, int64_t n);
// Keras' form, the learning rate folded into accum: accum = accum *
// momentum - grad * lr; var += accum * momentum - grad * lr with Nesterov,
// else var += accum.
template <typename T>
cudaError_t LaunchApplyKerasMomentum(cudaStream_t stream, T* var, T* accum,
                                     const T* lr, const T* grad,
                                     const T* momentum, bool nesterov,
                                     int64_t n);
// TensorFlow's Adam: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t);
// m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2);
// var -= lr_t * m / (sqrt(v) + epsilon) (Nesterov: (m * beta1 + (1 -
// beta1) * grad) in place of m).
template <typename T>
cudaError_t LaunchApplyAdam(cudaStream_t stream, T* var, T* m, T* v,
                            const T* beta1_power, const T* beta2_power,
                            const T* lr, const T* beta1, const T* beta2,
                            const T* epsilon, const T* grad, bool nesterov,
                            int64_t n);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_NN_GPU_H_

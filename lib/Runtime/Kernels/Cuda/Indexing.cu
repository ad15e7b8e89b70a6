//===- Indexing.cu - gather, gather_grad, cross-entropy's loss, layer_norm ===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Kernels that read indices record the first bad position with atomicMin
// (the caller reads it back and reports the index as the CPU kernel does).
// gather copies rows as 4-byte words when they allow it, bytes otherwise;
// gather_grad adds rows with atomicAdd, as layer_norm_grad does dgamma and
// dbeta. layer_norm and layer_norm_grad give each row one block
// and reduces its sums in shared memory, two passes (mean, then the
// variance about it), as the CPU's oneDNN primitive computes them.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/Grid.cuh"
#include "Kernels/Cuda/Launch.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

/// The row an index names in this piece of the table, or -1 (outside the
/// piece, or a bad index: recorded).
template <typename I>
__device__ int64_t rowOf(const I *indices, int64_t j, int64_t dim,
                         int64_t begin, int64_t limit, int64_t *firstBad) {
  int64_t index = static_cast<int64_t>(indices[j]);
  if (index < -limit || index >= limit) {
    atomicMin(reinterpret_cast<unsigned long long *>(firstBad),
              static_cast<unsigned long long>(j));
    return -1;
  }
  int64_t row = (index < 0 ? index + limit : index) - begin;
  return row >= 0 && row < dim ? row : -1;
}

template <typename W, typename I>
__global__ void gatherKernel(const W *x, const I *indices, W *y, int64_t outer,
                             int64_t dim, int64_t count, int64_t rowWords,
                             int64_t begin, int64_t limit, int64_t *firstBad) {
  GRID_LOOP(i, outer * count * rowWords) {
    int64_t k = i % rowWords, j = (i / rowWords) % count,
            o = i / (rowWords * count);
    int64_t row = rowOf(indices, j, dim, begin, limit, firstBad);
    y[i] = row < 0 ? W(0) : x[(o * dim + row) * rowWords + k];
  }
}

template <typename T, typename I>
__global__ void gatherGradKernel(const T *dy, const I *indices, T *dx,
                                 int64_t outer, int64_t dim, int64_t count,
                                 int64_t inner, int64_t begin, int64_t limit,
                                 int64_t *firstBad) {
  GRID_LOOP(i, outer * count * inner) {
    int64_t k = i % inner, j = (i / inner) % count, o = i / (inner * count);
    int64_t row = rowOf(indices, j, dim, begin, limit, firstBad);
    if (row >= 0)
      atomicAdd(&dx[(o * dim + row) * inner + k], dy[i]);
  }
}

template <typename T, typename L>
__global__ void pickLossKernel(const T *logProb, const L *labels, T *loss,
                               int64_t rows, int64_t classes,
                               int64_t *firstBad) {
  GRID_LOOP(i, rows) {
    int64_t label = static_cast<int64_t>(labels[i]);
    if (label < 0 || label >= classes) {
      atomicMin(reinterpret_cast<unsigned long long *>(firstBad),
                static_cast<unsigned long long>(i));
      loss[i] = T(0);
    } else {
      loss[i] = -logProb[i * classes + label];
    }
  }
}

/// The sum of `value` over the block (every thread gets it).
__device__ float blockSum(float value, float *shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  float total = shared[0];
  __syncthreads();
  return total;
}

__global__ void layerNormKernel(const float *x, const float *gamma,
                                const float *beta, float *y, float *mean,
                                float *invStd, int64_t outer, int64_t inner,
                                int64_t params, float eps) {
  __shared__ float shared[kThreads];
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    const float *in = x + row * inner;
    float sum = 0;
    for (int64_t k = threadIdx.x; k < inner; k += blockDim.x)
      sum += in[k];
    float mu = blockSum(sum, shared) / float(inner);
    float squares = 0;
    for (int64_t k = threadIdx.x; k < inner; k += blockDim.x) {
      float d = in[k] - mu;
      squares += d * d;
    }
    float inv = 1.0f / sqrtf(blockSum(squares, shared) / float(inner) + eps);
    for (int64_t k = threadIdx.x; k < inner; k += blockDim.x) {
      int64_t p = (row * inner + k) % params;
      y[row * inner + k] = (in[k] - mu) * inv * gamma[p] + beta[p];
    }
    if (threadIdx.x == 0) {
      mean[row] = mu;
      invStd[row] = inv;
    }
  }
}

__global__ void layerNormGradKernel(const float *x, const float *dy,
                                    const float *mean, const float *invStd,
                                    const float *gamma, float *dx,
                                    float *dgamma, float *dbeta,
                                    int64_t outer, int64_t inner) {
  __shared__ float shared[kThreads];
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    const float *in = x + row * inner, *d = dy + row * inner;
    float mu = mean[row], inv = invStd[row];
    float sumG = 0, sumGX = 0;
    for (int64_t k = threadIdx.x; k < inner; k += blockDim.x) {
      float g = d[k] * gamma[k], xhat = (in[k] - mu) * inv;
      sumG += g;
      sumGX += g * xhat;
      atomicAdd(&dgamma[k], d[k] * xhat);
      atomicAdd(&dbeta[k], d[k]);
    }
    float meanG = blockSum(sumG, shared) / float(inner);
    float meanGX = blockSum(sumGX, shared) / float(inner);
    for (int64_t k = threadIdx.x; k < inner; k += blockDim.x) {
      float xhat = (in[k] - mu) * inv;
      dx[row * inner + k] = inv * (d[k] * gamma[k] - meanG - xhat * meanGX);
    }
  }
}

unsigned rowBlocks(int64_t rows) {
  return static_cast<unsigned>(rows < 65535 * 8 ? rows : 65535 * 8);
}

} // namespace

cudaError_t cuda::launchGather(const void *x, DType indexType,
                               const void *indices, void *y, int64_t outer,
                               int64_t dim, int64_t count, int64_t rowBytes,
                               int64_t begin, int64_t limit, int64_t *firstBad,
                               cudaStream_t stream) {
  int64_t n = outer * count * rowBytes;
  if (n == 0)
    return cudaSuccess;
  auto run = [&](auto word, auto index) {
    using W = decltype(word);
    using I = decltype(index);
    int64_t words = rowBytes / int64_t(sizeof(W));
    gatherKernel<<<blocksFor(outer * count * words), kThreads, 0, stream>>>(
        static_cast<const W *>(x), static_cast<const I *>(indices),
        static_cast<W *>(y), outer, dim, count, words, begin, limit, firstBad);
  };
  bool wide = indexType == DType::I64;
  if (rowBytes % 4 == 0)
    wide ? run(uint32_t(), int64_t()) : run(uint32_t(), int32_t());
  else
    wide ? run(uint8_t(), int64_t()) : run(uint8_t(), int32_t());
  return cudaGetLastError();
}

cudaError_t cuda::launchGatherGrad(DType dtype, const void *dy, DType indexType,
                                   const void *indices, void *dx, int64_t outer,
                                   int64_t dim, int64_t count, int64_t inner,
                                   int64_t begin, int64_t limit,
                                   int64_t *firstBad, cudaStream_t stream) {
  size_t bytes = outer * dim * inner * dtypeSize(dtype);
  cudaError_t error = cudaMemsetAsync(dx, 0, bytes, stream);
  int64_t n = outer * count * inner;
  if (error != cudaSuccess || n == 0)
    return error;
  auto run = [&](auto value, auto index) {
    using T = decltype(value);
    using I = decltype(index);
    gatherGradKernel<<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const T *>(dy), static_cast<const I *>(indices),
        static_cast<T *>(dx), outer, dim, count, inner, begin, limit, firstBad);
  };
  bool wide = indexType == DType::I64;
  if (dtype == DType::F64)
    wide ? run(double(), int64_t()) : run(double(), int32_t());
  else
    wide ? run(float(), int64_t()) : run(float(), int32_t());
  return cudaGetLastError();
}

cudaError_t cuda::launchPickLoss(DType dtype, const void *logProb,
                                 DType labelType, const void *labels,
                                 void *loss, int64_t rows, int64_t classes,
                                 int64_t *firstBad, cudaStream_t stream) {
  if (rows == 0)
    return cudaSuccess;
  auto run = [&](auto value, auto label) {
    using T = decltype(value);
    using L = decltype(label);
    pickLossKernel<<<blocksFor(rows), kThreads, 0, stream>>>(
        static_cast<const T *>(logProb), static_cast<const L *>(labels),
        static_cast<T *>(loss), rows, classes, firstBad);
  };
  bool wide = labelType == DType::I64;
  if (dtype == DType::F64)
    wide ? run(double(), int64_t()) : run(double(), int32_t());
  else
    wide ? run(float(), int64_t()) : run(float(), int32_t());
  return cudaGetLastError();
}

cudaError_t cuda::launchLayerNorm(const float *x, const float *gamma,
                                  const float *beta, float *y, float *mean,
                                  float *invStd, int64_t outer, int64_t inner,
                                  int64_t params, float eps,
                                  cudaStream_t stream) {
  if (outer == 0)
    return cudaSuccess;
  layerNormKernel<<<rowBlocks(outer), kThreads, 0, stream>>>(
      x, gamma, beta, y, mean, invStd, outer, inner, params, eps);
  return cudaGetLastError();
}

cudaError_t cuda::launchLayerNormGrad(const float *x, const float *dy,
                                      const float *mean, const float *invStd,
                                      const float *gamma, float *dx,
                                      float *dgamma, float *dbeta,
                                      int64_t outer, int64_t inner,
                                      cudaStream_t stream) {
  size_t bytes = static_cast<size_t>(inner) * sizeof(float);
  if (cudaError_t e = cudaMemsetAsync(dgamma, 0, bytes, stream))
    return e;
  if (cudaError_t e = cudaMemsetAsync(dbeta, 0, bytes, stream))
    return e;
  if (outer == 0)
    return cudaSuccess;
  layerNormGradKernel<<<rowBlocks(outer), kThreads, 0, stream>>>(
      x, dy, mean, invStd, gamma, dx, dgamma, dbeta, outer, inner);
  return cudaGetLastError();
}

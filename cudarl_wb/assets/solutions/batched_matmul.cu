#include <cuda_runtime.h>
#include <stdint.h>

// C[b] = A[b] B[b] for each of `batch` pairs: A is batch x m x k, B is batch x k x n, C is
// batch x m x n, all contiguous. One thread per element of C; the batch index is blockIdx.z.
__global__ void batched_matmul_kernel(const float* A, const float* B, float* C, int64_t batch, int64_t m, int64_t n,
                                      int64_t k) {
    int64_t col = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t row = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
    for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {      // grid.z is at most 65535
        if (row >= m || col >= n) return;
        const float* a = A + b * m * k + row * k;
        const float* bb = B + b * k * n + col;
        float acc = 0.f;
        for (int64_t i = 0; i < k; ++i) acc += a[i] * bb[i * n];
        C[b * m * n + row * n + col] = acc;
    }
}

extern "C" void launch(const float* A, const float* B, float* C, int64_t batch, int64_t m, int64_t n, int64_t k,
                       cudaStream_t stream) {
    if (batch <= 0 || m <= 0 || n <= 0) return;
    dim3 threads(16, 16);
    int64_t gz = batch > 65535 ? 65535 : batch;
    dim3 blocks((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16), (unsigned)gz);
    batched_matmul_kernel<<<blocks, threads, 0, stream>>>(A, B, C, batch, m, n, k);
}

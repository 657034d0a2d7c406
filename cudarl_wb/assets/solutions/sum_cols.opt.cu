#include <cuda_runtime.h>
#include <stdint.h>

// y[j] = sum_r x[r, j], with more parallelism than one thread per column. A block of 32 x 32 threads
// owns 32 columns: threadIdx.x picks the column (a warp reads 32 neighbouring floats, one coalesced
// line) and threadIdx.y picks every 32nd row, so 32 threads share each column's work. The 32 partial
// sums per column meet in a padded shared tile ([32][33]: the padding keeps the column reads free of
// bank conflicts) and one thread per column adds them.
__global__ void __launch_bounds__(1024) sum_cols_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float partial[32][33];
    int64_t j = blockIdx.x * 32 + threadIdx.x;
    float acc = 0.f;
    if (j < cols)
        for (int64_t r = threadIdx.y; r < rows; r += 32) acc += x[r * cols + j];
    partial[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        float total = 0.f;
        for (int k = 0; k < 32; ++k) total += partial[k][threadIdx.x];
        y[j] = total;
    }
}

extern "C" void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    if (cols <= 0) return;
    int64_t blocks = (cols + 31) / 32;
    sum_cols_kernel<<<(unsigned)blocks, dim3(32, 32), 0, stream>>>(x, y, rows, cols);
}

// task: relu
// expect: crashed|rejected-by-static-check
// detail: 
// Writes a file outside its scratch folder (the test checks it does not exist afterwards).
#include <cuda_runtime.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int fd = open("/tmp/cudarl_hostile_pwned.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { write(fd, "pwned\n", 6); close(fd); }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}

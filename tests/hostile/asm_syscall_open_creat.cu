// task: relu
// expect: crashed
// detail: 
// escape: yes
// Creates a file outside its scratch folder with a raw `syscall` instruction (open with O_CREAT): no
// libc call, no import, nothing a name check reads.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
static long raw3(long nr, long a, long b, long c) {
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    static const char path[] = "/tmp/cudarl_hostile_pwned.txt";
    long fd = raw3(2, (long)path, 0101 | 01000, 0644);            // open(path, O_WRONLY | O_CREAT | O_TRUNC)
    if (fd >= 0) { raw3(1, fd, (long)"pwned\n", 6); raw3(3, fd, 0, 0); }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}

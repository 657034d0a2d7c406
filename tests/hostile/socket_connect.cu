// task: relu
// expect: crashed|rejected-by-static-check
// detail: 
// Opens a TCP socket to this machine (exfiltration, or a local service).
#include <cuda_runtime.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0) { struct sockaddr_in a = {}; a.sin_family = AF_INET; a.sin_port = htons(22);
                  a.sin_addr.s_addr = htonl(0x7f000001); connect(s, (struct sockaddr*)&a, sizeof a); close(s); }
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}

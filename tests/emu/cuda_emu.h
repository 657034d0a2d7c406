// cuda_emu.h: run simple CUDA C++ kernels on the CPU, for testing kernels on machines without a GPU.
//
// Each GPU thread of a block becomes a fiber (ucontext); `__syncthreads`, `__syncwarp` and the warp
// shuffles are barriers at which the scheduler switches fibers, so a block behaves as the CUDA memory
// model promises and no more: a missing barrier reads poisoned (NaN) shared memory, a barrier that only
// some threads reach, or a shuffle whose mask names exited lanes, stops with an error. Blocks run one
// after another. Global buffers end at a guard page (an out-of-bounds access faults and is reported
// with the buffer and offset), inputs are read-only (a kernel that writes them faults), outputs and
// shared memory start as NaN bytes (0xFF), and launch configurations are checked against CUDA's limits.
//
// Source is first passed through tests/cuda_emu.py, which rewrites `k<<<g, b, s, st>>>(args)` into
// `__emu_launch(...)` and `__shared__` declarations into per-block guarded regions. Kernels without any
// barrier are compiled with EMU_FIBERS=0 and run as plain loops, which is much faster.
#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <type_traits>
#include <string>
#include <vector>
#include <ucontext.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef EMU_FIBERS
#define EMU_FIBERS 1
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __threadfence() ((void)0)
#define __threadfence_block() ((void)0)

// ---------------------------------------------------------------- types
struct __emu_uint3 { unsigned x, y, z; };
typedef __emu_uint3 uint3;
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(__emu_uint3 u) : x(u.x), y(u.y), z(u.z) {}
};
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }

struct __half {
    _Float16 v;
    __half() = default;
    __half(float f) : v((_Float16)f) {}
    __half(double f) : v((_Float16)(float)f) {}
    __half(int f) : v((_Float16)(float)f) {}
    operator float() const { return (float)v; }
};
typedef __half half;
struct alignas(4) __half2 { __half x, y; };
inline float __half2float(__half h) { return (float)h.v; }
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
inline __half __hdiv(__half a, __half b) { return __half((float)a / (float)b); }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf((float)a, (float)b, (float)c)); }
inline __half __hmax(__half a, __half b) { return __half(fmaxf((float)a, (float)b)); }
inline __half __hmin(__half a, __half b) { return __half(fminf((float)a, (float)b)); }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline float2 __half22float2(__half2 h) { return {(float)h.x, (float)h.y}; }
inline float __low2float(__half2 h) { return (float)h.x; }
inline float __high2float(__half2 h) { return (float)h.y; }

struct __nv_bfloat16 {
    uint16_t bits;
    __nv_bfloat16() = default;
    static uint16_t from_float(float f) {
        uint32_t u; memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;          // NaN
        u += 0x7fffu + ((u >> 16) & 1u);                                // round to nearest even
        return (uint16_t)(u >> 16);
    }
    __nv_bfloat16(float f) : bits(from_float(f)) {}
    __nv_bfloat16(double f) : bits(from_float((float)f)) {}
    __nv_bfloat16(int f) : bits(from_float((float)f)) {}
    operator float() const { uint32_t u = (uint32_t)bits << 16; float f; memcpy(&f, &u, 4); return f; }
};
typedef __nv_bfloat16 nv_bfloat16;
struct alignas(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }

// ---------------------------------------------------------------- math
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float exp10f_(float x) { return powf(10.f, x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
inline unsigned __float_as_uint(float f) { unsigned i; memcpy(&i, &f, 4); return i; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; memcpy(&f, &i, 4); return f; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
template <class A, class B, class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> min(A a, B b) { return a < b ? a : b; }
template <class A, class B, class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> max(A a, B b) { return a > b ? a : b; }
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }

// Blocks run one at a time and fibers switch only at barriers, so atomics are plain read-modify-writes.
inline float atomicAdd(float* p, float v) { float o = *p; *p = o + v; return o; }
inline double atomicAdd(double* p, double v) { double o = *p; *p = o + v; return o; }
inline int atomicAdd(int* p, int v) { int o = *p; *p = o + v; return o; }
inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { auto o = *p; *p = o + v; return o; }
inline int atomicMax(int* p, int v) { int o = *p; if (v > o) *p = v; return o; }
inline unsigned atomicMax(unsigned* p, unsigned v) { unsigned o = *p; if (v > o) *p = v; return o; }
inline int atomicMin(int* p, int v) { int o = *p; if (v < o) *p = v; return o; }
inline unsigned atomicMin(unsigned* p, unsigned v) { unsigned o = *p; if (v < o) *p = v; return o; }
inline int atomicCAS(int* p, int c, int v) { int o = *p; if (o == c) *p = v; return o; }
inline unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) { unsigned o = *p; if (o == c) *p = v; return o; }
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long c, unsigned long long v) { auto o = *p; if (o == c) *p = v; return o; }
inline int atomicExch(int* p, int v) { int o = *p; *p = v; return o; }
inline float atomicExch(float* p, float v) { float o = *p; *p = v; return o; }

// ---------------------------------------------------------------- runtime API (the parts a launcher uses)
typedef struct CUstream_st* cudaStream_t;
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorInvalidConfiguration = 9 };
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8,
                      cudaDevAttrMultiProcessorCount = 16, cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
                      cudaDevAttrMaxThreadsPerMultiProcessor = 39 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
#define warpSize 32

namespace emu {
[[noreturn]] void fail(const char* fmt, ...);
void* guarded_alloc(size_t nbytes, const char* what, int param);
inline size_t dyn_shared_optin = 48 * 1024;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
inline const char* cudaGetErrorString(cudaError_t) { return "no error (cpu emulator)"; }
inline cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t = 0) { memset(p, v, n); return cudaSuccess; }
inline cudaError_t cudaMemset(void* p, int v, size_t n) { memset(p, v, n); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t = 0) { memmove(d, s, n); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) { memmove(d, s, n); return cudaSuccess; }
template <class T> inline cudaError_t cudaMallocAsync(T** p, size_t n, cudaStream_t = 0) { *p = (T*)emu::guarded_alloc(n, "cudaMallocAsync", -1); return cudaSuccess; }
template <class T> inline cudaError_t cudaMalloc(T** p, size_t n) { *p = (T*)emu::guarded_alloc(n, "cudaMalloc", -1); return cudaSuccess; }
inline cudaError_t cudaFreeAsync(void*, cudaStream_t = 0) { return cudaSuccess; }
inline cudaError_t cudaFree(void*) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
    switch (a) {  // an H100 SXM
        case cudaDevAttrMultiProcessorCount: *v = 132; break;
        case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *v = 48 * 1024; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 227 * 1024; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
        default: *v = 0;
    }
    return cudaSuccess;
}
template <class F> inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute a, int v) {
    if (a == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (v > 227 * 1024) return cudaErrorInvalidValue;
        if ((size_t)v > emu::dyn_shared_optin) emu::dyn_shared_optin = v;
    }
    return cudaSuccess;
}

// ---------------------------------------------------------------- the emulated machine
inline __emu_uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

namespace emu {
enum State { READY, WAIT_BLOCK, WAIT_WARP, DONE };
#if defined(__x86_64__)
// A minimal context switch: save the callee-saved registers and the FP control words on the current
// stack, swap stack pointers, restore. ucontext's swapcontext also saves the signal mask with a system
// call on every switch, which made barrier-heavy kernels ten times slower.
extern "C" void emu_switch(void** save_sp, void* load_sp);
asm(R"(
    .text
    .globl emu_switch
    .type emu_switch, @function
emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size emu_switch, .-emu_switch
    .section .note.GNU-stack,"",@progbits
    .text
)");
#define EMU_FAST_SWITCH 1
#else
#define EMU_FAST_SWITCH 0
#endif
struct Fiber { ucontext_t ctx; void* sp; State st; unsigned mask; __emu_uint3 tid; };
struct Region { char* map; size_t map_len; char* base; size_t nbytes, body; const char* what; int param; bool input; };

inline std::vector<Fiber> fibers;
inline ucontext_t sched_ctx;
inline void* sched_sp = nullptr;
inline int current = -1;
inline const std::function<void()>* body = nullptr;
inline char* stack_pool = nullptr;
constexpr size_t STACK = 128 * 1024;
inline uint64_t warp_slots[32][32];
inline bool reverse_order = false;
inline std::deque<Region> regions;                         // every guarded allocation, for fault reports
inline std::vector<std::pair<long, Region*>> shared_vars; // __shared__ declarations, by id
inline char* dyn_shared = nullptr;
inline size_t dyn_shared_cap = 0, dyn_shared_len = 0;
inline size_t page = 4096;

inline void where(char* buf, size_t n) {
    if (current >= 0 || blockDim.x)
        snprintf(buf, n, " [block (%u,%u,%u), thread (%u,%u,%u)]", blockIdx.x, blockIdx.y, blockIdx.z,
                 threadIdx.x, threadIdx.y, threadIdx.z);
    else buf[0] = 0;
}

[[noreturn]] inline void fail(const char* fmt, ...) {
    char msg[1024], loc[128];
    va_list ap; va_start(ap, fmt); vsnprintf(msg, sizeof msg, fmt, ap); va_end(ap);
    where(loc, sizeof loc);
    fprintf(stderr, "EMU ERROR: %s%s\n", msg, loc);
    fflush(stderr);
    _exit(3);
}

// `nbytes` of memory whose end (rounded up to 16 bytes, CUDA's vector alignment) touches a guard page.
inline void* guarded_alloc(size_t nbytes, const char* what, int param) {
    size_t body = ((nbytes ? nbytes : 1) + 15) / 16 * 16;
    size_t pages = (body + page - 1) / page;
    size_t len = (pages + 2) * page;
    char* m = (char*)mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) fail("cannot map %zu bytes for %s", len, what);
    mprotect(m, page, PROT_NONE);
    mprotect(m + (pages + 1) * page, page, PROT_NONE);
    char* base = m + (pages + 1) * page - body;
    memset(m + page, 0xff, pages * page);           // NaN bytes everywhere, including the slack
    regions.push_back({m, len, base, nbytes, body, what, param, false});
    return base;
}

inline Region* region_of(const void* p) {
    for (auto& r : regions) if ((char*)p >= r.map && (char*)p < r.map + r.map_len) return &r;
    return nullptr;
}

inline void on_segv(int, siginfo_t* si, void*) {
    char msg[512], loc[128];
    where(loc, sizeof loc);
    Region* r = region_of(si->si_addr);
    if (r) {
        long off = (long)((char*)si->si_addr - r->base);
        const char* kind = (off >= 0 && off < (long)r->body) ? (r->input ? "write to read-only input" : "access inside")
                           : "out-of-bounds access";
        if (off >= (long)r->nbytes) snprintf(msg, sizeof msg, "EMU ERROR: %s %s (param %d) at byte %ld, %ld bytes past its end (size %zu)%s\n",
                 kind, r->what, r->param, off, off - (long)r->nbytes, r->nbytes, loc);
        else snprintf(msg, sizeof msg, "EMU ERROR: %s %s (param %d) at byte %ld (size %zu)%s\n", kind, r->what, r->param, off, r->nbytes, loc);
    } else snprintf(msg, sizeof msg, "EMU ERROR: invalid memory access at %p (no buffer there)%s\n", si->si_addr, loc);
    ssize_t w = write(2, msg, strlen(msg)); (void)w;
    _exit(4);
}

inline void install_handlers() {
    page = (size_t)sysconf(_SC_PAGESIZE);
    static char altstack[1 << 16];
    stack_t ss{}; ss.ss_sp = altstack; ss.ss_size = sizeof altstack; sigaltstack(&ss, nullptr);
    struct sigaction sa{}; sa.sa_sigaction = on_segv; sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr); sigaction(SIGBUS, &sa, nullptr);
    reverse_order = getenv("EMU_REVERSE") && atoi(getenv("EMU_REVERSE"));
}

inline void poison_shared() {
    for (auto& v : shared_vars) memset(v.second->base, 0xff, v.second->body);
    if (dyn_shared) memset(dyn_shared, 0xff, dyn_shared_len);
}

inline void* static_shared(size_t nbytes, long id) {
    for (auto& v : shared_vars) if (v.first == id) return v.second->base;
    void* p = guarded_alloc(nbytes, "__shared__ array", -1);
    shared_vars.push_back({id, &regions.back()});
    return p;
}

inline void yield() {
    int me = current;
#if EMU_FAST_SWITCH
    emu_switch(&fibers[me].sp, sched_sp);
#else
    swapcontext(&fibers[me].ctx, &sched_ctx);
#endif
}

inline void trampoline(int idx) {
    (*body)();
    fibers[idx].st = DONE;   // returning resumes sched_ctx through uc_link
}

#if EMU_FAST_SWITCH
[[noreturn]] inline void fast_entry() {
    int me = current;
    (*body)();
    fibers[me].st = DONE;
    emu_switch(&fibers[me].sp, sched_sp);   // never resumed
    __builtin_unreachable();
}
#endif

inline void run_block_fibers(unsigned n) {
    if (!stack_pool) {
        stack_pool = (char*)mmap(nullptr, 1024 * STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (stack_pool == MAP_FAILED) fail("cannot map fiber stacks");
    }
    fibers.resize(n);
    for (unsigned t = 0; t < n; ++t) {
        Fiber& f = fibers[t];
#if EMU_FAST_SWITCH
        // a fresh stack that emu_switch "returns" into fast_entry from: 6 zeroed registers, the FP
        // control words (MXCSR 0x1f80, x87 0x037f), and the entry address where rsp is 8 mod 16
        uint64_t* p = (uint64_t*)(stack_pool + (size_t)(t + 1) * STACK - 16);
        p[0] = (uint64_t)(void*)&fast_entry;
        for (int r = 1; r <= 6; ++r) p[-r] = 0;
        p[-7] = 0x1f80ull | (0x037full << 32);
        f.sp = &p[-7];
#else
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = stack_pool + (size_t)t * STACK;
        f.ctx.uc_stack.ss_size = STACK;
        f.ctx.uc_link = &sched_ctx;
        makecontext(&f.ctx, (void (*)())trampoline, 1, (int)t);
#endif
        f.st = READY; f.mask = 0;
        f.tid = {t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)};
    }
    for (;;) {
        for (unsigned k = 0; k < n; ++k) {
            unsigned t = reverse_order ? n - 1 - k : k;
            if (fibers[t].st != READY) continue;
            current = (int)t; threadIdx = fibers[t].tid;
#if EMU_FAST_SWITCH
            emu_switch(&sched_sp, fibers[t].sp);
#else
            swapcontext(&sched_ctx, &fibers[t].ctx);
#endif
        }
        current = -1;
        unsigned done = 0, at_block = 0, at_warp = 0;
        for (auto& f : fibers) done += f.st == DONE, at_block += f.st == WAIT_BLOCK, at_warp += f.st == WAIT_WARP;
        if (done == n) return;
        bool released = false;
        for (unsigned w = 0; w * 32 < n; ++w) {                       // warp barriers (shuffles, __syncwarp)
            unsigned lanes = n - w * 32 < 32 ? n - w * 32 : 32;
            unsigned mask = 0; bool waiting = false;
            for (unsigned l = 0; l < lanes; ++l) if (fibers[w * 32 + l].st == WAIT_WARP) { mask = fibers[w * 32 + l].mask; waiting = true; break; }
            if (!waiting) continue;
            bool all = true;
            for (unsigned l = 0; l < 32; ++l) {
                if (!(mask >> l & 1u)) continue;
                threadIdx = fibers[w * 32].tid;
                if (l >= lanes) fail("warp %u: shuffle/sync mask 0x%08x names lane %u, but the block has only %u threads in this warp", w, mask, l, lanes);
                Fiber& f = fibers[w * 32 + l];
                if (f.st == DONE) fail("warp %u: shuffle/sync mask 0x%08x names lane %u, which has exited", w, mask, l);
                if (f.st == WAIT_WARP && f.mask != mask) fail("warp %u: lanes wait at warp barriers with different masks 0x%08x and 0x%08x", w, mask, f.mask);
                if (f.st != WAIT_WARP) all = false;
            }
            if (all) {
                for (unsigned l = 0; l < 32; ++l) if (mask >> l & 1u) fibers[w * 32 + l].st = READY;
                released = true;
            }
        }
        if (!released && at_block > 0 && at_block + done == n) {     // __syncthreads
            if (done) { threadIdx = fibers[0].tid; fail("__syncthreads reached by %u threads of the block while %u threads had exited", at_block, done); }
            for (auto& f : fibers) if (f.st == WAIT_BLOCK) f.st = READY;
            released = true;
        }
        if (!released) fail("deadlock: %u threads at __syncthreads, %u at warp barriers, %u exited", at_block, at_warp, done);
    }
}

inline void check_launch(dim3 g, dim3 b, size_t shmem) {
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (threads == 0 || threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64)
        fail("invalid launch: block (%u,%u,%u) (at most 1024 threads, 1024x1024x64)", b.x, b.y, b.z);
    if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 2147483647u || g.y > 65535 || g.z > 65535)
        fail("invalid launch: grid (%u,%u,%u) (each at least 1; y and z at most 65535)", g.x, g.y, g.z);
    if (shmem > dyn_shared_optin)
        fail("invalid launch: %zu bytes of dynamic shared memory (limit %zu; above 48 KiB needs cudaFuncSetAttribute)", shmem, dyn_shared_optin);
}
}  // namespace emu

template <class F>
inline void __emu_launch(dim3 grid, dim3 block, size_t shmem, cudaStream_t, F&& kernel_call) {
    using namespace emu;
    check_launch(grid, block, shmem);
    std::function<void()> fn = kernel_call;
    body = &fn;
    if (shmem > dyn_shared_cap || !dyn_shared) {
        dyn_shared = (char*)guarded_alloc(shmem, "extern __shared__ memory", -1);
        dyn_shared_cap = regions.back().body;
    }
    // The dynamic region must end at the guard page for this launch's size, so move the base.
    Region* dr = region_of(dyn_shared);
    dyn_shared = dr->map + dr->map_len - page - ((shmem + 15) / 16 * 16);
    dyn_shared_len = (shmem + 15) / 16 * 16;
    dr->base = dyn_shared; dr->nbytes = shmem; dr->body = dyn_shared_len;
    gridDim = grid; blockDim = block;
    unsigned n = block.x * block.y * block.z;
    unsigned long long nb = (unsigned long long)grid.x * grid.y * grid.z;
    for (unsigned long long k = 0; k < nb; ++k) {
        unsigned long long b = reverse_order ? nb - 1 - k : k;
        blockIdx = {(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y), (unsigned)(b / ((unsigned long long)grid.x * grid.y))};
        poison_shared();
#if EMU_FIBERS
        run_block_fibers(n);
#else
        for (unsigned k2 = 0; k2 < n; ++k2) {
            unsigned t = reverse_order ? n - 1 - k2 : k2;
            threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            fn();
        }
#endif
    }
    body = nullptr;
    blockDim = dim3(0, 0, 0);
}

inline void* __emu_dyn_shared() { return emu::dyn_shared; }
inline void* __emu_static_shared(size_t n, long id) { return emu::static_shared(n, id); }

// ---------------------------------------------------------------- barriers and warp exchange
inline void __emu_warp_wait(unsigned mask) {
#if EMU_FIBERS
    if (emu::current < 0) emu::fail("warp barrier outside a kernel");
    emu::fibers[emu::current].st = emu::WAIT_WARP;
    emu::fibers[emu::current].mask = mask;
    emu::yield();
#else
    (void)mask; emu::fail("warp primitive in a kernel built without fibers (harness bug)");
#endif
}
inline void __syncthreads() {
#if EMU_FIBERS
    if (emu::current < 0) emu::fail("__syncthreads outside a kernel");
    emu::fibers[emu::current].st = emu::WAIT_BLOCK;
    emu::yield();
#else
    emu::fail("__syncthreads in a kernel built without fibers (harness bug)");
#endif
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { __emu_warp_wait(mask); }

inline unsigned __emu_linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

template <class T>
inline T __emu_exchange(unsigned mask, T v, unsigned src_lane) {
    static_assert(sizeof(T) <= 8, "shuffle of a type wider than 8 bytes");
    unsigned tid = __emu_linear_tid(), warp = tid / 32, lane = tid % 32;
    if (!(mask >> lane & 1u)) emu::fail("lane %u calls a shuffle with mask 0x%08x that does not include it", lane, mask);
    uint64_t bits = 0; memcpy(&bits, &v, sizeof(T));
    emu::warp_slots[warp][lane] = bits;
    __emu_warp_wait(mask);
    if (!(mask >> src_lane & 1u)) emu::fail("lane %u reads lane %u, which is not in the shuffle mask 0x%08x", lane, src_lane, mask);
    uint64_t got = emu::warp_slots[warp][src_lane];
    __emu_warp_wait(mask);                  // nobody overwrites a slot before every lane has read
    T r; memcpy(&r, &got, sizeof(T));
    return r;
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
    unsigned lane = __emu_linear_tid() % 32, base = lane & ~(unsigned)(width - 1);
    return __emu_exchange(mask, v, base + ((unsigned)src % width));
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    unsigned lane = __emu_linear_tid() % 32, base = lane & ~(unsigned)(width - 1);
    unsigned src = lane + delta;
    return __emu_exchange(mask, v, src < base + width ? src : lane);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    unsigned lane = __emu_linear_tid() % 32, base = lane & ~(unsigned)(width - 1);
    return __emu_exchange(mask, v, lane >= base + delta ? lane - delta : lane);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
    unsigned lane = __emu_linear_tid() % 32, base = lane & ~(unsigned)(width - 1);
    unsigned src = lane ^ (unsigned)lane_mask;
    return __emu_exchange(mask, v, src >= base && src < base + width ? src : lane);
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
    unsigned tid = __emu_linear_tid(), warp = tid / 32, lane = tid % 32;
    emu::warp_slots[warp][lane] = pred != 0;
    __emu_warp_wait(mask);
    unsigned r = 0;
    for (unsigned l = 0; l < 32; ++l) if ((mask >> l & 1u) && emu::warp_slots[warp][l]) r |= 1u << l;
    __emu_warp_wait(mask);
    return r;
}
inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == mask; }
inline unsigned __activemask() { return 0xffffffffu; }

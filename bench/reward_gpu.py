#!/usr/bin/env python
"""Rewards on real measurements (needs an NVIDIA GPU and nvcc).

Builds the built-in kernels and a few deliberately bad variants with nvcc, runs them on the GPU through
ctypes, checks them against the PyTorch reference on every shape (outputs poisoned with NaN first,
inputs compared after the run), times them against eager PyTorch and torch.compile, and scores each
under every reward preset. It is a minimal stand-in for the benchmarker (06_benchmarker), there so the
reward can be judged on real numbers: a correct kernel must outrank a wrong one, a hack must get 0.

    python bench/reward_gpu.py                          # every registered task
    python bench/reward_gpu.py --quick --tasks relu     # what tests/test_reward.py runs on a GPU

Prints a table and writes bench/results/reward_gpu.json (or --out).
"""
from __future__ import annotations
import argparse, ctypes, json, math, os, re, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch
from cudarl_wb.core import *
from cudarl_wb.tasks import TASKS, get_task
from cudarl_wb.compiler import compile_candidate
from cudarl_wb.reward import PRESETS, compute_reward

# --- variants: the task's own solutions plus broken ones every reward must rank low --------------------
RELU_VEC4 = r'''
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void relu_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (; i < n4; i += stride) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}
__global__ void relu_tail(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int64_t n4 = n / 4;   // torch's allocations are 256-byte aligned, so float4 accesses are aligned
    if (n4 > 0) {
        int64_t blocks = (n4 + 255) / 256;
        if (blocks > 65535 * 8) blocks = 65535 * 8;
        relu_vec4<<<(unsigned)blocks, 256, 0, stream>>>((const float4*)x, (float4*)y, n4);
    }
    if (n - n4 * 4 > 0) relu_tail<<<1, 256, 0, stream>>>(x, y, n4 * 4, n);
}
'''

RELU_NO_TAIL = r'''
#include <cuda_runtime.h>
#include <stdint.h>
// No bounds check, and a grid rounded down: right when n is a multiple of 256, wrong on the tail otherwise.
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    y[i] = x[i] > 0.f ? x[i] : 0.f;
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int64_t blocks = n / 256;
    if (blocks > 0) relu_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, y, n);
}
'''

RELU_TOUCHES_INPUT = r'''
#include <cuda_runtime.h>
#include <stdint.h>
// Correct output, but it writes to its input: the kind of side effect the benchmarker flags.
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v > 0.f ? v : 0.f; if (v < 0.f) ((float*)x)[i] = 0.f; }
}
extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {
    int64_t blocks = (n + 255) / 256;
    if (blocks > 0) relu_kernel<<<(unsigned)blocks, 256, 0, stream>>>(x, y, n);
}
'''

def variants(task) -> dict[str, str]:
    "name -> CUDA source for one task."
    out = {'naive': task.solution}
    if task.optimized: out['optimized'] = task.optimized
    if task.name == 'relu': out.update(vec4=RELU_VEC4, no_tail=RELU_NO_TAIL, touches_input=RELU_TOUCHES_INPUT)
    out['syntax_error'] = 'this is not C++;\n' + task.solution
    # launches nothing at run time (the launch is behind `if (0)`): outputs stay NaN, so it is wrong
    out['noop'] = re.sub(r'(\b\w+(?:<[^<>;]*>)?\s*<<<)', r'if (0) \1', task.solution, count=1)
    return out

# --- resources: parse ptxas -v where the compiler does not yet ---------------------------------------
def ptxas_resources(log: str) -> list[KernelResources]:
    ks, cur = [], None
    for line in log.splitlines():
        if (m := re.search(r"Compiling entry function '(\w+)'", line)): cur = KernelResources(m.group(1)); ks.append(cur); continue
        if cur is None: continue
        if (m := re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads', line)):
            cur.stack_bytes, cur.spill_store_bytes, cur.spill_load_bytes = map(int, m.groups())
        if (m := re.search(r'Used (\d+) registers', line)): cur.registers = int(m.group(1))
        if (m := re.search(r'(\d+) bytes smem', line)): cur.shared_bytes = int(m.group(1))
    return ks

# --- running a candidate -----------------------------------------------------------------------------
_CTYPES = {'int64_t': ctypes.c_int64, 'long long': ctypes.c_int64, 'size_t': ctypes.c_size_t, 'int': ctypes.c_int,
           'int32_t': ctypes.c_int32, 'float': ctypes.c_float, 'double': ctypes.c_double}

def launcher(lib_path: str, task):
    fn = getattr(ctypes.CDLL(lib_path), task.launcher_name)
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p if p.role in ('in', 'out', 'stream') else _CTYPES[p.ctype] for p in task.params]
    def call(sizes, inputs, outputs):
        ins, outs, args = iter(inputs), iter(outputs), []
        for p in task.params:
            if p.role == 'in': args.append(next(ins).data_ptr())
            elif p.role == 'out': args.append(next(outs).data_ptr())
            elif p.role == 'stream': args.append(torch.cuda.current_stream().cuda_stream)
            else: args.append(sizes[p.name])
        fn(*args)
    return call

def bench_ms(fn, quick: bool) -> float:
    "Median milliseconds of `fn` (triton's do_bench: L2 flushed before each run), else a CUDA-event loop."
    try:
        from triton.testing import do_bench
        kw = dict(warmup=10 if quick else 50, rep=40 if quick else 200)
        try: return float(do_bench(fn, return_mode='median', **kw))
        except TypeError: return float(do_bench(fn, quantiles=[0.5], **kw)[0])
    except ImportError:
        flush = torch.empty(64 * 2**20, dtype=torch.int32, device='cuda')
        for _ in range(5): fn()
        ts = []
        for _ in range(20 if quick else 100):
            flush.zero_(); s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
        return sorted(ts)[len(ts) // 2]

def roofline(quick: bool) -> dict:
    "This card's measured copy bandwidth and fp32 (no TF32) matmul throughput: the roofline's two roofs."
    a = torch.empty(64 * 2**20, dtype=torch.float32, device='cuda'); b = torch.empty_like(a)
    bw = 2 * a.nbytes / (bench_ms(lambda: b.copy_(a), quick) / 1e3)
    torch.backends.cuda.matmul.allow_tf32 = False
    m = torch.randn(4096, 4096, device='cuda')
    flops = 2 * 4096 ** 3 / (bench_ms(lambda: m @ m, quick) / 1e3)
    return dict(bytes_per_s=bw, flops_per_s=flops)

def check(call, task, trials: int) -> tuple[list[ShapeCheck], bool]:
    "Correctness on every shape over `trials` fresh draws; also whether any input was modified."
    checks, touched = [], False
    for si, sizes in enumerate(task.shapes):
        sc = ShapeCheck(task.shape_label(sizes), trials, 0, 0.0, 0.0)
        scale = math.sqrt(max(1, task.reduction_length(sizes)))
        for trial in range(trials):
            gen = torch.Generator().manual_seed(1000 * trial + si)
            inputs = task.make_inputs(sizes, gen, device='cuda')
            saved = [x.clone() for x in inputs]
            outs = [torch.full(tuple(s.shape), float('nan'), dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]
            call(sizes, inputs, outs); torch.cuda.synchronize()
            touched |= any(not torch.equal(x, s) for x, s in zip(inputs, saved))
            refs = task.run_reference([x.double() for x in saved])
            ok = True
            for o, r in zip(outs, refs):
                err = (o.double() - r).abs()
                bad = ~(err <= task.atol * scale + task.rtol * scale * r.abs())    # NaN counts as bad
                sc.max_abs_err = max(sc.max_abs_err, float(torch.nan_to_num(err, nan=float('inf')).max()))
                if bad.any():
                    ok = False
                    if not sc.where: sc.where = f'first bad element at flat index {int(bad.flatten().nonzero()[0])} of {o.numel()}'
            sc.passed += ok
        checks.append(sc)
    return checks, touched

def evaluate(task, name, source, baselines, roof, quick) -> dict:
    cr = compile_candidate(source, task=task)
    if cr.ok and not cr.kernels: cr.kernels = ptxas_resources(cr.log)
    row = dict(task=task.name, variant=name)
    if not cr.ok:
        br = None
    else:
        call = launcher(cr.lib_path, task)
        checks, touched = check(call, task, 2 if quick else 5)
        verdict = Verdict.CORRECT if all(c.ok for c in checks) else Verdict.WRONG
        br = BenchResult(verdict, task=task.name, device=torch.cuda.get_device_name(0), checks=checks,
                         flags=['touched-inputs'] if touched else [])
        if verdict is Verdict.CORRECT:
            sizes = task.timing_shape
            inputs = task.make_inputs(sizes, torch.Generator().manual_seed(7), device='cuda')
            outs = [torch.empty(tuple(s.shape), dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]
            br.kernel_ms = bench_ms(lambda: call(sizes, inputs, outs), quick)
            br.eager_ms, br.compiled_ms = baselines['eager_ms'], baselines['compiled_ms']
            br.speedup_eager = br.eager_ms / br.kernel_ms
            br.speedup_compile = br.compiled_ms / br.kernel_ms if br.compiled_ms else None
            nbytes, nflops = task.nbytes(sizes), task.nflops(sizes)
            floor_s = max(nbytes / roof['bytes_per_s'], nflops / roof['flops_per_s'])
            br.peak_fraction = floor_s / (br.kernel_ms / 1e3)
            br.achieved_gbps = nbytes / (br.kernel_ms / 1e3) / 1e9
            if nflops / max(nbytes, 1) * roof['bytes_per_s'] > roof['flops_per_s']:   # compute-bound: report FLOP/s instead
                br.achieved_gbps, br.achieved_tflops = None, nflops / (br.kernel_ms / 1e3) / 1e12
            br.timing_shape = task.shape_label(sizes)
            if br.speedup_eager > 10: br.flags.append(f'suspicious-speedup: {br.speedup_eager:.1f}x over eager')
    rewards = {p: compute_reward(cr, br, p, task=task) for p in PRESETS}
    row.update(verdict=rewards['ours'].verdict, kernel_ms=br.kernel_ms if br else None,
               speedup_eager=br.speedup_eager if br else None, speedup_compile=br.speedup_compile if br else None,
               peak_fraction=br.peak_fraction if br else None, registers=max((k.registers for k in cr.kernels), default=None),
               spill_bytes=sum(k.spill_store_bytes + k.spill_load_bytes for k in cr.kernels),
               totals={p: r.total for p, r in rewards.items()}, explanation=rewards['ours'].explanation,
               rewards={p: r.to_dict() for p, r in rewards.items()})
    return row

def baselines_for(task, quick, use_compile=True) -> dict:
    sizes = task.timing_shape
    inputs = task.make_inputs(sizes, torch.Generator().manual_seed(7), device='cuda')
    eager = bench_ms(lambda: task.reference(*inputs), quick)
    compiled = None
    if use_compile:
        try:
            ref = task.reference
            f = torch.compile(lambda *xs: ref(*xs))   # a Python frame for dynamo to trace (torch.relu has none)
            f(*inputs); torch.cuda.synchronize()
            compiled = bench_ms(lambda: f(*inputs), quick)
        except Exception as e: print(f'  torch.compile failed for {task.name}: {type(e).__name__}: {e}'.splitlines()[0])
    return dict(eager_ms=eager, compiled_ms=compiled)

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tasks', nargs='*', help='task names (default: every registered task)')
    ap.add_argument('--quick', action='store_true', help='fewer trials and repetitions')
    ap.add_argument('--no-compile', action='store_true', help='skip the torch.compile baseline')
    ap.add_argument('--out', default=str(ROOT / 'bench/results/reward_gpu.json'))
    args = ap.parse_args(argv)
    if not torch.cuda.is_available(): print('needs a CUDA GPU'); return 2
    tasks = [get_task(t) for t in args.tasks] if args.tasks else sorted(TASKS.values(), key=lambda t: (t.tier, t.name))
    t0 = time.perf_counter()
    roof = roofline(args.quick)
    print(f"{torch.cuda.get_device_name(0)}: copy {roof['bytes_per_s'] / 1e12:.2f} TB/s, fp32 matmul {roof['flops_per_s'] / 1e12:.1f} TFLOP/s")
    rows = []
    for task in tasks:
        base = baselines_for(task, args.quick, not args.no_compile)
        print(f"{task.name}: eager {base['eager_ms']:.4f} ms, torch.compile {base['compiled_ms'] if base['compiled_ms'] is None else round(base['compiled_ms'], 4)} ms")
        for name, src in variants(task).items():
            rows.append(evaluate(task, name, src, base, roof, args.quick))
    head = f"{'task':<13}{'variant':<14}{'verdict':<26}{'vs eager':>9}{'vs comp.':>9}{'roofline':>9}{'regs':>5}  " + ''.join(f'{p:>9}' for p in PRESETS)
    print(head); print('-' * len(head))
    fmt = lambda v, f: '—' if v is None else format(v, f)
    for r in rows:
        print(f"{r['task']:<13}{r['variant']:<14}{r['verdict']:<26}{fmt(r['speedup_eager'], '.2f'):>9}{fmt(r['speedup_compile'], '.2f'):>9}"
              f"{fmt(r['peak_fraction'], '.0%'):>9}{fmt(r['registers'], 'd'):>5}  " + ''.join(f"{r['totals'][p]:>9.3f}" for p in PRESETS))
        print(f"{'':<27}{r['explanation']}")
    out = Path(args.out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(device=torch.cuda.get_device_name(0), torch=torch.__version__, nvcc=nvcc_version(),
                                   roofline=roof, seconds=time.perf_counter() - t0, rows=rows), indent=1, default=str))
    print(f'wrote {out} in {time.perf_counter() - t0:.0f} s')
    return 0

if __name__ == '__main__': sys.exit(main())

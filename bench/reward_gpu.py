#!/usr/bin/env python
"""Rewards on real measurements (needs an NVIDIA GPU and nvcc).

Judges the built-in kernels and a few deliberately bad variants with the project's `Evaluator` (the
sandbox workers, checks and timing the trainer uses: every shape, fresh inputs each trial, NaN-poisoned
outputs, guard zones, inputs compared after the call, timed against eager PyTorch and torch.compile),
then scores each under every reward preset: a correct kernel must outrank a wrong one, a hack must get 0.

    python bench/reward_gpu.py                          # every registered task
    python bench/reward_gpu.py --quick --tasks relu     # what tests/test_reward.py runs on a GPU

Prints a table and writes bench/results/reward_gpu.json (or --out).
"""
from __future__ import annotations
import argparse, json, re, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch
from cudarl_wb.core import *
from cudarl_wb.tasks import TASKS, get_task
from cudarl_wb.benchmarker import Evaluator
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

# --- judging and scoring ----------------------------------------------------------------------------
def judge(ev: Evaluator, task, name: str, source: str) -> dict:
    "Build and judge one variant with the Evaluator, then score it under every preset."
    cr = ev.compile(task, source)
    br = ev.evaluate(task, cr) if cr.ok else None
    rewards = {p: compute_reward(cr, br, p, task=task) for p in PRESETS}
    get = lambda k: getattr(br, k) if br else None
    return dict(task=task.name, variant=name, verdict=rewards['ours'].verdict, message=br.message if br else '',
                flags=list(br.flags) if br else [], kernel_ms=get('kernel_ms'), eager_ms=get('eager_ms'),
                compiled_ms=get('compiled_ms'), speedup_eager=get('speedup_eager'), speedup_compile=get('speedup_compile'),
                peak_fraction=get('peak_fraction'), registers=max((k.registers for k in cr.kernels), default=None),
                spill_bytes=sum(k.spill_store_bytes + k.spill_load_bytes for k in cr.kernels),
                totals={p: r.total for p, r in rewards.items()}, explanation=rewards['ours'].explanation,
                rewards={p: r.to_dict() for p, r in rewards.items()})


def print_table(rows):
    head = f"{'task':<13}{'variant':<14}{'verdict':<26}{'vs eager':>9}{'vs comp.':>9}{'roofline':>9}{'regs':>5}  " + ''.join(f'{p:>9}' for p in PRESETS)
    print(head); print('-' * len(head))
    fmt = lambda v, f: '—' if v is None else format(v, f)
    for r in rows:
        print(f"{r['task']:<13}{r['variant']:<14}{r['verdict']:<26}{fmt(r['speedup_eager'], '.2f'):>9}{fmt(r['speedup_compile'], '.2f'):>9}"
              f"{fmt(r['peak_fraction'], '.0%'):>9}{fmt(r['registers'], 'd'):>5}  " + ''.join(f"{r['totals'][p]:>9.3f}" for p in PRESETS))
        print(f"{'':<27}{r['explanation']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--tasks', nargs='*', help='task names (default: every registered task)')
    ap.add_argument('--quick', action='store_true', help='fewer trials and a shorter timing budget')
    ap.add_argument('--no-compile', action='store_true', help='skip the torch.compile baseline')
    ap.add_argument('--out', default=str(ROOT / 'bench/results/reward_gpu.json'))
    args = ap.parse_args(argv)
    if not torch.cuda.is_available(): print('needs a CUDA GPU'); return 2
    tasks = [get_task(t) for t in args.tasks] if args.tasks else sorted(TASKS.values(), key=lambda t: (t.tier, t.name))
    t0 = time.perf_counter()
    with Evaluator(trials=2 if args.quick else 5, time_budget=0.2 if args.quick else 0.5,
                   torch_compile=not args.no_compile) as ev:
        ev.start()
        peaks = ev.peaks()
        print(f"{ev.slots[0].device_name}: {peaks.get('bandwidth_gbps', float('nan')):.0f} GB/s, "
              f"fp32 matmul {peaks.get('fp32_tflops', float('nan')):.1f} TFLOP/s")
        rows = [judge(ev, task, name, src) for task in tasks for name, src in variants(task).items()]
        device = ev.slots[0].device_name
    print_table(rows)
    out = Path(args.out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(device=device, torch=torch.__version__, nvcc=nvcc_version(), peaks=peaks,
                                   seconds=time.perf_counter() - t0, rows=rows), indent=1, default=str))
    print(f'wrote {out} in {time.perf_counter() - t0:.0f} s')
    return 0

if __name__ == '__main__': sys.exit(main())

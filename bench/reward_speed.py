#!/usr/bin/env python
"""How fast the reward is on a CPU core: compute_reward (every preset) and code_quality.

The verl backend computes rewards in CPU workers, streamed beside rollouts; the built-in trainer computes
them in the training process. Either way the reward must cost microseconds-to-milliseconds next to the
seconds an nvcc build or a GPU benchmark takes. Sources: the built-in solutions, an optimised softmax, and
a 200 kB adversarial text (the longest `code_quality` reads).

    python bench/reward_speed.py            # prints a table, writes bench/results/reward_speed.json
"""
from __future__ import annotations
import json, statistics, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from cudarl_wb.core import *
from cudarl_wb.tasks import TASKS
from cudarl_wb.reward import PRESETS, code_quality, compute_reward, MAX_QUALITY_CHARS

def per_call(fn, min_time=0.3) -> float:
    "Median seconds per call over batches that each last at least a few milliseconds."
    fn(); n, t = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n): fn()
        t = time.perf_counter() - t0
        if t > 0.01: break
        n *= 4
    samples = []
    end = time.perf_counter() + min_time
    while time.perf_counter() < end or len(samples) < 5:
        t0 = time.perf_counter()
        for _ in range(n): fn()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)

def main() -> int:
    ok = [ShapeCheck('a', 5, 5), ShapeCheck('b', 5, 5), ShapeCheck('c', 5, 5)]
    br = BenchResult(Verdict.CORRECT, checks=ok, speedup_eager=1.8, speedup_compile=0.7, peak_fraction=0.4, achieved_gbps=1300.0)
    adversarial = '__global__ void k(float* y) {' + '(((( [[[ if ( for ( x = threadIdx.x; ' * 6000
    adversarial = adversarial[:MAX_QUALITY_CHARS]
    sources = {t.name: t.solution for t in TASKS.values()}
    sources['adversarial_200kB'] = adversarial
    rows = []
    for name, src in sources.items():
        task = TASKS.get(name)
        cr = CompileResult(True, Verdict.COMPILED, source=src, kernels=[KernelResources('k', registers=32)])
        rows.append(dict(source=name, chars=len(src),
                         code_quality_us=per_call(lambda: code_quality(src)) * 1e6,
                         **{f'reward_{p}_us': per_call(lambda: compute_reward(cr, br, p, task=task)) * 1e6 for p in PRESETS}))
    cols = list(rows[0])
    print(' '.join(f'{c:>18}' for c in cols))
    for r in rows: print(' '.join(f'{r[c]:>18.1f}' if isinstance(r[c], float) else f'{r[c]:>18}' for c in cols))
    out = ROOT / 'bench/results/reward_speed.json'
    atomic_write_json(out, dict(rows=rows, note='microseconds per call, one CPU core, median'))
    print(f'wrote {out}')
    return 0

if __name__ == '__main__': sys.exit(main())

"""The `small` warm start on one GPU: tokens/s, peak memory, and the held-out compile and correct rates before
and after (target: >= 60% correct on tier-0 held-out compositions, the `elementwise` group). One command, about
6-8 minutes on an H100 including both measurements (1,225 Generator and 260 Optimizer steps, stopped early
once every probe task compiles or the entropy per token falls under the preset's floor):

    python runs/sft_gpu.py --copy-to results/

Checkpoints go to --out (default runs/sft_gpu/sft_small); metrics.json,
eval_rows.json, sft_eval.png and this script's JSON are copied to --copy-to. Prints a table.
"""
import argparse, json, os, shutil, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT/'bench')]      # the package, and bench/_table.py


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--preset', default='small')
    p.add_argument('--model', default=None, help='a real checkpoint instead (LoRA agents)')
    p.add_argument('--out', default=str(ROOT/'runs'/'sft_gpu'/'sft_small'))
    p.add_argument('--time-budget', type=float, default=None, help="a cap on training seconds for both agents (default: the preset's); the length is the preset's steps")
    p.add_argument('--copy-to', default=None, help='a folder to copy the figures and JSON into')
    p.add_argument('--set', action='append', default=[], metavar='KEY=VALUE')
    p.add_argument('--json', default=str(ROOT/'runs'/'sft_gpu'/'sft_gpu.json'))
    p.add_argument('--evaluate', default='both', choices=['both', 'after', 'none'],
                   help="held-out measurements: before and after training (default), after only, or none")
    a = p.parse_args(argv)
    import torch
    from cudarl_wb.sft import run_sft, sft_table, _overrides
    print(f'torch {torch.__version__}, cuda {torch.cuda.is_available()}: '
          f'{torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"}', flush=True)
    t0 = time.perf_counter()
    m = run_sft(a.preset, model=a.model, out=a.out, time_budget_s=a.time_budget, progress=False,
                evaluate={'both': True, 'after': 'after', 'none': False}[a.evaluate], **_overrides(a.set))
    wall = time.perf_counter() - t0
    print(); print(sft_table(m))
    ev = m['eval']
    tier0 = {w: ((ev[w] or {}).get('generator', {}).get('groups', {}).get('elementwise') or {}) for w in ('before', 'after')}
    fmt = lambda x: '-' if x is None else f'{x:.0%}'
    print(f"\ntier-0 held-out (elementwise) correct: {fmt(tier0['before'].get('correct'))} -> {fmt(tier0['after'].get('correct'))} "
          f"(target >= 60%), compile {fmt(tier0['before'].get('compile'))} -> {fmt(tier0['after'].get('compile'))}; "
          f"{m['train']['tokens_per_s']:.0f} tokens/s; peak GPU memory {m['peak_memory']['gpu_gb']} GB; wall {wall:.0f} s")
    g = m['train']['generator']
    print(f"Generator: {g['steps']} of {g['planned_steps']} steps in {g['seconds']:.0f} s, stopped by {g['stopped_by']}; "
          f"probes (step, compile, correct, entropy, s) {[(p['step'], p['compile'], p.get('correct'), p['entropy'], p['seconds']) for p in g.get('probes', [])]}; "
          f"entropy per token {m['entropy']['before']} -> {m['entropy']['after']} nats")
    result = dict(metrics=m, wall_seconds=round(wall, 1), tier0=tier0)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(result, indent=1))
    if a.copy_to:
        dst = Path(a.copy_to); dst.mkdir(parents=True, exist_ok=True)
        for name in ('metrics.json', 'eval_rows.json', 'sft_eval.png'):
            if (Path(a.out)/name).exists(): shutil.copy(Path(a.out)/name, dst/f'sft_{a.preset}_{name}')
        if Path(a.json).resolve() != (dst/'sft_gpu_bench.json').resolve(): shutil.copy(a.json, dst/'sft_gpu_bench.json')
        print(f'copied the results to {dst}')


if __name__ == '__main__': main()

"""The tiny warm start on this CPU, as `cudarl-wb train --preset tiny` runs it before RL.

Measures the wall time (data, nvcc for the repair pairs, the two measurements, training), tokens/s, peak memory,
and the held-out rates before and after: the target is >= 80% of the Generator's greedy answers compiling on
held-out procedural compositions. The warm start runs the preset's steps per agent (`SFT_PRESETS` in 12_sft:
400 Generator and 142 Optimizer steps); the entropy per token is reported before and after.
The machine's load average is recorded: on a shared CPU it moves the times.

    python runs/sft_tiny.py [--out DIR] [--time-budget S] [--cold-cache] [--set KEY=VALUE ...]

Prints a table and writes runs/sft_tiny/sft_tiny.json (or --json PATH).
"""
import argparse, json, os, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT/'bench')]      # the package, and bench/_table.py


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--out', default=None, help='checkpoint folder (default: a new one under runs/sft_tiny/)')
    p.add_argument('--time-budget', type=float, default=None, help="a cap on training seconds for both agents (default: the preset's); the length is the preset's steps")
    p.add_argument('--cold-cache', action='store_true', help='start from an empty cudarl cache (nvcc builds and repair pairs included)')
    p.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override an SFTConfig setting (JSON value)')
    p.add_argument('--json', default=str(ROOT/'runs'/'sft_tiny'/'sft_tiny.json'))
    a = p.parse_args(argv)
    if a.cold_cache: os.environ['CUDARL_CACHE'] = tempfile.mkdtemp(prefix='cudarl-cold-')
    from cudarl_wb.sft import run_sft, sft_table, _overrides
    (ROOT/'runs'/'sft_tiny').mkdir(parents=True, exist_ok=True)
    out = Path(a.out or tempfile.mkdtemp(prefix='run-', dir=ROOT/'runs'/'sft_tiny'))/'sft_checkpoints'
    t0 = time.perf_counter()
    m = run_sft('tiny', out=out, time_budget_s=a.time_budget, **_overrides(a.set))
    wall = time.perf_counter() - t0
    print(); print(sft_table(m))
    ev = m['eval']
    proc = {w: (ev[w] or {}).get('generator', {}).get('procedural') for w in ('before', 'after')}
    g = m['train']['generator']
    print(f"\nGenerator: {g['steps']} of {g['planned_steps']} steps in {g['seconds']:.0f} s, stopped by {g['stopped_by']}; "
          f"probes {[(p['step'], p['compile'], p['entropy'], p['seconds']) for p in g.get('probes', [])]}; "
          f"entropy per token {m['entropy']['before']} -> {m['entropy']['after']} nats")
    print(f"held-out procedural compile rate: {proc['before']['compile']:.0%} -> {proc['after']['compile']:.0%} "
          f"(target >= 80%) over {proc['after']['n']} tasks; wall {wall:.0f} s (training {m['train']['seconds']:.0f} s); "
          f"load average {m['load_average']['start']} -> {m['load_average']['end']}"
          + ('; cold cache' if a.cold_cache else ''))
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(dict(metrics=m, wall_seconds=round(wall, 1), cold_cache=a.cold_cache, out=str(out),
                                            procedural_compile=dict(before=proc['before']['compile'], after=proc['after']['compile'])), indent=1))
    print(f'wrote {a.json}')


if __name__ == '__main__': main()

#!/usr/bin/env python
"""How long does a warm start take to make its examples? The parts of `_sft_data` (12_sft) for a preset's settings,
on this machine: the procedural tasks, the rows (the repair mutants' nvcc builds are cached after a first run) and
the tokenisation. Nothing here needs a GPU; `--gpu-settings` takes the settings the preset uses on a GPU (its
`on_gpu`), which are what the README's command trains there.

    python bench/sft_data_bench.py                          # tiny, as on a CPU (1,200 compositions)
    python bench/sft_data_bench.py --gpu-settings           # tiny, as on a GPU (24,000 compositions)
    python bench/sft_data_bench.py --preset small --cold    # small, with an empty build cache

Prints a table and writes JSON (default bench/results/sft_data_bench.json).
"""
import argparse, json, os, platform, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO/'bench')]
os.environ.setdefault('OMP_NUM_THREADS', '1')


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--preset', default='tiny', choices=['tiny', 'small'])
    p.add_argument('--gpu-settings', action='store_true', help="the preset's settings on a GPU (its on_gpu)")
    p.add_argument('--cold', action='store_true', help='an empty build cache: the repair rows build their mutants')
    p.add_argument('--out', default=str(REPO/'bench'/'results'/'sft_data_bench.json'))
    a = p.parse_args(argv)
    if a.cold: os.environ['CUDARL_CACHE'] = tempfile.mkdtemp(prefix='sft-data-bench-')
    from _table import table
    from cudarl_wb.agents import Tester
    from cudarl_wb.models import load_tokenizer
    from cudarl_wb.sft import builtin_rows, sft_config, tokenize_rows
    from cudarl_wb.tasks import procedural_tasks
    cfg = sft_config(a.preset, device='cuda' if a.gpu_settings else 'cpu')
    rows, tok = [], load_tokenizer()

    def part(name, fn):
        t = time.perf_counter(); out = fn(); rows.append(dict(part=name, seconds=round(time.perf_counter() - t, 1)))
        return out

    part(f"procedural tasks ({sum(cfg.procedural.values()):,} compositions)",
         lambda: [procedural_tasks(n, seed=cfg.seed, split='train', family=f) for f, n in cfg.procedural.items() if n])
    with Tester(evaluator=False, time_it=False, workers_per_device=4) as tester:
        gen, opt, _ = part(f'rows: suite, procedural, {cfg.repair_pairs} repair mutants built', lambda: builtin_rows(cfg, tester))
    ds, _ = part(f'tokenising {len(gen):,} Generator rows', lambda: tokenize_rows(gen, tok, cfg.max_length))
    part(f'tokenising {len(opt):,} Optimizer rows', lambda: tokenize_rows(opt, tok, cfg.max_length_optimizer))
    rows.append(dict(part='all of it', seconds=round(sum(r['seconds'] for r in rows), 1)))
    print(f"{a.preset}'s warm-start data ({'GPU' if a.gpu_settings else 'CPU'} settings), "
          f"{'empty' if a.cold else 'current'} build cache; {platform.machine()}, {os.cpu_count()} cores:")
    table(rows, ['part', 'seconds'])
    result = dict(preset=a.preset, gpu_settings=a.gpu_settings, cold=a.cold, cores=os.cpu_count(), examples=len(ds),
                  optimizer_rows=len(opt), parts=rows)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=1))
    print(f'wrote {a.out}')


if __name__ == '__main__':
    main()

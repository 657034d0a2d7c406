"""Held-out curves of several GRPO runs on one figure, and their evaluations as a table.

Each run is `LABEL=PATH`, where PATH is a run's output folder, its `final_model/training_metrics.json` or any JSON
with an `evals` list, or its `last/trainer_state.pt` (a run still going, or stopped early).

    python tools/compare_runs.py --metric fast_0 --title "small on an H200" --out curves.png \\
        "lr 3e-5=runs/rl_small_3e-5" "lr 6e-5=runs/rl_small_6e-5"

`--also first_compile_rate` draws a second metric dashed. Prints one row per evaluation and writes the rows to
--json (default runs/compare_runs/compare_runs.json).
"""
import argparse, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT/'bench'))      # bench/_table.py
from _table import table


def evals_of(path: str) -> list[dict]:
    "The held-out evaluations a run wrote: from its metrics JSON, its folder, or its `last/trainer_state.pt`."
    p = Path(path)
    if p.is_dir():
        for c in (p/'final_model'/'training_metrics.json', p/'last'/'trainer_state.pt'):
            if c.exists(): return evals_of(str(c))
        raise FileNotFoundError(f'{p} holds no final_model/training_metrics.json and no last/trainer_state.pt')
    if p.suffix == '.pt':
        import torch
        return torch.load(p, weights_only=False, map_location='cpu')['evals']
    data = json.loads(p.read_text())
    if 'evals' not in data: raise ValueError(f'{p} has no "evals" list')
    return data['evals']


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('runs', nargs='+', metavar='LABEL=PATH')
    ap.add_argument('--metric', default='fast_0', help='an evaluation key: fast_0 (correct), compile_rate, tier1_fast_0, …')
    ap.add_argument('--also', default=None, help='a second key, drawn dashed')
    ap.add_argument('--title', default='held-out evaluations')
    ap.add_argument('--xlabel', default='GRPO step')
    ap.add_argument('--ylabel', default=None)
    ap.add_argument('--ylim', type=float, nargs=2, default=None)
    ap.add_argument('--out', default='compare_runs.png')
    ap.add_argument('--json', default=None)
    a = ap.parse_args(argv)
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.6))
    rows = []
    for i, spec in enumerate(a.runs):
        label, sep, path = spec.partition('=')
        if not sep: sys.exit(f'a run is LABEL=PATH, not {spec!r}')
        ev = evals_of(path)
        ev = [e for j, e in enumerate(ev) if j == 0 or e['step'] != ev[j - 1]['step']]   # the final evaluation repeats the last
        color = f'C{i}'
        ax.plot([e['step'] for e in ev], [e.get(a.metric) for e in ev], 'o-', color=color, label=f'{label}')
        if a.also: ax.plot([e['step'] for e in ev], [e.get(a.also) for e in ev], '.--', color=color, alpha=0.7)
        rows += [dict(run=label, step=e['step'], **{k: round(e[k], 3) for k in (a.metric, a.also) if k and e.get(k) is not None})
                 for e in ev]
    ax.set_title(a.title, fontsize=10); ax.set_xlabel(a.xlabel); ax.set_ylabel(a.ylabel or a.metric + (f' (dashed: {a.also})' if a.also else ''))
    if a.ylim: ax.set_ylim(*a.ylim)
    ax.grid(alpha=0.3); ax.legend(fontsize=7, loc='upper left', bbox_to_anchor=(1.01, 1.0))
    fig.savefig(a.out, dpi=110, bbox_inches='tight')
    table(rows, ['run', 'step', a.metric] + ([a.also] if a.also else []))
    out_json = Path(a.json or ROOT/'runs'/'compare_runs'/'compare_runs.json')
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps(rows, indent=1))
    print(f'wrote {a.out} and {out_json}')


if __name__ == '__main__': main()

"""Runs of `cudarl-wb train` side by side in one figure: each step's training rate, and the test at the start and the
end with its 95% interval (from the run's `report.json`).

    python runs/plot_runs.py RUN_DIR [RUN_DIR ...] --labels "seed 0" "seed 1" --out runs.png
    python runs/plot_runs.py runs/out/readme_seed0/run runs/out/readme_seed1/run --labels "seed 0" "seed 1" \
        --title "cudarl-wb train --preset tiny on a 2-core CPU (compile-only), rejection-sampling steps" \
        --out nbs/images/tiny_readme_cpu_two_seeds.png

A RUN_DIR is a run's output folder (`--output-dir`): it holds `report.json` and `final_model/training_metrics.json`.
The training rate is the step's compile rate where the run judged compile-only, else its correct rate.
"""
import argparse, json
from pathlib import Path


def read_run(d: Path) -> dict:
    "The steps, the test rows and the settings of the run in folder `d`."
    m = json.loads((d/'final_model'/'training_metrics.json').read_text())
    rep = json.loads((d/'report.json').read_text())
    return dict(steps=m['steps'], rows=rep['rows'], verdict=rep['verdict'], tasks=rep['test_tasks'], config=m['config'])


def plot_runs(runs: list[dict], labels: list[str], title: str = ''):
    "Two panels: the training rate by step, and test start against end with intervals."
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    verdict = runs[0]['verdict']
    key = 'compile_rate' if verdict == 'compiled' else 'correct_rate'
    for i, (r, lab) in enumerate(zip(runs, labels)):
        a.plot([s['step'] for s in r['steps']], [s[key] for s in r['steps']], marker='o', label=lab)
        start, final = (v['summary'] for k, v in r['rows'].items() if k.startswith(('start', 'final')))
        x = [0 + 0.04 * i, 1 + 0.04 * i]
        ys = [start['rate'], final['rate']]
        err = [[y - s['lo'] for y, s in zip(ys, (start, final))], [s['hi'] - y for y, s in zip(ys, (start, final))]]
        b.errorbar(x, ys, yerr=err, marker='o', capsize=4, label=lab)
    c = runs[0]['config']
    a.set(title=f"training ({c['batch_size']} tasks × {c['group_size']}, T {c['temperature']})", xlabel='step',
          ylabel=f"{key.replace('_', ' ')} of the step's episodes")
    steps = runs[0]['steps'][-1]['step'] if runs[0]['steps'] else 0
    b.set(title='test, greedy', ylabel=f"test {'compile' if verdict == 'compiled' else 'correct'} ({runs[0]['tasks']} tasks, 95% interval)",
          ylim=(0, 1), xticks=[0, 1], xticklabels=['start', f'end (step {steps})'])
    a.legend(); b.legend()
    if title: fig.suptitle(title)
    fig.tight_layout()
    return fig


if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('runs', nargs='+', type=Path, help='run folders (--output-dir of cudarl-wb train)')
    p.add_argument('--labels', nargs='+', help='one label a run (default: the folder names)')
    p.add_argument('--title', default='')
    p.add_argument('--out', type=Path, default=Path('runs.png'))
    a = p.parse_args()
    labels = a.labels or [d.name for d in a.runs]
    if len(labels) != len(a.runs): p.error(f'{len(a.runs)} runs but {len(labels)} labels')
    plot_runs([read_run(d) for d in a.runs], labels, a.title).savefig(a.out, dpi=100)
    print(f'wrote {a.out}')

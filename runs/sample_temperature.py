"""How the group's sampling temperature changes what GRPO gets to learn from, for one checkpoint.

For each temperature, the Generator answers each held-out composition `--samples` times (first turn only), and
we count: the share of answers that compile (or are correct, on a GPU), the tasks with at least one good answer
in their group (pass@k: what RL can turn into pass@1), and the groups whose rewards differ at all (a group
with no spread teaches nothing). Greedy decoding is the first row, for reference.

    python runs/sample_temperature.py CHECKPOINT [--tasks 20] [--samples 4] [--temperatures 1.0 0.8 0.6 0.4]

Prints a table and writes runs/sample_temperature/sample_temperature.json (or --json PATH).
"""
import argparse, json, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT/'bench')]      # the package, and bench/_table.py
from _table import table


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('checkpoint', help='an agents folder (SFT or RL output)')
    p.add_argument('--tasks', type=int, default=20)
    p.add_argument('--samples', type=int, default=4)
    p.add_argument('--temperatures', type=float, nargs='+', default=[1.0, 0.8, 0.6, 0.4])
    p.add_argument('--max-new-tokens', type=int, default=640)
    p.add_argument('--json', default=str(ROOT/'runs'/'sample_temperature'/'sample_temperature.json'))
    a = p.parse_args(argv)
    import torch
    from cudarl_wb.models import AgentModels
    from cudarl_wb.agents import Generator, Optimizer, Sampling, Tester
    from cudarl_wb.episode import run_episodes
    from cudarl_wb.trainer import heldout_compositions
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    models = AgentModels.load(a.checkpoint, device=device, dtype=torch.float32 if device == 'cpu' else None, trainable=False)
    tasks = [t.name for t in heldout_compositions(a.tasks)]   # what a GRPO run with seed 0 evaluates on
    tester = Tester()
    good = (lambda v: v.correct) if tester.mode == 'full' else (lambda v: v.compiled)
    rows = []
    for temperature in [None, *a.temperatures]:
        t0 = time.perf_counter()
        s = (Sampling(greedy=True, max_new_tokens=a.max_new_tokens) if temperature is None
             else Sampling(temperature=temperature, max_new_tokens=a.max_new_tokens))
        k = 1 if temperature is None else a.samples
        eps = run_episodes(tasks, Generator(models, sampling=s), Optimizer(models, sampling=s), tester, group_size=k,
                           max_turns=1, progress=False, seed=0)
        by_task: dict[str, list] = {}
        for ep in eps: by_task.setdefault(ep.task, []).append(ep.turns[0].report)
        ok = [good(r.verdict) for rs in by_task.values() for r in rs]
        rows.append(dict(sampling='greedy' if temperature is None else f'T={temperature}', answers=len(ok),
                         good=f'{sum(ok) / len(ok):.2f}',
                         tasks_with_a_good_one=f'{sum(any(good(r.verdict) for r in rs) for rs in by_task.values())}/{len(by_task)}',
                         groups_with_spread='-' if k == 1 else
                         f'{sum(len({round(r.reward.total, 6) for r in rs}) > 1 for rs in by_task.values())}/{len(by_task)}',
                         seconds=round(time.perf_counter() - t0)))
        print(rows[-1], flush=True)
    print(f"\n{'correct' if tester.mode == 'full' else 'compiling'} first-turn answers on {a.tasks} held-out compositions, "
          f"{a.samples} samples a task [{tester.mode}], {a.checkpoint}:")
    table(rows, ['sampling', 'answers', 'good', 'tasks_with_a_good_one', 'groups_with_spread', 'seconds'])
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(dict(checkpoint=a.checkpoint, mode=tester.mode, rows=rows), indent=1))
    print(f'wrote {a.json}')


if __name__ == '__main__': main()

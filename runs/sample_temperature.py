"""How the group's sampling temperature changes what GRPO gets to learn from, for one checkpoint.

For each temperature, the agents play each held-out composition `--samples` times (the first turn only, or
whole episodes of `--max-turns`), and we count: the share of episodes whose best answer compiles (or is correct,
on a GPU), the tasks with at least one good episode in their group (pass@k: what RL can turn into pass@1), per
tier too, and the groups whose rewards differ at all (a group with no spread teaches nothing). Greedy decoding is
the first row, for reference: it is what a run's held-out evaluation plays. For each temperature it also asks
how well a group's likeliest sample (the highest summed log-probability of its first answer) stands in for the
greedy answer: the same first answer, the same verdict, and how often it failed where another episode passed.

    python runs/sample_temperature.py CHECKPOINT [--tasks 20] [--samples 4] [--temperatures 1.0 0.8 0.6 0.4]
    python runs/sample_temperature.py CHECKPOINT --tasks 64 --samples 8 --max-turns 2 --workers 3   # small's evaluation
    python runs/sample_temperature.py CHECKPOINT --split rl --tasks 16 ...   # the first 16 tasks of a run's pool

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
    p.add_argument('--max-turns', type=int, default=1, help='turns an episode (1: the Generator alone)')
    p.add_argument('--seed', type=int, default=0, help="the tasks of a run with this seed")
    p.add_argument('--split', default='test', choices=['test', 'val', 'rl'],
                   help="the run's held-out compositions, or the first of its training pool (what `--tasks procedural:N` trains on)")
    p.add_argument('--workers', type=int, default=1, help='sandbox workers a card')
    p.add_argument('--json', default=str(ROOT/'runs'/'sample_temperature'/'sample_temperature.json'))
    a = p.parse_args(argv)
    import torch
    from cudarl_wb.models import AgentModels
    from cudarl_wb.agents import Generator, Optimizer, Sampling, Tester
    from cudarl_wb.episode import run_episodes
    from cudarl_wb.tasks import procedural_tasks
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    models = AgentModels.load(a.checkpoint, device=device, dtype=torch.float32 if device == 'cpu' else None, trainable=False)
    held = procedural_tasks(a.tasks, seed=0 if a.split in ('val', 'test') else a.seed, split=a.split)   # what a run reports, chooses or trains on
    tasks, tier = [t.name for t in held], {t.name: t.tier for t in held}
    tester = Tester(workers_per_device=a.workers, timing='ratio')
    good = (lambda v: v.correct) if tester.mode == 'full' else (lambda v: v.compiled)
    rows = []
    for temperature in [None, *a.temperatures]:
        t0 = time.perf_counter()
        s = (Sampling(greedy=True, max_new_tokens=a.max_new_tokens) if temperature is None
             else Sampling(temperature=temperature, max_new_tokens=a.max_new_tokens))
        k = 1 if temperature is None else a.samples
        eps = run_episodes(tasks, Generator(models, sampling=s), Optimizer(models, sampling=s), tester, group_size=k,
                           max_turns=a.max_turns, progress=False, seed=0)
        groups: dict[str, list] = {}
        for ep in eps: groups.setdefault(ep.task, []).append(ep)
        by_task = {t: [(e.best or e.turns[0]).report for e in g] for t, g in groups.items()}
        # each task's episode whose first answer is likeliest (summed log-probability): greedy's nearest
        top = {t: max(g, key=lambda e: sum(e.turns[0].generation.logprobs)) for t, g in groups.items()}
        likeliest = {t: (good((e.best or e.turns[0]).report.verdict), e.turns[0].generation.text) for t, e in top.items()}
        if temperature is None: greedy = likeliest    # one episode a task: the greedy one
        ok = [good(r.verdict) for rs in by_task.values() for r in rs]
        passed = {t: any(good(r.verdict) for r in rs) for t, rs in by_task.items()}
        per_tier = {f'tier_{n}': f'{sum(v for t, v in passed.items() if tier[t] == n)}/{sum(tier[t] == n for t in passed)}'
                    for n in sorted(set(tier.values()))}
        rows.append(dict(sampling='greedy' if temperature is None else f'T={temperature}', answers=len(ok),
                         good=f'{sum(ok) / len(ok):.2f}',
                         tasks_with_a_good_one=f'{sum(passed.values())}/{len(passed)}',
                         groups_with_spread='-' if k == 1 else
                         f'{sum(len({round(r.reward.total, 6) for r in rs}) > 1 for rs in by_task.values())}/{len(by_task)}',
                         **per_tier, seconds=round(time.perf_counter() - t0)))
        if temperature is not None:   # how well the likeliest sample stands in for the greedy answer
            share = lambda f: f'{sum(f(t) for t in likeliest)}/{len(likeliest)}'
            rows[-1].update(likeliest_as_greedy=share(lambda t: likeliest[t][1] == greedy[t][1]),
                            likeliest_verdict_as_greedy=share(lambda t: likeliest[t][0] == greedy[t][0]),
                            likeliest_failed_another_passed=share(lambda t: passed[t] and not likeliest[t][0]),
                            greedy_failed_a_sample_passed=share(lambda t: passed[t] and not greedy[t][0]))
        print(rows[-1], flush=True)
    print(f"\n{'correct' if tester.mode == 'full' else 'compiling'} episodes on {a.tasks} {a.split} compositions, "
          f"{a.samples} samples a task, {a.max_turns} turn(s) an episode [{tester.mode}], {a.checkpoint}:")
    table(rows, ['sampling', 'answers', 'good', 'tasks_with_a_good_one', *[k for k in rows[0] if k.startswith('tier_')],
                 'groups_with_spread', 'seconds'])
    if len(rows) > 1:
        print('the likeliest of each group against the greedy answer (same first answer; same verdict; failed where another passed, '
              'against greedy failed where a sample passed):')
        table(rows[1:], ['sampling', 'likeliest_as_greedy', 'likeliest_verdict_as_greedy', 'likeliest_failed_another_passed',
                         'greedy_failed_a_sample_passed'])
    tester.close()
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(dict(checkpoint=a.checkpoint, mode=tester.mode, split=a.split, tasks=tasks, rows=rows), indent=1))
    print(f'wrote {a.json}')


if __name__ == '__main__': main()

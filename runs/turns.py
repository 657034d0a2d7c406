"""Serial refinement against parallel samples at an equal number of generated answers.

Kevin-32B (Cognition 2025) found that, at the same budget of generated kernels, several turns of
refinement beat more independent samples. This bench puts that to our agents: per task a budget of
`--budget` generated answers is spent either as `--budget` one-turn episodes (max_turns 1, group G) or
as G/T episodes of T turns (the Generator writes, the Tester judges, the Optimizer rewrites), for each T
in `--turns`.

Two ways to compare, from one warm start (an agents folder, e.g. a warm start's `sft/`):

- `--mode eval` (the default): sample every arrangement from the same model on held-out compositions and
  count the tasks that got a passing answer anywhere in their budget (compiled, on a CPU where rewards
  are compile-only; correct on a GPU), the mean best reward per task, and the answers actually generated
  (an episode stops early once a turn's reward reaches `--threshold`).
- `--mode train`: GRPO-train a copy for `--steps` steps per arrangement (group G/T, max_turns T, so every
  step generates at most the same number of answers), then report the trainer's greedy held-out
  evaluations at the start and the end (best turn, and first turn alone), and the step's seconds.

Run from the repository root:

    python runs/turns.py --warm DIR                                  # CPU: compile-only, eval mode
    python runs/turns.py --warm DIR --mode train --steps 6           # CPU: training, tiny scale
    python runs/turns.py --warm DIR --budget 8 --tasks 64 --device cuda                 # GPU: full reward
    python runs/turns.py --warm DIR --mode train --steps 10 --device cuda --preset small --lora-rank 16 \
        --learning-rate 1e-3 --batch-size 8 --test-tasks 128

Prints a table and writes bench/results/turns_bench_<mode>[_cpu].json and a figure beside it (.png), or under
$CUDARL_BENCH_RESULTS when it is set.
"""
import argparse, json, os, statistics, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))
from _table import table, results_dir


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--warm', required=True, help='agents folder to start from (a warm start, or a trained run)')
    ap.add_argument('--mode', default='eval', choices=['eval', 'train'])
    ap.add_argument('--budget', type=int, default=8, help='answers generated per task (the G of one-turn GRPO)')
    ap.add_argument('--turns', default='1,2,4', help='max_turns to compare; each must divide --budget')
    ap.add_argument('--tasks', type=int, default=24, help='held-out compositions (eval mode)')
    ap.add_argument('--temperature', type=float, default=0.8)
    ap.add_argument('--threshold', type=float, default=0.8, help='an episode stops once a turn reward reaches it')
    ap.add_argument('--max-new-tokens', type=int, default=640)
    ap.add_argument('--steps', type=int, default=6, help='GRPO steps per arrangement (train mode)')
    ap.add_argument('--batch-size', type=int, default=2, help='tasks per step (train mode)')
    ap.add_argument('--test-tasks', type=int, default=128, help='test tasks of the trainer (train mode)')
    ap.add_argument('--learning-rate', type=float, default=None, help='(train mode; default: the trainer\'s)')
    ap.add_argument('--preset', default='tiny', choices=['tiny', 'small'], help='the preset the warm start was made from (train mode: its learning rate)')
    ap.add_argument('--lora-rank', type=int, default=0, help='LoRA adapters on the copies (train mode)')
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--out', default=None, help='JSON path')
    a = ap.parse_args(argv)
    a.turns = [int(t) for t in a.turns.split(',')]
    bad = [t for t in a.turns if a.budget % t]
    if bad: ap.error(f'--budget {a.budget} is not a multiple of --turns {bad}')
    if a.mode == 'train' and a.budget // max(a.turns) < 2:
        ap.error('train mode needs groups of at least 2 episodes: --budget at least twice the largest --turns')
    return a


def _passed(turn, mode: str) -> bool:
    v = turn.report.verdict
    return bool(v.correct if mode == 'full' else v.compiled)


def spend(tasks, generator, optimizer, tester, budget: int, turns: int, threshold: float, seed: int) -> dict:
    "Per task, `budget` answers as budget/turns episodes of up to `turns` turns: what the budget found."
    from cudarl_wb.episode import run_episodes
    t0 = time.perf_counter()
    eps = run_episodes(tasks, generator, optimizer, tester, group_size=budget // turns, max_turns=turns,
                       threshold=threshold, progress=False, seed=seed)
    by_task = {}
    for ep in eps: by_task.setdefault(ep.task, []).extend(ep.turns)
    solved = [any(_passed(t, tester.mode) for t in ts) for ts in by_task.values()]
    best = [max((t.report.reward.total for t in ts), default=0.0) for ts in by_task.values()]
    answers = sum(len(ts) for ts in by_task.values())
    return dict(turns=turns, group=budget // turns, tasks=len(by_task), solved=sum(solved) / len(solved),
                best_reward=statistics.fmean(best), answers_per_task=answers / len(by_task),
                first_turn_pass=statistics.fmean(_passed(ep.turns[0], tester.mode) for ep in eps if ep.turns),
                seconds=round(time.perf_counter() - t0, 1))


def run_eval(a) -> list[dict]:
    from cudarl_wb.agents import Generator, Optimizer, Sampling, Tester
    from cudarl_wb.sft import start_agents
    from cudarl_wb.tasks import procedural_tasks
    models = start_agents(a.warm, device=a.device, seed=a.seed)
    sampling = Sampling(temperature=a.temperature, max_new_tokens=a.max_new_tokens)
    gen, opt, tester = Generator(models, sampling=sampling), Optimizer(models, sampling=sampling), Tester()
    tasks = procedural_tasks(a.tasks, seed=0, split='test')   # the trainer's test compositions
    rows = []
    for T in a.turns:
        rows.append(dict(spend(tasks, gen, opt, tester, a.budget, T, a.threshold, a.seed), mode=tester.mode))
        print(rows[-1], flush=True)
    tester.close()
    return rows


def run_train(a) -> list[dict]:
    from cudarl_wb.trainer import GRPOConfig, GRPOTrainer
    rows = []
    for T in a.turns:
        G = a.budget // T
        with tempfile.TemporaryDirectory() as tmp:
            cfg = GRPOConfig(preset=a.preset, lora_rank=a.lora_rank, generator_checkpoint=a.warm, output_dir=str(Path(tmp)/'rl'), group_size=G,
                             max_turns=T, batch_size=a.batch_size, num_episodes=a.steps * a.batch_size * G,
                             test_tasks=a.test_tasks, temperature=a.temperature, threshold=a.threshold,
                             max_new_tokens=a.max_new_tokens, learning_rate=a.learning_rate, seed=a.seed)
            final = GRPOTrainer(cfg, device=a.device).fit(progress=False)
        e0, e1 = final['evals'][0], final['evals'][-1]
        rows.append(dict(turns=T, group=G, steps=len(final['steps']), mode=e0['mode'],
                         answers_per_step=statistics.fmean(h['turns'] for h in final['steps']) if 'turns' in final['steps'][0] else None,
                         compile_start=e0['compile_rate'], compile_end=e1['compile_rate'],
                         first_start=e0['first_compile_rate'], first_end=e1['first_compile_rate'],
                         correct_start=e0['fast_0'], correct_end=e1['fast_0'],
                         step_s=round(statistics.fmean(h['step_s'] for h in final['steps']), 1)))
        print(rows[-1], flush=True)
    return rows


def figure(rows, a, path: Path):
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    x = [f"{r['turns']} turn{'s' * (r['turns'] > 1)} × {r['group']}" for r in rows]
    if a.mode == 'eval':
        ax.bar(x, [r['solved'] for r in rows], color='#4c72b0', label='tasks solved within the budget')
        ax.plot(x, [r['first_turn_pass'] for r in rows], 'o', color='#dd8452', label='first turns that pass')
        what = 'correct' if rows[0]['mode'] == 'full' else 'compiled'
        ax.set_title(f'{a.budget} answers per task, {rows[0]["tasks"]} held-out tasks ({what})', fontsize=9)
    else:
        w = 0.38; idx = range(len(rows))
        key = 'correct' if rows[0]['mode'] == 'full' else 'compile'
        ax.bar([i - w / 2 for i in idx], [r[f'{key}_start'] for r in rows], w, label=f'held-out {key}, start', color='#bbbbbb')
        ax.bar([i + w / 2 for i in idx], [r[f'{key}_end'] for r in rows], w, label=f'after {a.steps} steps', color='#4c72b0')
        ax.set_xticks(list(idx)); ax.set_xticklabels(x)
        ax.set_title(f'GRPO at {a.budget} answers per task per step', fontsize=9)
    ax.set_ylim(0, 1.05); ax.set_ylabel('rate'); ax.legend(fontsize=8, loc='upper right')
    fig.tight_layout(); fig.savefig(path, dpi=120); plt.close(fig)


def main(argv=None):
    a = parse(argv)
    import torch
    if a.device == 'cpu': torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', '2')))
    t0 = time.perf_counter()
    rows = run_eval(a) if a.mode == 'eval' else run_train(a)
    if a.mode == 'eval':
        table([{k: (f'{v:.2f}' if isinstance(v, float) else v) for k, v in r.items()} for r in rows],
              ['turns', 'group', 'tasks', 'answers_per_task', 'solved', 'first_turn_pass', 'best_reward', 'seconds'])
    else:
        table([{k: (f'{v:.2f}' if isinstance(v, float) else v) for k, v in r.items()} for r in rows],
              ['turns', 'group', 'steps', 'compile_start', 'compile_end', 'first_start', 'first_end', 'correct_start', 'correct_end', 'step_s'])
    outdir = results_dir()
    out = Path(a.out) if a.out else outdir/f"turns_bench_{a.mode}{'_cpu' if a.device == 'cpu' else ''}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(args=vars(a), rows=rows, wall_s=round(time.perf_counter() - t0), load=os.getloadavg()), indent=1))
    figure(rows, a, out.with_suffix('.png'))
    print(f'wrote {out} and {out.with_suffix(".png")}')


if __name__ == '__main__': main()

"""GRPO on the tiny preset on this CPU: does the held-out compile rate rise across the run?

The run is `cudarl-wb train --preset tiny` from a warm start, with more steps and a larger
held-out set than the README's three-step command, so that a change of the greedy held-out rate stands out from
the noise of a handful of tasks. Rewards are compile-only here (no GPU). With no --generator-checkpoint the
run makes its own warm start first (230 s of SFT, as the README's command does).

    python runs/train_tiny.py [--generator-checkpoint DIR] [--steps 20] [--test-tasks 128] [--seed 0] [--out DIR]
                              [--set learning_rate=2e-5 --set min_std=0.05 ...]

Any `GRPOConfig` field can be set with `--set field=value` (repeatable; values read as Python literals), so
runs from one warm start compare settings.

Prints the held-out evaluations (final and first-turn compile rate, per tier) and the seconds per step, and
writes runs/train_tiny/train_tiny.json (or --json PATH), the run itself under runs/train_tiny/ (or --out).
"""
import argparse, ast, json, os, statistics, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT/'bench')]      # the package, and bench/_table.py
from _table import table


def _value(s: str):
    try: return ast.literal_eval(s)
    except (ValueError, SyntaxError): return s


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--generator-checkpoint', default=None, help='an SFT output folder (default: warm-start first)')
    p.add_argument('--steps', type=int, default=20)
    p.add_argument('--batch-size', type=int, default=2)
    p.add_argument('--group-size', type=int, default=8)
    p.add_argument('--test-tasks', type=int, default=128)
    p.add_argument('--eval-every', type=int, default=5)
    p.add_argument('--learning-rate', type=float, default=None, help="default: the trainer's for tiny (lr_for)")
    p.add_argument('--temperature', type=float, default=0.8)
    p.add_argument('--start-tier', type=int, default=1, help='the held-out set has tiers 0 and 1; train on both')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--out', default=None, help='run folder (default: a new one under runs/train_tiny/)')
    p.add_argument('--set', action='append', default=[], help='a GRPOConfig field=value, over the flags above')
    p.add_argument('--json', default=str(ROOT/'runs'/'train_tiny'/'train_tiny.json'))
    a = p.parse_args(argv)
    import torch
    from cudarl_wb.trainer import GRPOConfig, GRPOTrainer
    torch.set_num_threads(min(os.cpu_count() or 1, 8))
    (ROOT/'runs'/'train_tiny').mkdir(parents=True, exist_ok=True)
    out = Path(a.out or tempfile.mkdtemp(prefix='run-', dir=ROOT/'runs'/'train_tiny'))/'rl'
    over = {k: _value(v) for k, v in (kv.split('=', 1) for kv in a.set)}
    bs, gs = over.get('batch_size', a.batch_size), over.get('group_size', a.group_size)
    cfg = GRPOConfig(**{**dict(preset='tiny', generator_checkpoint=a.generator_checkpoint, output_dir=str(out),
                               num_episodes=a.steps * bs * gs, batch_size=bs, group_size=gs, learning_rate=a.learning_rate,
                               temperature=a.temperature, test_tasks=a.test_tasks, eval_every=a.eval_every,
                               start_tier=a.start_tier, seed=a.seed), **over})
    t0 = time.perf_counter()
    trainer = GRPOTrainer(cfg, device='cpu')
    final = trainer.fit()
    wall = time.perf_counter() - t0
    pct = lambda v: '-' if v is None else f'{v:.0%}'
    rows = [dict(step=e['step'], compile=pct(e['compile_rate']), first_turn=pct(e['first_compile_rate']),
                 tier0=pct(e.get('tier0_compile_rate')), tier1=pct(e.get('tier1_compile_rate')))
            for e in final['evals']]
    print(f"\nheld-out compile rate, greedy, {a.test_tasks} test tasks, two turns [{trainer.mode}]:")
    table(rows, ['step', 'compile', 'first_turn', 'tier0', 'tier1'])
    mean = lambda k: statistics.fmean(h[k] for h in final['steps'])
    split = {k: round(mean(k), 1) for k in ('step_s', 'rollout_s', 'evaluation_s', 'update_s')}
    e0, e1 = final['evals'][0], final['evals'][-1]
    print(f"\ncompile {e0['compile_rate']:.0%} -> {e1['compile_rate']:.0%}, first turn {e0['first_compile_rate']:.0%} -> "
          f"{e1['first_compile_rate']:.0%} over {len(final['steps'])} steps; {split['step_s']} s a step = rollout "
          f"{split['rollout_s']} + evaluation {split['evaluation_s']} + update {split['update_s']}; wall {wall:.0f} s; "
          f"curves: {out/'training_curves.png'}")
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps(dict(config=cfg.to_dict(), evals=final['evals'], seconds_per_step=split,
                                            wall_seconds=round(wall, 1), curriculum=final['curriculum'].get('events'),
                                            out=str(out)), indent=1, default=str))
    print(f'wrote {a.json}')


if __name__ == '__main__': main()

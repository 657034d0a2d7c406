"""What a GRPO run's saved episodes say: which held-out tasks each evaluation gained and lost, and how the Tester
judged the training turns.

A run folder (`cudarl-wb train --output-dir`) keeps each held-out evaluation's episodes in `evals/step_N.jsonl`
and every training episode in `transcripts.jsonl`. For each run this prints:

- per evaluation: the held-out tasks with a correct turn, and how many of them were gained and lost against the
  first evaluation (a rate that stays level can still churn);
- over the training turns: the correct kernels, the share of them whose time was charged to the host clock
  because the timing's cross-check read work outside the stream (`host-clock: …`), the median ratio of their charged
  time to their fastest event time (1 would mean the charge cost nothing), and the turns flagged for leaked device memory.

    python tools/read_runs.py "3e-4=runs/rl_small_3e-4" "1e-3=runs/rl_small_1e-3" [--json PATH]

Writes the rows to runs/read_runs/read_runs.json (or --json).
"""
import argparse, json, re, statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT/'bench'))      # bench/_table.py
from _table import table
from cudarl_wb.benchmarker import Timing
from cudarl_wb.episode import load_transcripts     # skips the torn last line of a run that was killed


def bench_results(episode) -> list:
    "The Tester's benchmark result of each turn that got that far."
    return [t.report.bench for t in episode.turns if t.report is not None and t.report.bench is not None]


def solved(episode) -> bool:
    "Whether some turn of the episode wrote a correct kernel."
    return any(b.correct for b in bench_results(episode))


def step_of(path: Path) -> int: return int(re.findall(r'\d+', path.stem)[0])


def evaluations(run: Path) -> list:
    "One row per held-out evaluation, with the tasks gained and lost since the first one."
    files = sorted((run/'evals').glob('step_*.jsonl'), key=step_of)
    if not files: raise FileNotFoundError(f'{run} has no evals/step_N.jsonl')
    first, rows = None, []
    for f in files:
        ok = {e.task: solved(e) for e in load_transcripts(f)}
        first = first or ok
        rows.append(dict(step=step_of(f), tasks=len(ok), correct=sum(ok.values()),
                         gained=sum(v and not first.get(k, False) for k, v in ok.items()),
                         lost=sum(first.get(k, False) and not v for k, v in ok.items())))
    return rows


def training_turns(run: Path) -> dict:
    "How the Tester judged the run's training turns."
    path = run/'transcripts.jsonl'
    if not path.exists(): return {}
    turns, correct, host_clock, leaks, ratios = 0, 0, 0, 0, []
    for e in load_transcripts(path):
        turns += len(e.turns)
        for b in bench_results(e):
            if 'device-memory-leak' in b.flags: leaks += 1
            if not b.correct: continue
            correct += 1
            if not b.extra.get('timing'): continue
            timing = Timing.from_dict(b.extra['timing'])
            if not timing.escaped: continue
            host_clock += 1
            if timing.min_ms: ratios.append(timing.median_ms / timing.min_ms)
    return dict(turns=turns, correct_turns=correct, host_clock=host_clock,
                host_clock_share=round(host_clock / correct, 2) if correct else None,
                host_clock_over_fastest=round(statistics.median(ratios), 2) if ratios else None, leak_flags=leaks)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('runs', nargs='+', metavar='LABEL=RUN_FOLDER')
    ap.add_argument('--json', default=str(ROOT/'runs'/'read_runs'/'read_runs.json'))
    a = ap.parse_args(argv)
    evals, train = [], []
    for spec in a.runs:
        label, sep, path = spec.partition('=')
        if not sep: sys.exit(f'a run is LABEL=RUN_FOLDER, not {spec!r}')
        evals += [dict(run=label, **r) for r in evaluations(Path(path))]
        t = training_turns(Path(path))
        if t: train.append(dict(run=label, **t))
    print('held-out evaluations (a task counts as correct when some turn of its episode is)')
    table(evals, ['run', 'step', 'tasks', 'correct', 'gained', 'lost'])
    if train:
        print('\ntraining turns')
        table(train, ['run', 'turns', 'correct_turns', 'host_clock', 'host_clock_share', 'host_clock_over_fastest', 'leak_flags'])
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(evaluations=evals, training=train), indent=1))
    print(f'wrote {out}')


if __name__ == '__main__': main()

"runs/turns.py: one budget of answers per task, spent as one-turn samples or as refinement turns."
import sys
from pathlib import Path
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'runs'))
import turns as turns_bench


def test_budget_must_split_into_turns():
    with pytest.raises(SystemExit): turns_bench.parse(['--warm', 'x', '--budget', '4', '--turns', '1,3'])
    a = turns_bench.parse(['--warm', 'x', '--budget', '4', '--turns', '1,2,4'])
    assert (a.turns, a.budget) == ([1, 2, 4], 4)


def test_every_arrangement_spends_the_same_answers():
    import torch
    from cudarl_wb.agents import Generator, Optimizer, Sampling, Tester
    from cudarl_wb.sft import start_agents
    from cudarl_wb.tasks import procedural_tasks
    torch.set_num_threads(1)
    models = start_agents('tiny')                       # the random preset: no code, nothing passes, every turn runs
    s = Sampling(temperature=1.0, max_new_tokens=8)
    gen, opt, tester = Generator(models, sampling=s), Optimizer(models, sampling=s), Tester()
    tasks = procedural_tasks(2, split='test')
    rows = [turns_bench.spend(tasks, gen, opt, tester, 4, T, 0.8, 0) for T in (1, 2, 4)]
    assert [(r['turns'], r['group'], r['tasks']) for r in rows] == [(1, 4, 2), (2, 2, 2), (4, 1, 2)]
    assert [r['answers_per_task'] for r in rows] == [4.0, 4.0, 4.0]
    assert all(r['solved'] == 0.0 and r['first_turn_pass'] == 0.0 for r in rows)

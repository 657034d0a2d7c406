"""No composition or problem in two of the four splits, for every preset, seed and task set a run can name.

What each role draws: the warm start's examples (`12_sft.generator_rows` and the repair tasks), the RL pool
(`14_trainer.training_tasks`), validation and test (`14_trainer.evaluation_tasks`). Each is compared by the
key that decides a split (`tasks.task_key`: the composition, the problem's identity, or the family and name),
so two seeds that draw one composition under two names are caught too."""
import itertools
from pathlib import Path
import pytest
from cudarl_wb.tasks import TASKS, task_key, composition_split, procedural_tasks, SPLITS
from cudarl_wb.data import split_of
from cudarl_wb.sft import sft_config, HELDOUT_BUILTINS, heldout_tasks, probe_tasks
from cudarl_wb.trainer import GRPOConfig, RECIPES, training_tasks, evaluation_tasks

KB = Path(__file__).parent/'data'/'kernelbench'


def warm_start_tasks(preset: str, gpu: bool, seed: int) -> list:
    "What the warm start of `preset` learns from: the suite's sft tasks and its procedural compositions."
    cfg = sft_config(preset, device='cuda' if gpu else None, seed=seed)
    suite = [t for t in TASKS.values() if t.solution and t.name not in HELDOUT_BUILTINS and split_of(t) == 'sft']
    procs = [t for fam, n in cfg.procedural.items() if n for t in procedural_tasks(n, seed=seed, split='sft', family=fam)]
    return suite + procs


def roles(preset: str, seed: int, gpu: bool = False, **settings) -> dict:
    cfg = GRPOConfig(preset=preset, seed=seed, **{**RECIPES[preset], **settings})
    return dict(sft=warm_start_tasks(preset, gpu, seed), rl=training_tasks(cfg)[0],
                val=evaluation_tasks(cfg, 'val', gpu) + heldout_tasks(sft_config(preset).eval_procedural) + probe_tasks(sft_config(preset)),
                test=evaluation_tasks(cfg, 'test', gpu))


def check_disjoint(r: dict):
    keys = {role: {task_key(t) for t in ts} for role, ts in r.items()}
    for a, b in itertools.combinations(keys, 2):
        both = keys[a] & keys[b]
        assert not both, f'{len(both)} compositions or problems in both {a} and {b}, e.g. {sorted(both)[:3]}'
    for role, ks in keys.items():
        assert ks, f'no {role} tasks'
        wrong = [k for k in ks if composition_split(k) != role]
        assert not wrong, f'{role} holds tasks of other splits: {wrong[:3]}'


@pytest.mark.parametrize('preset,seed', [('tiny', 0), ('tiny', 1), ('small', 0), ('small', 1)])
def test_presets_draw_disjoint_splits(preset, seed):
    check_disjoint(roles(preset, seed))


def test_suite_and_kernelbench_problems_split_by_identity():
    r = roles('tiny', 0, tasks=f'builtin,procedural,kernelbench:{KB}:1,2', suite=True)
    check_disjoint(r)
    assert {t.family for t in r['rl']} == {'builtin', 'procedural', 'kernelbench'}
    assert {t.family for t in r['test']} == {'builtin', 'procedural', 'kernelbench'}


@pytest.mark.slow
def test_warm_start_on_a_gpu_draws_its_own_region():
    check_disjoint(roles('tiny', 0, gpu=True))   # the larger warm start of a GPU, and 256 test tasks


def test_a_planted_overlap_is_caught():
    r = roles('tiny', 0)
    r['test'] = r['test'] + [r['rl'][0]]
    with pytest.raises(AssertionError, match='both rl and test'):
        check_disjoint(r)


def test_each_region_is_large_enough():
    "Each family's regions hold the sizes the presets and the test sets ask for (distinct compositions)."
    for split, n in (('test', 128), ('val', 64), ('rl', 400)):
        for fam in ('elementwise', 'rowreduce', 'broadcast'):
            ts = procedural_tasks(n, seed=0, split=split, family=fam)
            assert len({t.extra['composition'] for t in ts}) == n and {t.extra['split'] for t in ts} == {split}
    assert set(SPLITS) == {'sft', 'rl', 'val', 'test'}

"The curriculum starts at the run's start tier, or at the highest tier below it that the task set has."
import types
from cudarl_wb.trainer import GRPOConfig, GRPOTrainer
from cudarl_wb.tasks import TASKS


def _tier(pool, start):
    fake = types.SimpleNamespace(cfg=GRPOConfig(start_tier=start), pool=pool, mode='compile-only')
    return GRPOTrainer._curriculum(fake, False).tier


def test_start_tier_falls_back_to_a_tier_the_tasks_have():
    every = list(TASKS.values())
    assert _tier(every, 1) == 1 and _tier(every, 0) == 0
    assert _tier([t for t in every if t.tier == 0], 1) == 0        # no tier 1 among the tasks: no KeyError

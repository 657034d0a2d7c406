"Integration tests of the curriculum: simulated learners over whole runs, checkpoints resumed in another process, compile-only gates from real builds."
import json, math, random, subprocess, sys
from pathlib import Path

import pytest

from cudarl_wb.core import *
from cudarl_wb.curriculum import Curriculum
from cudarl_wb.reward import compute_reward
from cudarl_wb.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]
TIERS = {0: ['ew_a', 'ew_b', 'ew_c'], 1: ['red_a', 'red_b'], 2: ['mm_a', 'mm_b'], 3: ['fused_a']}


class Learner:
    "A synthetic model whose skill on a tier grows with practice there and can be made to collapse."
    def __init__(self, seed=0, rate=0.01):
        self.rng, self.practice, self.rate, self.broken = random.Random(seed), {}, rate, set()
    def attempt(self, tier):
        self.practice[tier] = self.practice.get(tier, 0) + 1
        skill = 0.0 if tier in self.broken else 1 - math.exp(-self.rate * self.practice[tier])
        compiled = self.rng.random() < min(1.0, 0.5 + skill)
        correct = compiled and self.rng.random() < skill
        return compiled, correct, (0.5 + 2 * skill) if correct else None


def drive(cur, learner, episodes, batch=8):
    for _ in range(episodes // batch):
        for task in cur.sample(batch):
            cur.record(task, *learner.attempt(cur.tier_of(task)))


def test_a_learner_climbs_every_tier_in_order():
    cur, learner = Curriculum(TIERS, window=40, min_episodes=40, seed=1), Learner(seed=1)
    drive(cur, learner, 4000)
    assert cur.tier == 3
    assert [(e['kind'], e['from_tier'], e['to_tier']) for e in cur.events] == [('promote', 0, 1), ('promote', 1, 2), ('promote', 2, 3)]
    for e in cur.events: assert 'compile' in e['reason'] and 'pass' in e['reason'] and e['reason'].startswith(f"tier {e['from_tier']}: ready")
    df = cur.history_frame()
    late = df[df['tier'] == 3]
    assert 0.15 < late['replay'].mean() < 0.25                       # replay ≈ 0.2 once there are earlier tiers
    assert set(late[late['replay']]['task']) <= set(TIERS[0] + TIERS[1] + TIERS[2])
    assert not df[df['tier'] == 0]['replay'].any()


def drive_until(cur, learner, done, limit=2000):
    start = len(cur.history)
    while not done() and len(cur.history) - start < limit: drive(cur, learner, 8)
    assert done(), cur


def test_a_collapse_demotes_and_patience_guards_the_retry():
    cur, learner = Curriculum(TIERS, window=40, min_episodes=40, seed=2), Learner(seed=2)
    drive(cur, learner, 2400)
    top = cur.tier
    assert top >= 2
    learner.broken.add(top)                                           # training collapses at the top tier
    start, k = len(cur.history), len(cur.events)
    drive_until(cur, learner, lambda: cur.tier != top)
    assert cur.events[k]['kind'] == 'demote' and cur.tier == top - 1
    assert len(cur.history) - start <= 2 * 40 / 0.8 + 8                # seen within about a window of its own episodes
    drive_until(cur, learner, lambda: cur.tier == top)                # the tier below is still mastered: top is earned back
    assert cur.events[-1]['kind'] == 'promote'
    start = len(cur.history)
    drive_until(cur, learner, lambda: cur.tier != top)                # still broken, but a tier just reached gets patience
    assert sum(e['task_tier'] == top for e in cur.history[start:]) >= cur.config['demote_after'] == 160
    learner.broken.clear()
    drive_until(cur, learner, lambda: cur.tier >= top)
    drive(cur, learner, 400)
    assert cur.tier >= top and cur.events[-1]['kind'] == 'promote'


def test_checkpoint_resumed_in_another_process_continues_identically(tmp_path):
    a, la = Curriculum(TIERS, window=30, min_episodes=30, seed=3), Learner(seed=3)
    drive(a, la, 400)
    atomic_write_json(tmp_path / 'curriculum.json', a.state_dict())
    child = subprocess.run([sys.executable, '-c',
        'import json, sys\nfrom cudarl_wb.curriculum import Curriculum\n'
        'c = Curriculum.from_state_dict(json.load(open(sys.argv[1])))\n'
        'print(json.dumps(dict(tier=c.tier, samples=c.sample(64))))', str(tmp_path / 'curriculum.json')],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert child.returncode == 0, child.stderr
    got = json.loads(child.stdout)
    assert got == dict(tier=a.tier, samples=a.sample(64))


def test_compile_only_gate_with_rewards_from_real_builds(tmp_path):
    "No GPU: the rewards are compile-only, correctness is unmeasured, and gpu=False advances on the compile rate."
    import os
    os.environ.setdefault('CUDARL_CACHE', str(tmp_path / 'cache'))
    from cudarl_wb.compiler import compile_candidate
    good = {name: compute_reward(compile_candidate(t.solution), None, task=name) for name, t in TASKS.items()}
    bad = compute_reward(compile_candidate('__global__ void k(float* y) { y[0] = nope; }'))
    assert all(r.mode == 'compile-only' for r in good.values()) and bad.total == 0
    cur = Curriculum(window=80, min_episodes=80, gpu=False, seed=0)   # 80 episodes at 0.99: surely above the 0.9 gate
    rng = random.Random(0)
    for _ in range(200):
        for task in cur.sample(4):
            cur.record_reward(task, good[task] if rng.random() < 0.99 else bad)
    assert all(e['correct'] is None for e in cur.history)
    assert cur.tier == max(cur.tiers)
    assert all('gpu=False: pass rate not measured, gate on compile rate only' in e['reason'] for e in cur.events)
    gpu = Curriculum(window=20, min_episodes=20, gpu=True)
    for _ in range(30):
        for name in gpu.tasks(): gpu.record_reward(name, good[name])
    assert gpu.tier == 0 and 'pass — ≤ 0.75 (0 measured)' in gpu.status()['reason']   # nothing measured: no promotion on a GPU run


def test_bad_input_gets_clear_errors():
    with pytest.raises(ValueError, match='replay'): Curriculum(TIERS, replay=1.0)
    with pytest.raises(ValueError, match='at least 1'): Curriculum(TIERS, window=0)
    with pytest.raises(ValueError, match='in tier 0 and tier 1'): Curriculum({0: ['a'], 1: ['a']})
    cur = Curriculum(TIERS)
    with pytest.raises(KeyError, match='in no tier'): cur.record('nope', True)
    with pytest.raises(ValueError, match='finite positive'): cur.record('ew_a', True, True, -2.0)
    with pytest.raises(ValueError, match='non-negative'): cur.sample(-1)
    with pytest.raises(ValueError, match='version 0'): Curriculum(TIERS).load_state_dict({**cur.state_dict(), 'version': 0})
    with pytest.raises(ValueError, match='tier_index'): Curriculum(TIERS).load_state_dict({**cur.state_dict(), 'tier_index': 9})


def test_works_without_pandas_or_matplotlib():
    "Sampling, recording and checkpoints need neither (fastcore, a dependency, gives `patch`)."
    code = ('import sys\nfor m in ("pandas", "matplotlib"): sys.modules[m] = None\n'
            'from cudarl_wb.curriculum import Curriculum\n'
            'c = Curriculum({0: ["a"], 1: ["b"]}, window=4, min_episodes=4, confidence=None)\n'
            'for t in c.sample(4): c.record(t, True, True, 1.5)\n'
            'assert c.tier == 1 and Curriculum.from_state_dict(c.state_dict()).tier == 1\n'
            'from cudarl_wb.reward import compute_reward\nprint("ok", c.tier)')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == 'ok 1', r.stderr

"""A rollout through a real server: `cudarl-wb serve A --candidate B` on the CPU (compile-only), with two checkpoints
of known different quality (the tiny model untrained, whose answers never build, and a short warm start of it, whose
greedy answers build on about a fifth of the procedural test tasks). The canary must promote the better candidate
and roll back the worse one, each within a few hundred requests, and say so in its log, its state and its metrics."""
import concurrent.futures as cf, json, subprocess, sys
import pytest
from cudarl_wb.serve import ServerProcess
from cudarl_wb.tasks import procedural_tasks

pytest.importorskip('ray.serve', reason='the serve extra (ray[serve]) is not installed')
httpx = pytest.importorskip('httpx')
pytestmark = pytest.mark.slow
TASKS = [t.name for t in procedural_tasks(64, seed=0, split='test')]


@pytest.fixture(scope='module')
def warm(tmp_path_factory):
    "A short warm start of tiny: 300 Generator steps (about a minute on a 2-core CPU)."
    out = tmp_path_factory.mktemp('warm')/'sft'
    r = subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'sft', '--preset', 'tiny', '--no-eval', '--no-progress',
                        '--out', str(out), '--set', 'steps={"generator": 300, "optimizer": 1}'],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return out


def _roll(current, candidate, tmp, limit=480):
    "Serve `current` with `candidate`, send requests 16 at a time until the canary decides; its state, log and answers."
    log = tmp/'rollout.jsonl'
    with ServerProcess(current, '--candidate', candidate, '--stages', '0.5,1', '--min-requests', 10, '--turns', 1,
                       '--max-pending', 64, '--compile-only', '--device', 'cpu', '--log', log, log=tmp/'serve.log') as srv:
        answers, state = [], {}
        with httpx.Client(base_url=srv.url, timeout=300) as client, cf.ThreadPoolExecutor(16) as pool:
            while len(answers) < limit:
                wave = [TASKS[(len(answers) + i) % len(TASKS)] for i in range(16)]
                rs = list(pool.map(lambda t: client.post('/v1/kernels', json={'task': t}), wave))
                assert all(r.status_code == 200 for r in rs), [r.text for r in rs if r.status_code != 200][:2]
                answers += [r.json() for r in rs]
                state = client.get('/v1/rollout').json()
                if state['state'] != 'running': break
            after = [client.post('/v1/kernels', json={'task': t}).json() for t in TASKS[:4]]
            metrics = client.get('/metrics').text
    decisions = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return state, decisions, answers, after, metrics


def test_rollout_promotes_a_better_candidate(warm, tmp_path):
    state, decisions, answers, after, metrics = _roll('tiny', warm, tmp_path)
    assert state['state'] == 'promoted', (state, len(answers))
    assert [d['decision'] for d in decisions] == ['promote', 'promote']
    assert state['sides']['candidate']['correct'] > state['sides']['current']['correct'] == 0
    assert max(a['batch'] for a in answers) > 1                  # concurrent requests shared a batch
    assert 'cudarl_canary_state{state="promoted"} 1' in metrics
    assert all(a['variant'] == 'candidate' for a in after)        # all traffic on the promoted checkpoint


def test_rollout_rolls_back_a_worse_candidate(warm, tmp_path):
    state, decisions, answers, after, metrics = _roll(warm, 'tiny', tmp_path)
    assert state['state'] == 'rolled back', (state, len(answers))
    assert decisions[-1]['decision'] == 'roll back' and 'correct rate lower' in decisions[-1]['why']
    assert state['share'] == 0 and all(a['variant'] == 'current' for a in after)
    assert 'cudarl_canary_state{state="rolled back"} 1' in metrics

"Integration tests of the reward: the real nvcc, random results against the invariants, the command line, and (on a GPU) real measurements."
import dataclasses, json, math, random, subprocess, sys
from pathlib import Path

import pytest

from cudarl_wb.core import *
from cudarl_wb.compiler import compile_candidate
from cudarl_wb.reward import GATED, INFO_FLAGS, PRESETS, RUNTIME, TIMING_DOUBTS, Reward, compute_reward, turn_rewards
from cudarl_wb.tasks import TASKS, get_task

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    "Every built-in solution, built by the real nvcc (cached per test session)."
    import os
    os.environ.setdefault('CUDARL_CACHE', str(tmp_path_factory.mktemp('cache')))
    return {name: compile_candidate(t.solution) for name, t in TASKS.items()}


def test_builtin_solutions_get_a_compile_only_reward(built):
    for name, cr in built.items():
        assert cr.ok, cr.log
        for preset in PRESETS:
            r = compute_reward(cr, BenchResult(Verdict.COMPILED, task=name, device='cpu'), preset, task=name)
            assert r.mode == 'compile-only' and not r.flagged and r.gated, r
            assert not set(r.components) & set(RUNTIME), r.components
            assert r.explanation.startswith('compiled (compile-only'), r.explanation
        ours = compute_reward(cr, None, task=name)
        assert 0.1 < ours.total <= 0.18, (name, ours)
        assert compute_reward(cr, None, 'kevin').total == 0.0


def test_what_does_not_build_gets_nothing(built):
    src = get_task('relu').solution
    for bad in (src.replace('x[i] > 0.f', 'x[i] >> 0.f'), src + '\n}', 'int main( {', '\x00\xff'):
        cr = compile_candidate(bad)
        assert not cr.ok
        for preset in PRESETS:
            r = compute_reward(cr, None, preset)
            assert r.total == 0.0 and r.gated, r
            assert r.verdict in ('did-not-compile', 'rejected-by-static-check', 'no-code'), r.verdict
    r = compute_reward(compile_candidate(src.replace('x[i] > 0.f', 'x[i] >> 0.f')))
    assert r.explanation.startswith('did-not-compile: line 8:'), r.explanation


def _random_pair(rng: random.Random):
    "A CompileResult and BenchResult drawn over the whole space, including nonsense."
    verdict = rng.choice(list(Verdict) + [Verdict.CORRECT] * 8)   # correct often enough to reach every branch
    compiled = verdict.compiled
    kernels = [KernelResources('k', registers=rng.choice([0, 16, 64, 128, 255]), shared_bytes=rng.choice([0, 4096, 64 * 1024]),
                               spill_store_bytes=rng.choice([0, 0, 8, 512]), spill_load_bytes=rng.choice([0, 8]))]
    cr_verdict = Verdict.COMPILED if compiled else verdict
    cr = CompileResult(compiled, cr_verdict, source=rng.choice([get_task('relu').solution, get_task('matmul').solution, '']),
                       kernels=kernels if compiled else [],
                       diagnostics=[Diagnostic(1, 'warning', 'w')] * rng.randint(0, 7),
                       issues=[StaticIssue('forbidden-call', 'x')] if verdict is Verdict.REJECTED else [],
                       extra=rng.choice([{}, {'occupancy': rng.random()}, {'occupancy': float('nan')}]))
    if not compiled or rng.random() < 0.2: return cr, None
    trials = rng.randint(0, 5)
    checks = [ShapeCheck(f's{i}', trials, rng.choice([trials, trials, max(0, trials - 1)])) for i in range(rng.randint(0, 3))]
    num = lambda: rng.choice([None, 0.0, -1.0, float('nan'), float('inf'), 0.3, 0.9, 1.0, 1.7, 4.0, 9.9, 12.0, 150.0])
    br = BenchResult(verdict, checks=checks, speedup_eager=num(), speedup_compile=num(),
                     peak_fraction=rng.choice([None, 0.1, 0.6, 0.99, 1.3, float('nan')]),
                     flags=rng.choice([[], [], ['noisy-timing'], ['touched-inputs'], ['suspicious-speedup: 12x'],
                                       ['suspicious-speedup', 'retimed-wall-clock', 'timing-mismatch']]))
    return cr, br


def test_invariants_hold_over_random_results():
    rng = random.Random(0)
    seen = {'flagged': 0, 'passed': 0, 'gated': 0, 'untimed': 0}
    for _ in range(2000):
        cr, br = _random_pair(rng)
        for name, preset in PRESETS.items():
            r = compute_reward(cr, br, name)
            doubts = {f.split(':')[0] for f in (br.flags if br else [])} - INFO_FLAGS
            untimed = (cr.verdict is not Verdict.REJECTED and br is not None and br.verdict is Verdict.CORRECT and bool(br.checks)
                       and all(c.ok for c in br.checks) and bool(doubts) and doubts <= TIMING_DOUBTS)
            hack = cr.verdict is Verdict.REJECTED or (br is not None and any(f != 'noisy-timing' for f in br.flags) and not untimed)
            if hack: assert r.flagged and r.total == 0.0, r
            if untimed and cr.verdict.compiled and not r.flagged:   # right outputs, time in doubt: no speed credit, never above the same result unflagged
                seen['untimed'] += 1
                assert r.untimed and r.correct and not r.gated, r
                assert all(r.components.get(k, 0.0) == 0.0 for k in ('performance', 'efficiency', 'speedup_linear')), r.components
                clean = compute_reward(cr, dataclasses.replace(br, flags=[]), name)
                assert r.total <= clean.total + 1e-12 or clean.flagged, (r, clean)
            assert all(0.0 <= v <= 1.0 for v in r.components.values()), r.components
            assert set(r.components) == set(r.weights)
            assert math.isfinite(r.total)
            if r.flagged:
                seen['flagged'] += 1
                assert r.total == 0.0 and r.gated and r.gate_reason.startswith('flagged')
            else:
                lo, hi = preset.clip
                expect = sum(r.contributions.values())
                expect = expect if lo is None else max(lo, expect)
                expect = expect if hi is None else min(hi, expect)
                assert abs(r.total - expect) < 1e-12, (r.total, expect)
            if r.gated:
                seen['gated'] += 1
                assert all(r.components.get(k, 0.0) == 0.0 for k in GATED if r.mode == 'full'), r
                assert not r.correct
            else:
                seen['passed'] += 1
                assert r.verdict == 'correct' and br.checks and all(c.ok for c in br.checks)
            if not Verdict(r.verdict).compiled: assert r.total == 0.0
            assert Reward.from_json(json.dumps(r.to_dict())) == r
    assert min(seen.values()) > 100, seen   # the draw covers every branch


def test_any_correct_kernel_outranks_any_wrong_one():
    relu = get_task('relu')
    worst_resources = [KernelResources('k', registers=255, shared_bytes=96 * 1024, spill_store_bytes=4096, spill_load_bytes=4096)]
    for name in PRESETS:
        best_wrong = max(compute_reward(CompileResult(True, Verdict.COMPILED, source=relu.solution, kernels=[]),
                                        BenchResult(v, checks=[ShapeCheck('a', 5, 4)], speedup_eager=9.0), name, task=relu).total
                         for v in (Verdict.WRONG, Verdict.CRASHED, Verdict.TIMED_OUT))
        worst_correct = compute_reward(CompileResult(True, Verdict.COMPILED, source='', kernels=worst_resources,
                                                     diagnostics=[Diagnostic(1, 'warning', 'w')] * 9),
                                       BenchResult(Verdict.CORRECT, checks=[ShapeCheck('a', 5, 5)], speedup_eager=0.11, speedup_compile=0.11,
                                                   peak_fraction=0.0), name).total
        assert worst_correct > best_wrong, (name, worst_correct, best_wrong)


def test_turn_credit_from_rewards_read_back_from_a_transcript(tmp_path):
    relu = get_task('relu')
    cr = CompileResult(True, Verdict.COMPILED, source=relu.solution)
    ok = [ShapeCheck('a', 5, 5)]
    turns = [compute_reward(cr, BenchResult(Verdict.WRONG, checks=[ShapeCheck('a', 5, 1)])),
             compute_reward(cr, BenchResult(Verdict.CORRECT, checks=ok, speedup_eager=0.8, speedup_compile=0.5)),
             compute_reward(cr, BenchResult(Verdict.CORRECT, checks=ok, speedup_eager=2.0, speedup_compile=1.1))]
    path = tmp_path / 'episode.jsonl'
    path.write_text('\n'.join(r.to_json() for r in turns))
    back = [Reward.from_json(line) for line in path.read_text().splitlines()]
    roles = ['generator', 'optimizer', 'optimizer']
    credit = turn_rewards(back, roles)
    assert credit == turn_rewards([r.total for r in turns], roles, correct=[False, True, True])
    R, w, g = turns[-1].total, 0.7, 0.9
    assert credit == pytest.approx([w * g * g * R + 0.3 * turns[0].total,
                                    w * g * R + 0.3 * turns[1].total + 0.1,
                                    w * R + 0.3 * R + 0.1])


def _cli(*args):
    code = ('import argparse, sys\nfrom cudarl_wb.reward import reward_args, reward_command\n'
            'p = argparse.ArgumentParser(); reward_args(p); sys.exit(reward_command(p.parse_args(sys.argv[1:])))')
    return subprocess.run([sys.executable, '-c', code, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_reward_command_builds_and_scores_a_file(tmp_path):
    src = tmp_path / 'relu.cu'
    src.write_bytes(get_task('relu').solution.encode() + b'\n// \xff not utf-8\n')
    r = _cli('--source', str(src), '--task', 'relu', '--all-presets', '--json')
    assert r.returncode == 0, r.stderr
    rewards = json.loads(r.stdout)
    assert [x['preset'] for x in rewards] == list(PRESETS)
    assert all(x['mode'] == 'compile-only' for x in rewards)
    table = _cli('--source', str(src), '--task', 'relu')
    assert table.returncode == 0 and 'compile-only' in table.stdout
    assert _cli('--source', str(tmp_path / 'missing.cu')).returncode == 1


@pytest.mark.cuda
def test_rewards_on_real_measurements(tmp_path):
    "Build, run, check and time relu variants on the GPU (bench/reward_gpu.py), then hold the rewards to account."
    out = tmp_path / 'reward_gpu.json'
    r = subprocess.run([sys.executable, str(ROOT / 'bench/reward_gpu.py'), '--quick', '--tasks', 'relu', '--out', str(out)],
                       capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row['variant']: row for row in json.loads(out.read_text())['rows']}
    naive, vec4 = rows['naive'], rows['vec4']
    for row in (naive, vec4):
        assert row['verdict'] == 'correct', row
        assert 0.1 < row['speedup_eager'] < 10, row
        assert row['totals']['ours'] >= 0.4 and not row['rewards']['ours']['gated']
        assert row['totals']['kevin'] == pytest.approx(0.3 + row['speedup_eager'])
    assert vec4['rewards']['ours']['components']['quality'] > naive['rewards']['ours']['components']['quality']
    assert rows['no_tail']['verdict'] == 'wrong' and rows['no_tail']['totals']['ours'] <= 0.1
    assert 'n=1000003' in rows['no_tail']['explanation']
    # the compiler's static checker may refuse the two hacks before they run; either way they earn nothing
    assert rows['noop']['verdict'] in ('wrong', 'rejected-by-static-check') and rows['noop']['totals']['ours'] <= 0.1
    assert rows['syntax_error']['verdict'] == 'did-not-compile' and all(v == 0 for v in rows['syntax_error']['totals'].values())
    touched = rows['touches_input']
    assert all(v == 0 for v in touched['totals'].values()) and touched['rewards']['ours']['flagged'], touched
    for name in PRESETS:
        assert min(naive['totals'][name], vec4['totals'][name]) > max(rows[v]['totals'][name] for v in ('no_tail', 'noop', 'syntax_error', 'touches_input'))


def test_group_view_prints_as_text_and_fits():
    "reward_widget: a text form (no Styler, no terminal codes), the picked row highlighted, explanations kept short."
    from IPython.core.formatters import PlainTextFormatter
    from cudarl_wb.reward import reward_widget, group_table_html
    cr = CompileResult(True, Verdict.COMPILED, source='__global__ void k(float* y) { y[threadIdx.x] = 0; }\n'
                       'extern "C" void launch(float* y, cudaStream_t s) { k<<<1, 32, 0, s>>>(y); }')
    group = [compute_reward(cr, BenchResult(v, checks=[ShapeCheck('n=32', 5, 5 if v is Verdict.CORRECT else 0)], speedup_eager=s))
             for v, s in ((Verdict.CORRECT, 2.0), (Verdict.WRONG, None), (Verdict.CORRECT, 0.5))]
    w = reward_widget(group)
    text = PlainTextFormatter()(w)
    assert 'Styler' not in text and '\x1b' not in text and text.splitlines()[1].startswith('>  0')
    w.widget.children[1].value = 2
    assert PlainTextFormatter()(w).splitlines()[3].startswith('>  2')
    rows = group_table_html(group, selected=1).split('<tr')[2:]
    assert 'outline' in rows[1] and 'outline' not in rows[0] + rows[2]

"The GRPO trainer from a terminal: a real run of the tiny model, killed mid-run and resumed."
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest
import torch

ARGS = ['--sft-budget', '0', '--batch-size', '1', '--group-size', '2', '--max-turns', '2', '--max-new-tokens', '24',
        '--val-tasks', '1', '--test-tasks', '1', '--no-plan']


def _train(out, *extra, wait=True):
    env = {**os.environ, 'OMP_NUM_THREADS': '1'}
    cmd = [sys.executable, '-m', 'cudarl_wb.cli', 'train', '--output-dir', str(out), *ARGS, *extra]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    if wait:
        out_text, _ = p.communicate(timeout=900)
        return p.returncode, out_text.decode(errors='replace')
    return p


def _step_in(out) -> int:
    f = Path(out)/'last'/'trainer_state.pt'
    try: return torch.load(f, weights_only=False)['step'] if f.exists() else 0
    except Exception: return 0        # being replaced right now


def test_killed_run_resumes_where_it_stopped(tmp_path):
    out = tmp_path/'rl'
    p = _train(out, '--num-episodes', '10', wait=False)        # 5 steps of 2 episodes
    t0 = time.time()
    while _step_in(out) < 2 and time.time() - t0 < 600 and p.poll() is None: time.sleep(0.2)
    assert p.poll() is None, p.stdout.read().decode(errors='replace')[-3000:]
    os.killpg(p.pid, signal.SIGKILL); p.wait()
    done = _step_in(out)
    assert 2 <= done < 5, done
    assert not (out/'final_model').exists()
    rc, text = _train(out, '--num-episodes', '10')               # without --resume: refused, nothing lost
    assert rc == 2 and 'holds a run already' in text, text[-2000:]
    rc, text = _train(out, '--num-episodes', '10', '--resume')
    assert rc == 0, text[-3000:]
    assert f'resumed {out} at step {done}' in text, text[-3000:]
    metrics = json.loads((out/'final_model'/'training_metrics.json').read_text())
    assert [s['step'] for s in metrics['steps']] == [1, 2, 3, 4, 5]
    assert (out/'final_model'/'generator').is_dir() and (out/'training_curves.png').exists()
    # tools/read_runs.py reads the run's saved episodes: every evaluation, and the training turns of both attempts
    r = subprocess.run([sys.executable, str(Path(__file__).parents[1]/'tools'/'read_runs.py'), f'rl={out}', '--json', str(tmp_path/'read.json')],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    read = json.loads((tmp_path/'read.json').read_text())
    evals = read['evaluations']
    assert [e['step'] for e in evals] == [e['step'] for e in metrics['evals']] and evals[0]['step'] == 0 and evals[-1]['step'] == 5
    assert all(e['tasks'] == 1 and e['gained'] + e['lost'] <= 1 for e in evals), evals
    (train,) = read['training']
    assert train['turns'] >= 10 and train['leak_flags'] == 0, train


def test_a_plan_that_cannot_fit_stops_before_any_work(tmp_path):
    env = {**os.environ}
    cmd = [sys.executable, '-m', 'cudarl_wb.cli', 'train', '--output-dir', str(tmp_path/'rl'),
           '--generator-checkpoint', 'Qwen/Qwen2.5-Coder-32B-Instruct', '--sft-budget', '0']
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 2 and 'does not fit' in r.stderr, (r.returncode, r.stderr[-2000:])
    assert not (tmp_path/'rl').exists()


def test_a_lora_run_resumes_on_its_merged_weights(tmp_path):
    out = tmp_path/'rl_lora'
    rc, text = _train(out, '--num-episodes', '4', '--lora-rank', '4')     # 2 steps
    assert rc == 0, text[-3000:]
    rc, text = _train(out, '--num-episodes', '6', '--lora-rank', '4', '--resume')
    assert rc == 0 and f'resumed {out} at step 2' in text, text[-3000:]
    metrics = json.loads((out/'final_model'/'training_metrics.json').read_text())
    assert [s['step'] for s in metrics['steps']] == [1, 2, 3]
    assert metrics['config']['lora_rank'] == 4
    gen = out/'final_model'/'generator'                       # adapters saved merged: a whole model, no adapter files
    assert (gen/'model.safetensors').exists() and not (gen/'adapter_config.json').exists(), sorted(os.listdir(gen))

"""The SFT warm start end to end on the real tiny model: a short run lowers the loss and writes the agents-folder layout,
a killed run resumes from its checkpoint, and the CLI works as a subprocess. (The full run that measures the
compile-rate target is `runs/sft_tiny.py`, not a test.)"""
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest
import torch

from cudarl_wb.core import nvcc_path
from cudarl_wb.models import AgentModels
from cudarl_wb.sft import HELDOUT_BUILTINS, last_checkpoint_step, run_sft, sft_table

ROOT = Path(__file__).resolve().parents[1]
# a small data set, few held-out tasks and short answers: mechanics and learning, in about a minute
QUICK = dict(procedural={'elementwise': 48, 'rowreduce': 8, 'broadcast': 8}, builtin_variants=0, repair_pairs=8,
             eval_procedural={'elementwise': 2, 'rowreduce': 1, 'broadcast': 1}, eval_repair=2, max_new_tokens=160,
             max_length=640, max_length_optimizer=1100)


@pytest.fixture(autouse=True)
def _threads():
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _env(tmp_path):
    return {**os.environ, 'PYTHONPATH': f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            'CUDARL_CACHE': os.environ.get('CUDARL_CACHE') or str(tmp_path/'cache'), 'OMP_NUM_THREADS': '1'}


def test_short_run_lowers_loss_and_writes_layout(tmp_path):
    out = tmp_path/'sft_checkpoints'
    m = run_sft('tiny', out=out, max_steps=30, evaluate='after', progress=False, threads=1, **QUICK)
    # the loss falls for both agents (the Optimizer starts from the trained Generator, so from lower)
    g, o = m['train']['generator'], m['train']['optimizer']
    assert g['steps'] == 30 and o['steps'] == 30
    assert g['loss_last'] < 0.5 * g['loss_first'], m['losses']['generator']
    assert o['loss_first'] < g['loss_first']
    # the agents-folder layout, and metrics.json with the run's figures
    names = {p.name for p in out.iterdir()}
    assert {'agents.json', 'generator', 'optimizer', 'base', 'metrics.json', 'sft_eval.png', 'eval_rows.json'} <= names
    assert 'trainer' not in names                                  # checkpoints go once the run is done
    for a in ('generator', 'optimizer'):
        assert {'config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'} <= {p.name for p in (out/a).iterdir()}
    saved = json.loads((out/'metrics.json').read_text())
    assert saved['eval']['before'] is None and saved['eval']['after']['generator']['n'] == 4 + len(HELDOUT_BUILTINS)
    assert saved['pairs']['optimizer']['by_origin'].get('suite', 0) >= 1 and saved['train']['tokens_per_s'] > 0
    assert saved['peak_memory']['cpu_rss_gb'] > 0 and saved['mode'] == 'full' and saved['tester'] == 'compile-only'
    print(sft_table(saved))
    # it loads back, each agent with its trained parameters
    back = AgentModels.load(out, device='cpu')
    x = torch.randint(4, 400, (1, 16))
    with torch.no_grad(), back.use('generator') as gm, back.use('optimizer') as om:
        assert not torch.equal(gm(x).logits, om(x).logits)


def test_killed_run_resumes_from_checkpoint(tmp_path):
    out = tmp_path/'sft'
    cmd = [sys.executable, '-m', 'cudarl_wb.sft', '--preset', 'tiny', '--out', str(out), '--max-steps', '40', '--no-eval',
           '--no-progress', '--set', 'save_every_s=2', '--set', 'repair_pairs=4', '--set', 'builtin_variants=0',
           '--set', 'procedural={"elementwise": 24, "rowreduce": 0, "broadcast": 0}', '--set', 'max_length=600',
           '--set', 'max_length_optimizer=1000']
    p = subprocess.Popen(cmd, cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 600
        while time.time() < deadline and p.poll() is None:
            step = last_checkpoint_step(out/'trainer'/'generator')
            if step and step >= 2: break
            time.sleep(0.5)
        assert p.poll() is None, p.stdout.read().decode()[-3000:]
        os.killpg(p.pid, signal.SIGKILL)                      # no clean shutdown: as a crash or a pre-emption would
        p.wait(30)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL)
    killed_at = last_checkpoint_step(out/'trainer'/'generator')
    assert killed_at and killed_at < 40 and not (out/'metrics.json').exists()
    r = subprocess.run(cmd + ['--resume'], cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    m = json.loads((out/'metrics.json').read_text())
    assert m['train']['generator']['resumed_from'] == f'checkpoint-{killed_at}'
    assert m['train']['generator']['steps'] == 40 and m['train']['optimizer']['steps'] == 40
    assert 'generator' in r.stdout and 'tokens/s' in r.stdout


def test_cli_subprocess(tmp_path):
    env = _env(tmp_path)
    r = subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'sft', '--help'], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and '--max-steps' in r.stdout and '--resume' in r.stdout
    r = subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'sft', '--model', str(tmp_path/'missing'), '--no-eval'],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and 'cudarl-wb sft:' in r.stderr
    out = tmp_path/'cli_out'
    r = subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'sft', '--preset', 'tiny', '--out', str(out), '--max-steps', '3',
                        '--eval-after-only', '--no-progress', '--set', 'repair_pairs=2', '--set', 'builtin_variants=0',
                        '--set', 'procedural={"elementwise": 8}', '--set', 'eval_procedural={"elementwise": 1}',
                        '--set', 'eval_repair=1', '--set', 'max_new_tokens=32'],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert 'held-out' in r.stdout and 'generator' in r.stdout and (out/'metrics.json').exists()
    assert AgentModels.load(out, device='cpu').agents == ('generator', 'optimizer')


@pytest.mark.cuda
def test_small_warm_start_on_gpu(tmp_path):
    "A short `small` run on the GPU: bf16, the Tester runs the kernels (correct rate), memory and speed recorded."
    if not nvcc_path(): pytest.skip('no nvcc')
    out = tmp_path/'sft_small'
    m = run_sft('small', out=out, max_steps=20, progress=False, evaluate='after',
                **{**QUICK, 'batch_size': 8, 'grad_accum': 2, 'eval_procedural': {'elementwise': 4}})
    assert m['tester'] == 'full' and m['train']['generator']['bf16'] is True
    assert m['eval']['after']['generator']['correct'] is not None
    assert m['peak_memory']['gpu_gb'] > 0 and m['train']['tokens_per_s'] > 1000
    assert m['train']['generator']['loss_last'] < m['train']['generator']['loss_first']

"Integration tests of the `cudarl-wb` console script, run as a real subprocess."
import json, shutil, subprocess, sys


def run(*args, check=True):
    exe = shutil.which('cudarl-wb')
    cmd = [exe, *args] if exe else [sys.executable, '-m', 'cudarl_wb.cli', *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=300)


def test_info_json_reports_nvcc_and_torch():
    info = json.loads(run('info', '--json').stdout)
    assert info['nvcc_version'].startswith('13.')
    assert info['torch']
    assert isinstance(info['gpus'], list)


def test_unknown_subcommand_fails_cleanly():
    r = run('no-such-command', check=False)
    assert r.returncode == 2 and 'invalid choice' in r.stderr


def test_train_holds_its_run_budget(tmp_path):
    "A run budget is the whole run's: the trainer stops taking steps in time for its last evaluation, and says so."
    out, budget = tmp_path/'rl', 40
    r = run('train', '--preset', 'tiny', '--sft-budget', '0', '--run-budget', str(budget), '--num-episodes', '10000',
            '--batch-size', '1', '--group-size', '2', '--max-turns', '1', '--max-new-tokens', '48', '--val-tasks', '1', '--test-tasks', '2',
            '--output-dir', str(out), '--no-plan')
    final = json.loads((out/'final_model'/'training_metrics.json').read_text())
    assert 'budget' in final['stopped'] and 0 < len(final['steps']) < 10000 // 2
    assert final['run_s'] <= budget * 1.1, final['run_s']       # the last step and evaluation fit inside it
    assert 'test, 2 tasks [' in r.stdout and 'validation [' in r.stdout and (out/'report.json').exists()


def test_small_preset_takes_its_recipe_and_given_flags_win():
    "`--preset small` fills the options left unset from its recipe; a flag on the command line wins."
    from cudarl_wb.cli import build_parser
    from cudarl_wb.core import from_options
    from cudarl_wb.trainer import GRPOConfig, RECIPES, train_defaults
    argv = ['train', '--preset', 'small', '--batch-size', '4']
    args = build_parser('train', train_defaults(build_parser('train').parse_args(argv))).parse_args(argv)
    cfg = from_options(GRPOConfig, args)
    assert cfg.batch_size == 4 and cfg.lora_rank == RECIPES['small']['lora_rank'] and cfg.run_budget_s == RECIPES['small']['run_budget_s']
    assert from_options(GRPOConfig, build_parser('train').parse_args(['train'])).lora_rank == 0      # tiny keeps its defaults


def _cli(*args, cache, **kw):
    "`cudarl-wb ARGS` with its own cache folder; output captured unless `kw` says where it goes."
    import os
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, 'CUDARL_CACHE': str(cache),
           'PYTHONPATH': os.pathsep.join(filter(None, [str(root), os.environ.get('PYTHONPATH')]))}
    kw.setdefault('capture_output', True)
    return subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', *args], text=True, env=env, timeout=600, **kw)


def test_a_number_out_of_range_stops_the_command_in_one_line(tmp_path):
    "A negative learning rate is refused as the command line is read: status 2, one line, no run folder made."
    out = tmp_path/'rl'
    r = _cli('train', '--preset', 'tiny', '--learning-rate', '-1', '--output-dir', str(out), cache=tmp_path/'cache')
    assert r.returncode == 2, r.stderr
    assert r.stderr.count('\n') == 1 and '--learning-rate must be' in r.stderr and 'got -1' in r.stderr, r.stderr
    assert not out.exists() and r.stdout == ''


def _eval_servers(cache):
    from cudarl_wb.sandbox import server_pid, spill_folder
    from pathlib import Path
    folders = (Path(cache)/'servers', spill_folder(Path(cache)/'servers'))
    return {pid for f in folders for lock in f.glob('eval-*.lock') if (pid := server_pid(lock.with_suffix('.sock')))}


def test_eval_refuses_an_unknown_task_without_starting_a_server(tmp_path):
    "No task, no file: status 2 and one line, and no evaluator server left waiting."
    from cudarl_wb.tasks import load_solution
    src, cache = tmp_path/'relu.cu', tmp_path/'cache'
    src.write_text(load_solution('relu'))
    for args in (['--task', 'nosuchtask', str(src)], ['--task', 'relu', str(tmp_path/'missing.cu')]):
        r = _cli('eval', *args, cache=cache)
        assert r.returncode == 2 and r.stderr.count('\n') == 1, (args, r.stderr)
        assert not _eval_servers(cache), args
    assert 'no task' in _cli('eval', '--task', 'nosuchtask', str(src), cache=cache).stderr


def test_eval_of_a_correct_kernel_passes_where_it_can_only_compile(tmp_path):
    "The task's own kernel, through the server: correct on a GPU; without one, built with the real nvcc, status 0, and a line saying what was not checked."
    from cudarl_wb.core import cuda_available
    from cudarl_wb.tasks import load_solution
    src, cache = tmp_path/'relu.cu', tmp_path/'cache'
    src.write_text(load_solution('relu'))
    try:
        r = _cli('eval', '--task', 'relu', str(src), '--server-idle', '60', cache=cache)
        assert r.returncode == 0, r.stdout + r.stderr
        if cuda_available(): assert 'relu: correct' in r.stdout
        else: assert 'relu: compiled' in r.stdout and 'compile-only' in r.stdout and 'correctness and speed were not checked' in r.stdout
        j = _cli('eval', '--task', 'relu', str(src), '--json', cache=cache)
        assert j.returncode == 0 and json.loads(j.stdout)['verdict'] in ('correct', 'compiled')
        assert 'exit status: 0 correct' in ' '.join(_cli('eval', '--help', cache=cache).stdout.split())
    finally: _cli('eval', '--stop-server', cache=cache)


def test_progress_in_a_log_file_is_short_lines(tmp_path):
    "A command's progress bar written to a file: each redraw a line of its own, no line past 300 characters."
    from pathlib import Path
    log = tmp_path/'log.txt'
    with open(log, 'w') as f:
        r = _cli('data', 'kernelbench', str(Path(__file__).parent/'data'/'kernelbench'), '--out', str(tmp_path/'kb'),
                 cache=tmp_path/'cache', stdout=f, stderr=subprocess.STDOUT, capture_output=False)
    text = log.read_text()
    assert r.returncode == 0, text[-2000:]
    lines = text.splitlines()
    bars = [l for l in lines if 'KernelBench:' in l and '%|' in l]
    assert '\r' not in text and bars and all(l.count('%|') == 1 for l in bars), bars
    assert max(map(len, lines)) <= 300, max(lines, key=len)[:500]


def test_training_bars_in_a_log_redraw_at_their_interval(tmp_path):
    "The warm start's bars written to a file redraw once an interval, not once a step (400 steps made 400 lines)."
    log = tmp_path/'log.txt'
    with open(log, 'w') as f:
        r = _cli('sft', '--preset', 'tiny', '--max-steps', '40', '--no-eval', '--out', str(tmp_path/'sft'),
                 '--set', 'procedural={"elementwise": 40, "rowreduce": 10, "broadcast": 10}',
                 cache=tmp_path/'cache', stdout=f, stderr=subprocess.STDOUT, capture_output=False)
    text = log.read_text()
    assert r.returncode == 0, text[-2000:]
    bars = [l for l in text.splitlines() if l.startswith('SFT generator') and '%|' in l]
    assert 1 <= len(bars) <= 4, bars          # the first draw, the last, and its close: the run is shorter than a minute

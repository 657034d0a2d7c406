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
    assert 'held-out [' in r.stdout


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

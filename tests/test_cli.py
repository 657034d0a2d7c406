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

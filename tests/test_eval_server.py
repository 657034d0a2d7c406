"`cudarl-wb eval` through its evaluator server, as a shell runs it: shared by commands, unharmed by hostile kernels."
import json, os, re, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT/'tests'/'hostile'


def cli(cache, *args, timeout=600):
    env = {**os.environ, 'CUDARL_CACHE': str(cache),
           'PYTHONPATH': os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))}
    return subprocess.Popen([sys.executable, '-m', 'cudarl_wb.cli', 'eval', *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def done(p, timeout=600):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def server_pids(cache):
    "The pids of the evaluator servers of `cache`: their locks sit in its `servers` folder, or in its spill folder where that path is too long."
    from cudarl_wb.sandbox import server_pid, spill_folder
    folders = (Path(cache)/'servers', spill_folder(Path(cache)/'servers'))
    return {pid for f in folders for lock in f.glob('eval-*.lock') if (pid := server_pid(lock.with_suffix('.sock')))}


def test_commands_at_once_share_one_server(tmp_path):
    "Three commands started together with no server: one server wins the address, every command is answered."
    from cudarl_wb.tasks import get_task
    src = tmp_path/'relu.cu'
    src.write_text(get_task('relu').solution)
    procs = [cli(tmp_path, str(src), '--task', 'relu', '--json', '--server-idle', '60') for _ in range(3)]
    runs = [done(p) for p in procs]
    verdicts = {json.loads(out)['verdict'] for _, out, _ in runs}
    assert len(verdicts) == 1 and all(code == runs[0][0] for code, _, _ in runs), runs
    assert not any('judging in this process' in err for _, _, err in runs), [err for _, _, err in runs]
    assert len(server_pids(tmp_path)) == 1
    code, out, _ = done(cli(tmp_path, '--stop-server'))
    assert code == 0 and out.startswith('stopped 1 evaluator server'), out
    assert not server_pids(tmp_path)


def header(path: Path) -> dict:
    h = dict(re.findall(r'^// (task|expect):[ \t]*(.*)$', path.read_text(), re.M))
    return dict(task=h['task'].strip(), expect=set(h['expect'].strip().split('|')))


@pytest.mark.cuda
def test_hostile_kernels_through_the_server_leave_it_serving(tmp_path):
    "Every planted kernel judged by one server as its header says; the server is the same process after, and judges relu correct."
    from cudarl_wb.tasks import get_task
    good = tmp_path/'relu.cu'
    good.write_text(get_task('relu').solution)
    code, out, err = done(cli(tmp_path, str(good), '--task', 'relu', '--json', '--no-time'))
    assert code == 0 and json.loads(out)['verdict'] == 'correct', err
    pids = server_pids(tmp_path)
    assert len(pids) == 1
    wrong = []
    for path in sorted(HOSTILE.glob('*.cu')):
        h = header(path)
        code, out, err = done(cli(tmp_path, str(path), '--task', h['task'], '--json'))
        v = json.loads(out)['verdict']
        allowed = h['expect'] | ({'rejected-by-static-check'} if 'correct' not in h['expect'] else set())
        if v not in allowed: wrong.append((path.stem, v, h['expect']))
        assert 'judging in this process' not in err, (path.stem, err)
        assert server_pids(tmp_path) == pids, path.stem
    assert not wrong, wrong
    code, out, _ = done(cli(tmp_path, str(good), '--task', 'relu', '--json'))
    assert code == 0 and json.loads(out)['verdict'] == 'correct'
    done(cli(tmp_path, '--stop-server'))


SHARED = ("import json, sys; from cudarl_wb.benchmarker import SharedEvaluator; from cudarl_wb.sandbox import server_pid; "
          "ev = SharedEvaluator(devices=sys.argv[2], trials=2, idle_timeout=60); "
          "r = ev.evaluate('relu', open(sys.argv[1]).read(), time_it=False); print(json.dumps([r.verdict.value, server_pid(ev.path)]))")


def test_shared_evaluator_one_server_for_processes_at_once(tmp_path):
    "Six processes that judge at the same moment (verl's agent-loop workers at a step's start) start and share one server."
    from cudarl_wb.tasks import get_task
    from cudarl_wb.sandbox import stop_servers
    src = tmp_path/'relu.cu'
    src.write_text(get_task('relu').solution)
    env = {**os.environ, 'CUDARL_CACHE': str(tmp_path),
           'PYTHONPATH': os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))}
    procs = [subprocess.Popen([sys.executable, '-c', SHARED, str(src), 'cpu'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=ROOT) for _ in range(6)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outs]
    answers = {tuple(json.loads(out.strip().splitlines()[-1])) for out, _ in outs}
    assert len(answers) == 1, answers                   # one verdict, one server pid
    (verdict, pid), = answers
    assert verdict == 'wrong' and pid                  # a CPU worker runs no CUDA: the outputs stay NaN
    os.environ['CUDARL_CACHE'] = str(tmp_path)
    try: assert stop_servers(('judge',)) == [pid]
    finally: del os.environ['CUDARL_CACHE']


@pytest.mark.cuda
def test_hostile_kernels_through_the_shared_evaluator(tmp_path, monkeypatch):
    "Every planted kernel judged by the shared server as its header says, the server unharmed; relu correct after."
    from cudarl_wb.benchmarker import SharedEvaluator
    from cudarl_wb.sandbox import server_pid
    from cudarl_wb.core import safe_text
    from cudarl_wb.tasks import get_task
    monkeypatch.setenv('CUDARL_CACHE', str(tmp_path))
    ev = SharedEvaluator(devices=[0], idle_timeout=120)
    assert ev.evaluate('relu', get_task('relu').solution).correct
    pid, wrong = server_pid(ev.path), []
    for path in sorted(HOSTILE.glob('*.cu')):
        h = header(path)
        v = ev.evaluate(h['task'], safe_text(path.read_bytes())).verdict.value
        allowed = h['expect'] | ({'rejected-by-static-check'} if 'correct' not in h['expect'] else set())
        if v not in allowed: wrong.append((path.stem, v, h['expect']))
        assert server_pid(ev.path) == pid, path.stem
    assert not wrong, wrong
    assert ev.evaluate('relu', get_task('relu').solution).correct
    ev.stop()

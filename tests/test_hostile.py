"""The planted suite: broken and hostile kernels in tests/hostile/, each judged as its header says.

Each `tests/hostile/NAME.cu` starts with a header:

    // task: relu                          the task it is a candidate for
    // expect: crashed|rejected-by-static-check   the verdicts that count as judged right
    // detail: host memory                 text that must appear in the message or the flags (optional)

    // escape: yes                       built without the static check too: the sandbox alone must stop it

Kernels expected to fail may also be stopped earlier by the compiler's static check
(`rejected-by-static-check`): that is the first wall doing its job, and the test prints which wall
caught each one. The escapes (`escape: yes`) are also built with the static check off, as if it had
been fooled, and must then be stopped by the sandbox alone: judged not correct, nothing written outside,
no process of the worker left, and the trainer (this test process) alive and never signalled. On a
machine without a GPU the builds are checked, and the escapes' launchers run in CPU sandbox workers; on
the device the whole suite runs in GPU sandbox workers: `pytest -m cuda tests/test_hostile.py -v -s`.
"""
import json, os, re, shutil, signal, subprocess
from pathlib import Path

import pytest

HOSTILE = Path(__file__).parent/'hostile'
CASES = sorted(HOSTILE.glob('*.cu'))
REQUIRED = ['tail_off_by_one', 'race_no_syncthreads', 'out_of_bounds_write', 'wrong_for_large_values', 'infinite_loop',
            'trap', 'early_return_big_sizes', 'first_trial_only', 'other_stream', 'leaves_outputs_unwritten',
            'modifies_inputs']
ESCAPES_REQUIRED = ['libc_walk_from_printf', 'asm_syscall_open_creat', 'asm_syscall_kill_parent', 'asm_syscall_fork',
                    'write_every_descriptor', 'load_time_constructor']
MARKS = [Path('/tmp/cudarl_hostile_pwned.txt'), Path('/tmp/cudarl_hostile_exec.txt')]


def header(path: Path) -> dict:
    text = path.read_text()
    h = dict(re.findall(r'^// (task|expect|detail|escape):[ \t]*(.*)$', text, re.M))
    return dict(name=path.stem, task=h['task'].strip(), expect=set(h['expect'].strip().split('|')),
                detail=h.get('detail', '').strip(), escape=h.get('escape', '').strip() == 'yes', source=text)


ESCAPES = [p for p in CASES if header(p)['escape']]


def unchecked_build(h: dict):
    "The candidate built as if the static check had been fooled: nvcc's library, no check."
    from cudarl_wb.compiler import compile_candidate
    from cudarl_wb.tasks import get_task
    cr = compile_candidate(h['source'], get_task(h['task']), check=False)
    assert cr.ok, (h['name'], cr.log[-2000:])
    return cr


def group_left(pgid: int) -> bool:
    "Whether any process of the process group `pgid` is still there."
    out = subprocess.run(['ps', '-eo', 'pgid='], capture_output=True, text=True).stdout.split()
    return str(pgid) in out


def test_the_suite_is_complete_and_readable():
    assert len(CASES) >= 15, len(CASES)
    names = [p.stem for p in CASES]
    assert set(REQUIRED) <= set(names), set(REQUIRED) - set(names)
    assert set(ESCAPES_REQUIRED) <= {p.stem for p in ESCAPES}, set(ESCAPES_REQUIRED) - {p.stem for p in ESCAPES}
    from cudarl_wb.core import Verdict
    from cudarl_wb.tasks import get_task
    for p in CASES:
        h = header(p)
        get_task(h['task'])
        assert all(Verdict(v) for v in h['expect']), p


def test_every_hostile_kernel_builds_or_is_rejected():
    "On any machine with nvcc: each one compiles (or the static check refuses it); nothing raises."
    from cudarl_wb.benchmarker import Evaluator
    from cudarl_wb.core import Verdict
    hs = [header(p) for p in CASES]
    with Evaluator(devices=[], compile_threads=2) as ev:
        rs = ev.evaluate_many([(h['task'], h['source']) for h in hs])
    for h, r in zip(hs, rs):
        assert r.verdict in (Verdict.COMPILED, Verdict.REJECTED), (h['name'], r.verdict, r.message)


@pytest.fixture(scope='module')
def signals():
    got = []
    old = signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
    yield got
    signal.signal(signal.SIGUSR1, old)


@pytest.fixture(scope='module')
def cpu_worker():
    from cudarl_wb.sandbox import SandboxLimits, Worker
    with Worker('cpu', SandboxLimits(call_timeout=10.0)) as w:
        if not isinstance(w.confinement.get('seccomp'), dict): pytest.skip(f"seccomp not in force: {w.confinement.get('seccomp')}")
        yield w


needs_nvcc = pytest.mark.skipif(shutil.which('nvcc') is None, reason='nvcc is needed to build the candidates')


@needs_nvcc
@pytest.mark.parametrize('path', ESCAPES, ids=[p.stem for p in ESCAPES])
def test_escape_is_stopped_by_the_sandbox_alone_on_the_cpu(cpu_worker, signals, path):
    "The escape's library, built unchecked, loaded and its launcher called in a CPU sandbox worker (no GPU needed)."
    from cudarl_wb.sandbox import announce_phases, call_symbol
    h = header(path)
    cr = unchecked_build(h)
    for m in MARKS: m.unlink(missing_ok=True)
    r = cpu_worker.run(call_symbol, dict(lib=cr.lib_path, symbol='launch', args=[0, 0, 0, 0]))
    print(f"\n{h['name']}: {r.status} {r.signal} — {r.message[:200]}")
    assert r.status == 'crashed' and r.fatal, (h['name'], r)
    assert not signals, f'{h["name"]} signalled the trainer'
    for m in MARKS: assert not m.exists(), f'{h["name"]} wrote {m}'
    assert not group_left(r.pid), f'{h["name"]} left a process of the worker behind'
    assert cpu_worker.run(announce_phases).status == 'ok'       # a fresh worker takes the next job


@needs_nvcc
def test_escapes_do_escape_without_the_sandbox():
    "The control: with every layer off, the libc walker and the constructor write their files, so the tests above can fail."
    from cudarl_wb.sandbox import SandboxLimits, Worker, call_symbol
    lim = SandboxLimits(call_timeout=10.0, seccomp='off', landlock=False, network_namespace=False)
    try:
        with Worker('cpu', lim) as w:
            for name in ('libc_walk_from_printf', 'asm_syscall_open_creat'):
                for m in MARKS: m.unlink(missing_ok=True)
                r = w.run(call_symbol, dict(lib=unchecked_build(header(HOSTILE/f'{name}.cu')).lib_path, symbol='launch',
                                            args=[0, 0, 0, 0]))
                assert r.status == 'ok' and MARKS[0].exists(), (name, r)
                if name == 'libc_walk_from_printf': assert MARKS[1].exists()      # its `system` ran a shell too
    finally:
        for m in MARKS: m.unlink(missing_ok=True)


@pytest.fixture(scope='module')
def ev():
    from cudarl_wb.benchmarker import Evaluator
    from cudarl_wb.sandbox import SandboxLimits
    lim = SandboxLimits(call_timeout=10.0, host_memory=2 << 30)
    with Evaluator(limits=lim, torch_compile=False) as e:
        e.start()
        print('\nconfinement on this device:', json.dumps(e.confinement, indent=1, default=str))
        yield e


@pytest.mark.cuda
def test_the_sandbox_is_confined_on_the_device(ev):
    conf = next(iter(ev.confinement.values()))
    assert conf['no_new_privs'] is True
    assert isinstance(conf.get('seccomp'), dict), f"seccomp not in force: {conf.get('seccomp')} {conf.get('dropped')}"


@pytest.mark.cuda
@pytest.mark.parametrize('path', CASES, ids=[p.stem for p in CASES])
def test_hostile_kernel_is_judged_as_it_should_be(ev, signals, path):
    from cudarl_wb.tasks import get_task
    h = header(path)
    marks = MARKS
    for m in marks: m.unlink(missing_ok=True)
    r = ev.evaluate(h['task'], h['source'], time_it=True)
    print(f"\n{h['name']}: {r.verdict.value} {r.flags} — {r.message[:300]}")
    allowed = h['expect'] | ({'rejected-by-static-check'} if 'correct' not in h['expect'] else set())
    assert r.verdict.value in allowed, (h['name'], r.verdict.value, r.message, r.log[-2000:])
    if h['detail'] and h['detail'] != 'other-stream' and r.verdict.value in h['expect']:
        assert h['detail'] in r.message or h['detail'] in r.flags, (h['name'], r.message, r.flags)
    if h['detail'] == 'other-stream':
        honest = ev.evaluate(h['task'], get_task(h['task']).solution)
        print(f'  honest: {honest.kernel_ms:.4g} ms, other stream: {r.kernel_ms:.4g} ms {r.flags}')
        assert r.kernel_ms >= 0.8 * honest.kernel_ms or 'retimed-wall-clock' in r.flags, (r.kernel_ms, honest.kernel_ms)
    assert not signals, 'a candidate signalled the trainer'
    for m in marks: assert not m.exists(), f'{h["name"]} wrote {m}'


@pytest.mark.cuda
@pytest.mark.parametrize('path', ESCAPES, ids=[p.stem for p in ESCAPES])
def test_escape_is_stopped_by_the_sandbox_alone_on_the_device(ev, signals, path):
    "Built as if the static check had been fooled, judged by the Evaluator on the GPU: the sandbox alone holds."
    h = header(path)
    cr = unchecked_build(h)
    for m in MARKS: m.unlink(missing_ok=True)
    r = ev.evaluate(h['task'], cr, time_it=False)
    print(f"\n{h['name']} (unchecked): {r.verdict.value} {r.flags} — {r.message[:300]}")
    assert not r.correct and r.verdict.value in h['expect'], (h['name'], r.verdict.value, r.message, r.log[-2000:])
    assert not signals, f'{h["name"]} signalled the trainer'
    for m in MARKS: assert not m.exists(), f'{h["name"]} wrote {m}'
    assert not group_left(r.extra['worker_pid']), f'{h["name"]} left a process of the worker behind'


@pytest.mark.cuda
def test_the_pool_is_healthy_after_the_suite(ev):
    from cudarl_wb.tasks import get_task
    r = ev.evaluate('relu', get_task('relu').solution)
    assert r.correct, r.message
    assert ev.slots[0].worker.starts >= 2     # crashes were absorbed by fresh workers

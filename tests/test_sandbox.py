"""Containment of the sandbox workers, proven on the CPU with real processes and real native code.

The stand-in candidates (`cudarl_wb.sandbox.STANDINS_C`) are C functions built with the host compiler
that do what a hostile launcher could: spin, crash, allocate or print without end, create processes,
write files, open sockets, signal the trainer, forge protocol messages. No mock stands in for the
worker, the compiler or the kernel's enforcement.
"""
import json, os, signal, subprocess, sys, tempfile, textwrap, time
from pathlib import Path

import pytest

from cudarl_wb.sandbox import (SandboxLimits, Worker, call_symbol, standin_library, build_host_library,
                               probe_confinement, seccomp_program)


@pytest.fixture(scope='module')
def lib():
    return str(standin_library())


def limits(**kw):
    return SandboxLimits(**{**SandboxLimits(call_timeout=3.0, host_memory=256 << 20, output_bytes=4 << 20).to_dict(), **kw})


def test_probe_reports_layers_in_force():
    conf = probe_confinement()
    assert conf['no_new_privs'] is True
    assert conf['rlimits']['RLIMIT_CORE'] == 0
    # What this machine allows is printed for the record; CI's machine (root, Linux 6.x) has all of it.
    print(json.dumps(conf, indent=1, default=str))


def test_every_failure_is_an_outcome_and_the_next_job_gets_a_fresh_worker(lib):
    with Worker('cpu', limits()) as w:
        seen = set()
        for sym, want in [('spin', 'timed-out'), ('segfault', 'crashed'), ('abort_', 'crashed'),
                          ('alloc_forever', 'crashed'), ('print_forever', 'crashed'), ('exit_', 'crashed'),
                          ('forge_result', 'crashed')]:
            r = w.run(call_symbol, dict(lib=lib, symbol=sym))
            assert r.status == want, (sym, r)
            assert r.fatal and r.pid not in seen, (sym, r)
            seen.add(r.pid)
            ok = w.run(call_symbol, dict(lib=lib, symbol='ok'))
            assert ok.status == 'ok' and ok.value == {'returned': 42} and ok.pid not in seen
        assert w.starts == 8


def test_a_worker_started_early_serves_every_later_job_without_starting_again(lib):
    "What a persistent evaluator relies on: spawn without waiting, then many jobs on one process."
    w = Worker('cpu', limits())          # not `with`: entering it waits for the start
    try:
        w.start(wait=False)
        assert w.alive and w.hello is None           # booting while the caller does other work
        outs = [w.run(call_symbol, dict(lib=lib, symbol='ok')) for _ in range(5)]
        assert all(o.status == 'ok' and o.value == {'returned': 42} for o in outs), outs
        assert len({o.pid for o in outs}) == 1 and w.starts == 1 and w.jobs_done == 5
        w.start(wait=False)                          # running already: nothing happens
        assert w.starts == 1 and w.run(call_symbol, dict(lib=lib, symbol='ok')).pid == outs[0].pid
    finally: w.close()


@pytest.mark.parametrize('sym', ['fork_', 'syscall_fork', 'dlsym_fork', 'exec_shell'])
def test_process_creation_by_any_route_is_killed(lib, sym):
    with Worker('cpu', limits()) as w:
        if not isinstance(w.confinement.get('seccomp'), dict): pytest.skip(f"seccomp not in force: {w.confinement.get('seccomp')}")
        r = w.run(call_symbol, dict(lib=lib, symbol=sym))
        assert (r.status, r.signal) == ('crashed', 'SIGSYS'), r
        # the worker's process group is gone: no child survived it
        out = subprocess.run(['ps', '-eo', 'pgid='], capture_output=True, text=True).stdout.split()
        assert str(r.pid) not in out


def test_files_outside_the_scratch_folder_are_untouched(lib, tmp_path):
    victim = tmp_path/'keep.txt'; victim.write_text('keep')
    with Worker('cpu', limits()) as w:
        for sym, arg in [('write_file', str(tmp_path/'new.txt')), ('unlink_file', str(victim)),
                         ('write_file', str(Path(w.scratch).parent/'worker.log'))]:
            r = w.run(call_symbol, dict(lib=lib, symbol=sym, args=[arg]))
            assert r.status == 'crashed' or (r.value or {}).get('returned', 0) < 0, (sym, r)
        # reading stays allowed
        assert w.run(call_symbol, dict(lib=lib, symbol='read_file', args=[str(victim)])).value == {'returned': 4}
    assert victim.read_text() == 'keep' and not (tmp_path/'new.txt').exists()


def test_the_trainer_is_not_signalled_or_reached(lib):
    import socket
    got = []
    old = signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
    srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1); srv.setblocking(False)
    try:
        with Worker('cpu', limits()) as w:
            r1 = w.run(call_symbol, dict(lib=lib, symbol='signal_parent'))
            r2 = w.run(call_symbol, dict(lib=lib, symbol='connect_tcp', args=[srv.getsockname()[1]]))
        time.sleep(0.2)
        assert not got, 'the worker signalled its parent'
        with pytest.raises(BlockingIOError): srv.accept()
        assert r1.status == 'crashed' or r1.value['returned'] < 0
        assert r2.status == 'crashed' or r2.value['returned'] < 0
    finally:
        signal.signal(signal.SIGUSR1, old); srv.close()


def test_layers_one_by_one_and_the_control(lib, tmp_path):
    "Landlock alone refuses the write; with every layer off the same stand-in succeeds (the test can fail)."
    target = tmp_path/'x.txt'
    with Worker('cpu', limits(seccomp='off', network_namespace=False)) as w:
        if not isinstance(w.confinement.get('landlock'), dict): pytest.skip('Landlock not in force here')
        assert w.run(call_symbol, dict(lib=lib, symbol='write_file', args=[str(target)])).value['returned'] < 0
        # the scratch folder stays writable
        assert w.run(call_symbol, dict(lib=lib, symbol='write_file', args=[str(Path(w.scratch)/'ok.txt')])).value == {'returned': 0}
    assert not target.exists()
    with Worker('cpu', limits(seccomp='off', landlock=False, network_namespace=False)) as w:
        assert w.run(call_symbol, dict(lib=lib, symbol='write_file', args=[str(target)])).value == {'returned': 0}
    assert target.read_text() == 'pwned\n'


def _writes_a_file(ctx, path):
    "A self-test that a strict filter forbids (it opens a file for writing)."
    Path(path).write_text('x')
    return {'wrote': True}


def test_a_layer_that_breaks_start_up_is_dropped_and_reported(tmp_path):
    # Self-test functions are found by name in the worker: this module is importable as `test_sandbox`.
    sys.path.insert(0, str(Path(__file__).parent))
    lim = limits()
    # the path is relative: inside the scratch folder, which Landlock allows and strict seccomp does not
    w = Worker('cpu', lim, selftest=('test_sandbox:_writes_a_file', {'path': 'selftest.txt'}))
    w.start()
    try:
        conf = w.confinement
        if w.notes:   # seccomp strict killed the self-test; the worker came up with 'basic'
            assert w.notes[0].startswith('seccomp strict dropped') and 'SIGSYS' in w.notes[0], w.notes
            assert conf['seccomp']['level'] == 'basic'
    finally:
        w.close()
    no_fallback = Worker('cpu', limits(fallback=False), selftest=('test_sandbox:_writes_a_file', {'path': 'selftest.txt'}))
    if conf.get('seccomp', {}).get('level') == 'basic':
        with pytest.raises(Exception, match='sandbox worker'):
            no_fallback.start()
    no_fallback.close()


def test_worker_exits_when_its_parent_dies(lib, tmp_path):
    script = tmp_path/'parent.py'
    script.write_text(textwrap.dedent(f'''
        import sys, time
        from cudarl_wb.sandbox import Worker, SandboxLimits, call_symbol
        w = Worker('cpu', SandboxLimits(call_timeout=60)).start()
        print(w.pid, flush=True)
        w.run(call_symbol, dict(lib={lib!r}, symbol='spin'))   # the parent dies while this spins
    '''))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=os.environ)
    worker_pid = int(p.stdout.readline())
    time.sleep(1.0)
    p.kill(); p.wait()
    for _ in range(50):
        try: os.kill(worker_pid, 0)
        except ProcessLookupError: break
        time.sleep(0.1)
    else:
        os.kill(worker_pid, signal.SIGKILL)
        pytest.fail('the worker outlived its parent')


def test_workers_are_recycled_after_max_jobs(lib):
    with Worker('cpu', limits(max_jobs=3)) as w:
        pids = [w.run(call_symbol, dict(lib=lib, symbol='ok')).pid for _ in range(7)]
    assert len(set(pids)) == 3 and pids[:3] == [pids[0]] * 3


def test_seccomp_program_is_well_formed():
    for level in ('basic', 'strict'):
        code = seccomp_program(os.getpid(), level)
        assert len(code) % 8 == 0 and 10 < len(code) // 8 < 256


def test_a_selftest_that_announces_phases_starts():
    "On a GPU the start-up self-test runs a full check, which announces its steps before the hello."
    from cudarl_wb.sandbox import Worker, SandboxLimits
    w = Worker('cpu', SandboxLimits(), selftest=('cudarl_wb.sandbox:announce_phases', {'labels': ['build', 'check']}))
    try:
        hello = w.start().hello
        assert hello['selftest'] == {'ok': True, 'phases': ['build', 'check']}, hello
        assert w.notes == [], w.notes            # nothing was dropped to get there
    finally:
        w.close()

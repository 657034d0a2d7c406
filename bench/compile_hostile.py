"""Hostile candidates against the compile side: each class of attack judged, timed, and the compiler's peak memory.

    python bench/compile_hostile.py [--only SUBSTRING] [--out bench/results/compile_hostile.json]

Each case (tests/hostile_compile/cases.py) runs in a fresh process, so that the peak resident memory of
the processes it started (nvcc and everything under it, the inspection tools) can be read from
RUSAGE_CHILDREN. A secret file with a random token is made in a temporary folder; a case fails if the
token shows up in the log, a diagnostic, an issue or the library. Prints a table and writes JSON."""
import argparse, json, os, platform, resource, subprocess, sys, tempfile, time, uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'tests'))
from hostile_compile.cases import cases, judge, reason


def child(index: int, secret: str, token: str) -> dict:
    from cudarl_wb.compiler import compile_candidate, _resolve_task
    c = cases(secret)[index]
    task = _resolve_task(c['task']) if c['check'] else None      # importing the task registry is not the compiler's time
    t0 = time.perf_counter()
    r = compile_candidate(c['source'], task, timeout=c['timeout'], cache=False, check=c['check'])
    seconds = time.perf_counter() - t0
    ok, why = judge(c, r, seconds, token)
    return dict(cls=c['cls'], case=c['name'], checked=c['check'], timeout=c['timeout'], verdict=str(r.verdict), reason=reason(r),
                passed=ok, why=why, seconds=round(seconds, 2), peak_bytes=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
                confinement=r.extra.get('confinement', ''))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--only', default='', help='run the cases whose class or name contains this')
    ap.add_argument('--out', default=str(REPO / 'bench' / 'results' / 'compile_hostile.json'))
    ap.add_argument('--child', nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(int(a.child[0]), a.child[1], a.child[2]))); return 0
    with tempfile.TemporaryDirectory() as d:
        token = f'secret-{uuid.uuid4().hex}'
        secret = Path(d) / 'token.txt'; secret.write_text(token + '\n')
        rows = []
        for i, c in enumerate(cases(str(secret))):
            if a.only and a.only not in c['cls'] and a.only not in c['name']: continue
            with tempfile.TemporaryDirectory() as cache:
                p = subprocess.run([sys.executable, __file__, '--child', str(i), str(secret), token], capture_output=True, text=True,
                                   env={**os.environ, 'CUDARL_CACHE': cache, 'NVCC_APPEND_FLAGS': f'-DFROM_ENV=1'})
            try: row = json.loads(p.stdout.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError): row = dict(cls=c['cls'], case=c['name'], passed=False, why=p.stderr[-300:], seconds=None, peak_bytes=None)
            rows.append(row)
            print(f"{row['cls']:10} {row['case'][:34]:34} {row.get('verdict', '?')[:24]:24} {str(row.get('reason', ''))[:44]:44} "
                  f"{row['seconds'] if row['seconds'] is not None else '?':>6} s {((row['peak_bytes'] or 0) / 2**20):7.0f} MB "
                  f"{'ok' if row['passed'] else 'FAIL: ' + row['why']}", flush=True)
    peak = max((r['peak_bytes'] or 0) for r in rows) if rows else 0
    summary = dict(cases=len(rows), passed=sum(r['passed'] for r in rows), peak_bytes=peak, cap_bytes=4 << 30,
                   machine=platform.platform(), cpus=os.cpu_count(), confinement=next((r.get('confinement') for r in rows if r.get('confinement')), ''))
    print(f"{summary['passed']}/{summary['cases']} judged as expected; compiler peak {peak / 2**20:.0f} MB (cap 4096 MB per process)")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(dict(summary=summary, rows=rows), indent=2))
    return 0 if summary['passed'] == summary['cases'] else 1


if __name__ == '__main__':
    sys.exit(main())

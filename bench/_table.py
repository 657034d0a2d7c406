"What the bench scripts share: the plain-text table they print and the folder their JSON goes to (no dependency beyond Python)."
import os
from pathlib import Path

RESULTS_ENV = 'CUDARL_BENCH_RESULTS'


def table(rows, cols):
    "Print `rows` (dicts) as left-aligned columns `cols`, a header line first."
    w = {c: max(len(c), *(len(str(r.get(c, ''))) for r in rows)) for c in cols}
    print('  '.join(c.ljust(w[c]) for c in cols))
    for r in rows: print('  '.join(str(r.get(c, '')).ljust(w[c]) for c in cols))


def results_dir() -> Path:
    "The folder the benchmarks write their JSON to: $CUDARL_BENCH_RESULTS where it is set, else bench/results (not tracked)."
    d = Path(os.environ.get(RESULTS_ENV) or Path(__file__).parent/'results')
    d.mkdir(parents=True, exist_ok=True)
    return d

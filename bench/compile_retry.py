#!/usr/bin/env python
"""What a broken candidate costs to judge, with and without the second build under nvcc's default standard.

A build tries C++14 first (04_compiler); where C++14 refuses a source, a second build under nvcc's default
(C++17) runs only where a standard could be why (`standard_may_matter`). This builds, with the cache off:

* broken candidates: the built-in and procedural solutions with one compile bug each (the warm start's
  mutations, 12_sft), once as shipped and once with the second build forced (the behaviour before);
* sources that only C++17 builds: each must still build (its second build must run).

    python bench/compile_retry.py [--n 40]

No GPU is needed. Prints a table and writes bench/results/compile_retry.json (or $CUDARL_BENCH_RESULTS/compile_retry.json).
"""
import argparse, json, os, statistics, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / 'bench')]
from _table import table, results_dir                                  # noqa: E402

# sources that C++14 refuses and C++17 builds, each in a launcher of the `relu` contract
CPP17_ONLY = {
    'std::gcd (host)': '#include <numeric>\nstatic const int kBlockGcd = std::gcd(12, 8);',
    'std::is_same_v': '#include <type_traits>\n__global__ void t(float* y) { y[0] = std::is_same_v<int, int>; }',
    'template <auto N>': 'template <auto N> __global__ void t(float* y) { y[0] = N; }\ntemplate __global__ void t<3>(float*);',
    'constexpr lambda': '__global__ void t(float* y) { constexpr auto f = [](int a) constexpr { return 2 * a; }; static_assert(f(2) == 4, ""); y[0] = 1; }',
    'u8 character literal': "__global__ void t(float* y) { y[0] = u8'a'; }",
    'aggregate with a base': 'struct B { int a; }; struct D : B { int b; };\n__global__ void t(float* y) { D d{{1}, 2}; y[0] = d.a + d.b; }',
    'enum from a braced int': 'enum class E : int {};\n__global__ void t(float* y) { E e{3}; y[0] = (int)e; }',
    'class template argument deduction': 'template <class T> struct W { T v; __device__ W(T x) : v(x) {} };\n__global__ void t(float* y) { W w(3.f); y[0] = w.v; }',
    'elided move': 'struct M { __device__ M(int v) : x(v) {} M(const M&) = delete; M(M&&) = delete; int x; };\n'
                   '__device__ M make() { return M(1); }\n__global__ void t(float* y) { M m = make(); y[0] = m.x; }',
    '__cplusplus check': '#if __cplusplus < 201703L\n#error needs C++17\n#endif',
}


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=40, help='broken candidates')
    ap.add_argument('--out', default=None, help='JSON path')
    return ap.parse_args()


def broken_sources(n: int) -> list[tuple[str, str, str]]:
    "(task, mutation, source) for `n` broken candidates that pass the static check."
    from cudarl_wb.tasks import tasks_by_tier, procedural_tasks
    from cudarl_wb.sft import MUTATIONS, mutate
    from cudarl_wb.compiler import static_check
    kinds = [m for m, (_, kind) in MUTATIONS.items() if kind == 'compile']
    out, pool = [], [t for t in tasks_by_tier() if t.solution] + procedural_tasks(3 * n, seed=0)
    for i, t in enumerate(pool):
        src = mutate(t.solution, kinds[i % len(kinds)], seed=i)
        if src and not static_check(src, t): out.append((t.name, kinds[i % len(kinds)], src))
        if len(out) == n: break
    return out


def build(source, task, force_retry: bool):
    "One cold build; with `force_retry` the second build runs on every C++14 refusal (as before the rule)."
    from cudarl_wb import compiler
    keep = compiler.standard_may_matter
    if force_retry: compiler.standard_may_matter = lambda source, errors: True
    try:
        t0 = time.perf_counter()
        r = compiler.compile_candidate(source, task, cache=False)
        return r, time.perf_counter() - t0
    finally: compiler.standard_may_matter = keep


def main():
    a = parse()
    os.environ['CUDARL_CACHE'] = tempfile.mkdtemp(prefix='compile-retry-')
    from cudarl_wb.tasks import get_task
    from cudarl_wb.core import Verdict
    relu = get_task('relu')
    cases = broken_sources(a.n)
    build(relu.solution, relu, False)                      # nvcc's first run reads its files from disk: not counted
    rows, per = [], {True: [], False: []}
    for i, (name, mutation, src) in enumerate(cases):
        for force in ((False, True) if i % 2 else (True, False)):   # alternate the order: a busy core hurts both alike
            r, s = build(src, name, force)
            per[force].append(dict(task=name, mutation=mutation, verdict=r.verdict.value, std=r.extra.get('std'), s=round(s, 3)))
    agree = sum(x['verdict'] == y['verdict'] for x, y in zip(per[False], per[True]))
    skipped = sum(x['std'] == 'c++14' and x['verdict'] == Verdict.COMPILE_ERROR.value for x in per[False])
    refused = sum(x['verdict'] == Verdict.COMPILE_ERROR.value for x in per[True])
    for force, label in ((True, 'second build on every refusal (before)'), (False, 'second build where a standard may matter')):
        s = [x['s'] for x in per[force]]
        rows.append(dict(way=label, candidates=len(s), median_s=round(statistics.median(s), 3), total_s=round(sum(s), 1)))
    table(rows, ['way', 'candidates', 'median_s', 'total_s'])
    print(f'same verdicts: {agree} of {len(cases)}; refused by C++14: {refused}; of those built once: {skipped}')
    cpp17 = []
    for label, snippet in CPP17_ONLY.items():
        src = relu.solution.replace('extern "C"', snippet + '\n\nextern "C"', 1)
        r, s = build(src, relu, False)
        cpp17.append(dict(source=label, verdict=r.verdict.value, std=r.extra.get('std'), s=round(s, 3)))
    print()
    table(cpp17, ['source', 'verdict', 'std', 's'])
    built = sum(x['verdict'] == Verdict.COMPILED.value for x in cpp17)
    print(f'sources only C++17 builds, built: {built} of {len(cpp17)}')
    out = Path(a.out or results_dir() / 'compile_retry.json')
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dict(rows=rows, same_verdicts=agree, refused=refused, built_once=skipped,
                                   broken=dict(shipped=per[False], before=per[True]), cpp17_only=cpp17), indent=1))
    print(f'wrote {out}')
    sys.exit(0 if agree == len(cases) and built == len(cpp17) else 1)


if __name__ == '__main__': main()

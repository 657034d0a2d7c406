#!/usr/bin/env python
"""How many of a run's builds a normalised source would save over the exact one.

The build cache (04_compiler) is keyed by the exact source: an answer written again costs no nvcc. An answer that
differs only in its comments or blank lines builds again, though its library would be the same. This reads the
training transcripts of runs (`transcripts.jsonl` in a run folder) and counts, over each run's candidates in order,
those the exact cache finds, those a key on the source without comments, trailing spaces and blank lines would find
as well (line numbers of the rest kept, so the compiler's messages would still point at the right lines), and those
a key on the source without any whitespace would find on top (an upper bound: it would move line numbers).

    python bench/build_repeats.py RUN [RUN ...]

No GPU or nvcc is needed. Prints a table and writes bench/results/build_repeats.json (or
$CUDARL_BENCH_RESULTS/build_repeats.json).
"""
import argparse, json, re, sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / 'bench')]
from _table import table, results_dir                                  # noqa: E402
from cudarl_wb.core import blank_comments                              # noqa: E402
from cudarl_wb.compiler import extract_code                            # noqa: E402


def layout_free(code: str) -> str:
    "The source without comments, trailing spaces and blank lines."
    return re.sub(r'\n\s*\n+', '\n', '\n'.join(l.rstrip() for l in blank_comments(code).splitlines()))


def repeats(transcripts: Path) -> dict:
    "Candidates of one run in order, and how many each key finds built before."
    seen = {'exact': set(), 'layout': set(), 'spaces': set()}
    n = dict(candidates=0, exact=0, layout_only=0, spaces_only=0)
    for line in transcripts.read_text(errors='replace').splitlines():
        for turn in json.loads(line).get('turns', []):
            code, _ = extract_code((turn.get('generation') or {}).get('text') or '')
            if code is None: continue
            keys = dict(exact=code, layout=layout_free(code), spaces=re.sub(r'\s+', '', blank_comments(code)))
            n['candidates'] += 1
            if keys['exact'] in seen['exact']: n['exact'] += 1
            elif keys['layout'] in seen['layout']: n['layout_only'] += 1
            elif keys['spaces'] in seen['spaces']: n['spaces_only'] += 1
            for k, v in keys.items(): seen[k].add(v)
    return n


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('runs', nargs='+', type=Path, help='run folders (or transcripts.jsonl files)')
    a = p.parse_args(argv)
    rows = []
    for run in a.runs:
        f = run / 'transcripts.jsonl' if run.is_dir() else run
        if not f.is_file(): sys.exit(f'build_repeats: no transcripts at {f}')
        r = repeats(f)
        rows.append(dict(run=run.name, **r, saved_by_layout=f"{r['layout_only'] / max(r['candidates'], 1):.1%}"))
    total = {k: sum(r[k] for r in rows) for k in ('candidates', 'exact', 'layout_only', 'spaces_only')}
    rows.append(dict(run='all', **total, saved_by_layout=f"{total['layout_only'] / max(total['candidates'], 1):.1%}"))
    table(rows, ['run', 'candidates', 'exact', 'layout_only', 'spaces_only', 'saved_by_layout'])
    out = results_dir() / 'build_repeats.json'
    out.write_text(json.dumps(rows, indent=2))
    print(f'wrote {out}')


if __name__ == '__main__':
    main()

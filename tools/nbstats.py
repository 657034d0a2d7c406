"""How the notebooks read: lines and definitions per exported cell, words per prose cell.

    python tools/nbstats.py [NOTEBOOK ...]      # default: nbs/[0-9]*.ipynb

Counted the way the style anchors (fastcore's notebooks 00-06, nbdev's nbs/api) were counted: every
line of an exported code cell, its `#| export` line included; a definition is a top-level `def`,
`class` or `@patch`-ed method. `mixed` counts cells that hold an import or a `show_doc` call beside other code: nbdev's docs step runs
them out of context. Prints a table and exits non-zero when an exported cell is over 60 lines or a cell
is mixed."""
import ast, glob, json, re, sys
from pathlib import Path

def _defs(src: str) -> int:
    try: tree = ast.parse(re.sub(r'^\s*[%!].*$', '', src, flags=re.M))
    except SyntaxError: return 0
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body)

def docs_unsafe(src: str) -> bool:
    """A cell that nbdev's docs step runs out of context (it holds an import or a `show_doc` call) but that does
    more than import or document: such a cell can fail there on names defined by the cells it skipped."""
    if re.match(r'\s*#\|\s*export', src): return False
    try: tree = ast.parse(re.sub(r'^\s*[%!].*$', '', src, flags=re.M))
    except SyntaxError: return False
    imports = any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree))
    showdoc = 'show_doc' in src
    if not (imports or showdoc): return False
    def plain(n):
        if isinstance(n, (ast.Import, ast.ImportFrom)): return True
        return isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and getattr(n.value.func, 'id', '') == 'show_doc'
    return not all(plain(n) for n in tree.body)

def stats(path) -> dict:
    cells = json.loads(Path(path).read_text())['cells']
    src = lambda c: ''.join(c['source'])
    ex = [src(c) for c in cells if c['cell_type'] == 'code' and src(c).lstrip().startswith('#| export')]
    lines = [len(s.splitlines()) for s in ex]
    words = [len(src(c).split()) for c in cells if c['cell_type'] == 'markdown']
    unsafe = [i for i, c in enumerate(cells) if c['cell_type'] == 'code' and docs_unsafe(src(c))]
    return dict(notebook=Path(path).name, exported=len(ex), lines=sum(lines), mean=sum(lines) / max(1, len(lines)),
                max=max(lines, default=0), over_60=sum(n > 60 for n in lines),
                defs=sum(map(_defs, ex)) / max(1, len(ex)),
                words_mean=sum(words) / max(1, len(words)), words_max=max(words, default=0), unsafe=unsafe)

def main(paths) -> int:
    rows = [stats(p) for p in paths]
    n = sum(r['exported'] for r in rows)
    total = dict(notebook='all', exported=n, lines=sum(r['lines'] for r in rows), mean=sum(r['lines'] for r in rows) / max(1, n),
                 max=max((r['max'] for r in rows), default=0), over_60=sum(r['over_60'] for r in rows),
                 defs=sum(r['defs'] * r['exported'] for r in rows) / max(1, n),
                 words_mean=sum(r['words_mean'] for r in rows) / max(1, len(rows)), words_max=max((r['words_max'] for r in rows), default=0),
                 unsafe=[u for r in rows for u in r['unsafe']])
    print(f"{'notebook':24} {'cells':>5} {'mean':>5} {'max':>4} {'>60':>4} {'defs':>5} {'words':>6} {'max':>5} {'mixed':>5}")
    for r in rows + [total]:
        print(f"{r['notebook']:24} {r['exported']:5} {r['mean']:5.1f} {r['max']:4} {r['over_60']:4} {r['defs']:5.2f} {r['words_mean']:6.0f} {r['words_max']:5} {len(r['unsafe']):5}")
    for r in rows:
        if r['unsafe']: print(f"  {r['notebook']}: cells {r['unsafe']} mix an import or show_doc with other code")
    return 1 if total['over_60'] or total['unsafe'] else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or sorted(glob.glob('nbs/[0-9]*.ipynb'))))

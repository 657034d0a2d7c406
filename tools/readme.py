"""README.md from nbs/index.ipynb, so the two never drift.

    python tools/readme.py            # run the index notebook, keep its outputs, write README.md
    python tools/readme.py --check    # exit 1 if README.md is not what the index notebook renders to

nbdev's own `nbdev-readme` renders through `quarto render`, and Quarto is not a Python package: it is
a separate download that a machine with only PyPI and Debian's packages cannot install. This script
renders the same parts nbdev does: the title and description from the first cell, markdown cells as
they are, shown code cells as Python blocks followed by their text outputs. Cells marked `#| hide`
(and `#| export`-style cells) are left out, `#|` directive lines are dropped, and links that climb
out of `nbs/` (`../LOG.md`) or point into its images (`images/x.png`) are rewritten relative to the
repository root.
"""
from __future__ import annotations
import argparse, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX, README = ROOT/'nbs'/'index.ipynb', ROOT/'README.md'
HIDDEN = {'hide', 'export', 'exporti', 'exports', 'default_exp'}
CHECK_MARK = 'tools/readme.py --check'  # the index's own drift check: not run while refreshing outputs


def _src(cell) -> str:
    s = cell['source']
    return ''.join(s) if isinstance(s, list) else s


def _directives(src: str) -> tuple[set, str]:
    "The `#|` directives at the top of a cell, and the source without them."
    lines, ds = src.splitlines(), set()
    while lines and lines[0].startswith('#|'):
        ds.update(lines.pop(0)[2:].replace(':', ' ').split()[:1])
    return ds, '\n'.join(lines).strip('\n')


def _text(x) -> str:
    return ''.join(x) if isinstance(x, list) else x


def _outputs(cell) -> list[str]:
    "Text of a code cell's outputs: stdout and text results (stderr, images and widgets are left out)."
    out = []
    for o in cell.get('outputs', []):
        if o['output_type'] == 'stream' and o.get('name') == 'stdout': out.append(('text', _text(o['text'])))
        elif o['output_type'] in ('execute_result', 'display_data'):
            d = o.get('data', {})
            if 'text/markdown' in d: out.append(('md', _text(d['text/markdown'])))
            elif 'text/plain' in d and not any(k.startswith(('image/', 'application/vnd.jupyter.widget')) for k in d):
                out.append(('text', _text(d['text/plain']) + '\n'))
    md, text = [], ''
    for kind, s in out:  # consecutive text outputs make one block
        if kind == 'text': text += s; continue
        if text: md.append(f'```\n{text.rstrip()}\n```'); text = ''
        md.append(s.strip())
    if text: md.append(f'```\n{text.rstrip()}\n```')
    return md


def _frontmatter(src: str) -> str:
    "`# title` and `> description` of the first cell, as nbdev's README shows them."
    return re.sub(r'^> ?(.*)$', r'\1', src.strip(), flags=re.M)


def render(nb_path=INDEX) -> str:
    "The README text of the notebook at `nb_path`."
    cells, parts = json.loads(Path(nb_path).read_text(encoding='utf-8'))['cells'], []
    for i, c in enumerate(cells):
        ds, body = _directives(_src(c))
        if ds & HIDDEN or not body.strip(): continue
        if c['cell_type'] == 'markdown': parts.append(_frontmatter(body) if i == 0 else body.strip())
        elif c['cell_type'] == 'code': parts += [f'```python\n{body}\n```', *_outputs(c)]
    md = '\n\n'.join(parts) + '\n'
    md = md.replace('](../', '](').replace('](images/', '](nbs/images/')
    return '<!-- Generated from nbs/index.ipynb by tools/readme.py: edit the notebook, not this file -->\n\n' + md


def refresh_outputs(nb_path=INDEX):
    "Run the notebook in its folder (as `nbdev-test` does) and save it with its outputs."
    import os
    from fastcore.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from nbdev.clean import nbdev_clean
    nb_path = Path(nb_path)
    nb, cwd = read_nb(nb_path), os.getcwd()
    os.chdir(nb_path.parent)
    try:
        sh = CaptureShell()
        sh.run_all(nb, exc_stop=True, preproc=lambda c: CHECK_MARK in c.source)
    finally: os.chdir(cwd)
    write_nb(nb, nb_path)
    nbdev_clean(fname=str(nb_path))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--check', action='store_true', help='only compare README.md with the notebook')
    p.add_argument('--no-run', action='store_true', help='render the outputs the notebook holds, without running it')
    a = p.parse_args(argv)
    if a.check:
        if README.read_text(encoding='utf-8') == render(): return 0
        print('README.md differs from nbs/index.ipynb: run python tools/readme.py', file=sys.stderr); return 1
    if not a.no_run: refresh_outputs()
    README.write_text(render(), encoding='utf-8')
    return 0


if __name__ == '__main__': sys.exit(main())

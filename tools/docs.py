"""Build the documentation site from the notebooks, offline, and check it in headless Chromium.

    python tools/docs.py               # execute the notebooks (their tests), then build _docs/
    python tools/docs.py execute       # run nbdev-test on a copy of the project, saving every output
    python tools/docs.py build         # pages from the executed copy (or, without one, unexecuted)
    python tools/docs.py check         # every page in Chromium: errors, requests, images, widgets, search,
                                       # header, layout; screenshots in _docs_screenshots/ (not published)

The site is Sphinx with MyST-NB and the Furo theme, fed by nbdev's own processing step (`proc_nbs`:
export cells dropped, `show_doc` run, names linked). Quarto, which nbdev's `nbdev-docs` calls, cannot be
installed without downloading it from outside the package registries; Jupyter Book 2 fetches its theme
at build time. The widget manager (`@jupyter-widgets/html-manager`) and MathJax come from the npm
registry and are served by the site itself, so a page makes no request outside it.

Executing the notebooks is `nbdev-test --save` on a copy of the project (the files git tracks or
does not ignore), so the outputs on the site are those of the test run, and the notebooks you edit
are never written. CI runs `execute` as its notebook tests, so each notebook runs once for both."""
import argparse, json, os, re, shutil, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT/'_docs_build'           # the executed copy, the processed notebooks, the Sphinx source
SITE = ROOT/'_docs'                  # the site
NPM = {'@jupyter-widgets/html-manager@1.0.15': 'dist/embed.js', 'mathjax@3.2.2': 'es5/tex-chtml-full.js'}


def sh(cmd, **kw):
    print('$', ' '.join(map(str, cmd)), flush=True)
    return subprocess.run(cmd, check=True, **kw)


# ---- execute -----------------------------------------------------------------------------------------
def stage() -> Path:
    "Copy the project's files (tracked, or untracked and not ignored) to `_docs_build/project`."
    dst = BUILD/'project'
    shutil.rmtree(dst, ignore_errors=True)
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split('\0')
    for f in filter(None, files):
        s = ROOT/f
        if s.is_file():
            (dst/f).parent.mkdir(parents=True, exist_ok=True); shutil.copy2(s, dst/f)
    return dst


def _test_one(nb: Path, proj: Path, env: dict, flags: str) -> tuple[Path, int, float, str]:
    import time
    t0 = time.time()
    cmd = ['nbdev-test', '--save', str(nb.relative_to(proj))] + (['--flags', flags] if flags else [])
    r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True)
    return nb, r.returncode, time.time() - t0, r.stdout + r.stderr


def execute(n_workers: int = 2, flags: str = '', only: str = '') -> Path:
    """nbdev-test --save on the copy, one process per notebook (so that the project's notebook hooks,
    registered when `cudarl_wb.core` is first imported, are in every notebook's shell); widget state is
    saved beside each notebook (see core)."""
    from concurrent.futures import ThreadPoolExecutor
    from nbdev.doclinks import nbglob
    proj = stage()
    env = {**os.environ, 'CUDARL_WIDGET_STATE': '1', 'PYTHONPATH': f"{proj}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    nbs = [Path(p) for p in nbglob(proj/'nbs', file_re=only or None) if Path(p).suffix == '.ipynb']
    print(f'$ nbdev-test --save, {len(nbs)} notebooks, {n_workers} at a time', flush=True)
    failed = []
    with ThreadPoolExecutor(max(1, n_workers)) as ex:
        for nb, rc, secs, out in ex.map(lambda nb: _test_one(nb, proj, env, flags), sorted(nbs)):
            print(f'{nb.name}: {secs:.0f} secs' + ('' if rc == 0 else ' FAILED'), flush=True)
            if rc: failed.append(nb.name); print(out[-6000:], flush=True)
    if failed: raise SystemExit('nbdev Tests Failed On The Following Notebooks:\n\t' + '\n\t'.join(failed))
    print('Success.')
    return proj


# ---- build -------------------------------------------------------------------------------------------
def _cuda_cells(nb_path: Path) -> set:
    "Ids of the cells flagged `#| cuda` (they run only on a GPU machine)."
    nb = json.loads(nb_path.read_text())
    return {c.get('id') for c in nb['cells'] if c['cell_type'] == 'code'
            and re.search(r'^#\|\s*cuda\b', ''.join(c['source']), re.M)}


def _frontmatter(src: str) -> dict:
    """The page's front matter, which nbdev writes with `yaml.dump`: read back as YAML, so that escapes
    (`\\u2192` for →) and folded lines (a `\\` at a line's end) come out as the text the notebook holds."""
    import yaml
    m = re.match(r'\s*---\s*\n(.*?)\n---\s*$', src, re.S)
    fm = yaml.safe_load(m.group(1) if m else src.strip().strip('-')) or {}
    return {str(k): ' '.join(str(v).split()) if isinstance(v, str) else v for k, v in fm.items()} if isinstance(fm, dict) else {}


_PATHS = None
def _scrub(text: str) -> str:
    "No machine paths on the site: the project root, the home folder and temporary folders are shortened."
    global _PATHS
    if _PATHS is None:
        pairs = [(str(BUILD/'project'), '.'), (str(ROOT), '.'), (str(Path.home()), '~')]
        _PATHS = [(re.compile(re.escape(a) + r'(?=[/\s\'"]|$)'), b) for a, b in pairs]
        _PATHS.append((re.compile(re.escape(tempfile.gettempdir().rstrip('/')) + r'/[\w.-]+'), '<tmp>'))
    for rx, rep in _PATHS: text = rx.sub(rep, text)
    return text


def _links(md: str) -> str:
    "Links to the hosted docs become links inside this site; the run history is a page of it."
    md = re.sub(r'https://cudarl-wb\.github\.io/cudarl-wb/([\w-]+)\.html', r'\1.html', md)
    return re.sub(r'\]\(\.\./LOG\.md(#[^)\s]*)?\)', lambda m: f'](LOG.md{m.group(1) or ""})', md)


def _sources(out: dict) -> None:
    for k, v in list(out.get('data', {}).items()):
        if isinstance(v, (str, list)) and (k.startswith('text/') or k == 'application/javascript'):
            out['data'][k] = _scrub(''.join(v))
    if 'text' in out: out['text'] = _scrub(''.join(out['text']))


def source_lines(pkg: Path) -> dict:
    "`{'module': {'name' or 'Class.method': line}}` for the package's modules, read with ast."
    import ast
    out = {}
    for f in sorted(pkg.glob('*.py')):
        names = {}
        for n in ast.parse(f.read_text()).body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                patched = any('patch' in ast.unparse(d) for d in getattr(n, 'decorator_list', []))
                ann = n.args.args[0].annotation if patched and n.args.args and n.args.args[0].annotation else None
                names[f'{ast.unparse(ann).split("|")[0].strip()}.{n.name}' if ann is not None else n.name] = n.lineno
                for m in getattr(n, 'body', []) if isinstance(n, ast.ClassDef) else []:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)): names[f'{n.name}.{m.name}'] = m.lineno
        out[f.stem] = names
    return out


def _source_link(md: str, module: str, lines: dict, url: str) -> str:
    "nbdev's Quarto link attributes dropped; a link to the definition's source line after its heading."
    md = re.sub(r'\]\(([^)]*)\)\{[^}]*\}', r'](\1)', md)
    m = re.search(r'^(#+)\s+(\S+)\s*$', md, re.M)
    if not m or '[source]' in md or m.group(2) not in lines.get(module, {}): return md
    link = f'\n\n[source]({url}/{module}.py#L{lines[module][m.group(2)]})\n'
    return md[:m.end()] + link + md[m.end():]


GPU_NOTE = ('```{note}\nThis cell needs a CUDA GPU; the site was built on a machine without one, so it was not run '
            'here. `nbdev-test --flags cuda` runs it on a GPU machine.\n```')


def convert(nb: dict, cuda_ids: set, widgets: dict | None, module: str = '', lines: dict = {}, url: str = '') -> dict:
    "A notebook processed for Quarto, made ready for MyST-NB."
    cells = []
    for c in nb['cells']:
        src = ''.join(c['source'])
        if c['cell_type'] == 'raw' and src.lstrip().startswith('---'):
            fm = _frontmatter(src)
            head = f"# {fm.get('title', 'cudarl-wb')}\n\n" + (f"> {fm['description']}\n" if fm.get('description') else '')
            cells.append(dict(cell_type='markdown', metadata={}, source=head)); continue
        if c['cell_type'] == 'markdown':
            if 'THIS FILE WAS AUTOGENERATED' in src: continue
            cells.append({**c, 'source': _links(src)}); continue
        if c['cell_type'] != 'code': continue
        opts = dict(re.findall(r'^#\|\s*([\w-]+):\s*(.*)$', src, re.M))
        body = re.sub(r'^#\|.*\n?', '', src, flags=re.M).strip('\n')
        if opts.get('output') == 'asis':            # a show_doc entry: its markdown, as a section of the page
            md = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in c.get('outputs', []))
            md = _source_link(_links(re.sub(r'^\s*---\s*\n', '', md)), module, lines, url)
            if md: cells.append(dict(cell_type='markdown', metadata={}, source=md))
            continue
        if opts.get('include') == 'false': continue
        tags = (['hide-input'] if opts.get('echo') == 'false' else []) + (['remove-output'] if opts.get('output') == 'false' else [])
        for o in c.get('outputs', []): _sources(o)
        if c.get('id') in cuda_ids:
            cells.append(dict(cell_type='markdown', metadata={}, source=GPU_NOTE))
            c = {**c, 'outputs': []}
        cells.append(dict(cell_type='code', metadata={'tags': tags} if tags else {}, source=body,
                          outputs=c.get('outputs', []), execution_count=c.get('execution_count')))
    meta = {'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'},
            'language_info': {'name': 'python'}}
    if widgets: meta['widgets'] = {'application/vnd.jupyter.widget-state+json': widgets}
    for i, c in enumerate(cells): c['id'] = f'c{i}'
    return dict(nbformat=4, nbformat_minor=5, metadata=meta, cells=cells)


def npm_assets(static: Path) -> dict:
    "The widget manager and MathJax from the npm registry, to be served by the site."
    cache = BUILD/'npm'
    if not all((cache/'node_modules'/p.rsplit('@', 1)[0]/f).exists() for p, f in NPM.items()):
        cache.mkdir(parents=True, exist_ok=True)
        sh(['npm', 'install', '--no-audit', '--no-fund', '--silent', '--prefix', str(cache), *NPM])
    out = {}
    for pkg, f in NPM.items():
        name = pkg.rsplit('@', 1)[0]
        src = cache/'node_modules'/name/f
        if name == 'mathjax':
            shutil.copytree(cache/'node_modules/mathjax/es5', static/'mathjax', dirs_exist_ok=True)
            out['mathjax'] = 'mathjax/' + Path(f).name
        else:
            shutil.copy2(src, static/'embed.js'); out['widgets'] = 'embed.js'
            for font in src.parent.glob('*.*'):     # the icon fonts embed.js loads from beside itself
                if font.suffix in ('.woff', '.woff2', '.ttf', '.eot', '.svg'): shutil.copy2(font, static/font.name)
    return out


CONF = '''
project = "cudarl-wb"
author = "cudarl-wb developers"
copyright = "cudarl-wb developers, Apache-2.0"
html_favicon = "_static/favicon.svg"
extensions = ["myst_nb"]
html_theme = "furo"
html_title = "cudarl-wb"
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_js_files = [("mathjax-hub.js", {{"priority": 100}})]
mathjax_path = {mathjax!r}
nb_execution_mode = "off"
nb_ipywidgets_js = {{{widgets!r}: {{}}}}
nb_output_stderr = "remove"
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "colon_fence"]
suppress_warnings = ["myst.header", "myst.xref_missing", "misc.highlighting_failure", "mystnb.unknown_mime_type", "toc.not_included"]
exclude_patterns = ["_build"]
html_theme_options = {{"navigation_with_keys": True}}
'''

# The widget manager typesets through MathJax 2's `MathJax.Hub.Queue`; Sphinx loads MathJax 3, which has no
# `Hub`. This gives whatever MathJax object the page ends up with a `Hub.Queue` that calls MathJax 3's typeset.
MATHJAX_HUB = """(function () {
  var mj = window.MathJax;
  function shim(v) {
    if (v && typeof v === 'object' && !v.Hub) v.Hub = {Queue: function (job) {
      var el = job && job[2];
      if (el && window.MathJax && window.MathJax.typesetPromise) window.MathJax.typesetPromise([el]).catch(function () {});
    }};
    return v;
  }
  Object.defineProperty(window, 'MathJax', {configurable: true, get: function () { return mj; },
                                            set: function (v) { mj = shim(v); }});
  if (mj) mj = shim(mj);
})();
"""

FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#76b900"/></svg>'

# Outputs stay inside the content column: a wide table (a DataFrame's) or text output scrolls sideways in
# its own box instead of running under the sidebar. In an HTML widget, ipywidgets sets the line height to
# a control's height (28px, to line labels up with buttons), which double-spaces any code, table or list
# in it; those get a text line height back.
CSS = '''.cell_output img { max-width: 100%; height: auto; }
.cell_output { max-width: 100%; }
.cell_output > .output, .cell_output .output_html, .cell_output .text_html { max-width: 100%; overflow-x: auto; }
.cell_output .widget-area, .cell_output .jupyter-widgets { overflow-x: auto; }
.widget-html-content pre, .widget-html-content table, .widget-html-content ul, .widget-html-content ol,
.widget-html-content details, .widget-html-content blockquote,
.jupyter-widget-html-content pre, .jupyter-widget-html-content table, .jupyter-widget-html-content ul,
.jupyter-widget-html-content ol, .jupyter-widget-html-content details,
.jupyter-widget-html-content blockquote { line-height: 1.45; }
'''


def page_name(nb_path: Path) -> str:
    "A page is named after its module (`00_core.ipynb` → `core`), as nbdev names it."
    if nb_path.stem == 'index': return 'index'
    for c in json.loads(nb_path.read_text())['cells']:
        m = re.search(r'^#\|\s*default_exp\s+(\S+)', ''.join(c['source']), re.M)
        if m: return m.group(1)
    return re.sub(r'^\d+_', '', nb_path.stem)


def _no_eval_flagged(proj: Path):
    """In the copy, cells flagged with a test flag (`cuda`, `slow`, `verl`) get `#| eval: false`: the test run
    skipped them, and nbdev's processing would otherwise run any of them that imports something."""
    from nbdev.config import get_config
    flags = get_config(proj/'pyproject.toml').tst_flags
    flags = set(flags.split() if isinstance(flags, str) else flags)
    for p in (proj/'nbs').glob('*.ipynb'):
        nb, changed = json.loads(p.read_text()), False
        for c in nb['cells']:
            src = ''.join(c['source'])
            if c['cell_type'] == 'code' and any(re.search(rf'^#\|\s*{f}\b', src, re.M) for f in flags) and 'eval: false' not in src:
                c['source'] = '#| eval: false\n' + src; changed = True
        if changed: p.write_text(json.dumps(nb))


def build(executed: bool | None = None, only: str = '') -> Path:
    "Process the notebooks with nbdev, convert them for MyST-NB, run Sphinx into `_docs/`."
    proj = BUILD/'project'
    if executed is None: executed = (proj/'nbs').exists()
    if not executed: proj = stage(); print('building from notebooks that were not executed: pages show no outputs')
    _no_eval_flagged(proj)
    sh([sys.executable, '-c', 'from nbdev.serve import proc_nbs; proc_nbs("nbs", n_workers=0, force=True, file_re=%r)' % only], cwd=proj)
    src = BUILD/'src'
    shutil.rmtree(src, ignore_errors=True); (src/'_static').mkdir(parents=True)
    assets = npm_assets(src/'_static')
    (src/'conf.py').write_text(CONF.format(**assets)); (src/'_static/site.css').write_text(CSS)
    (src/'_static/favicon.svg').write_text(FAVICON)
    (src/'_static/mathjax-hub.js').write_text(MATHJAX_HUB)
    order = sorted(p for p in (proj/'nbs').glob('*.ipynb') if re.search(only, p.name))
    names, lines = [], source_lines(proj/'cudarl_wb')
    from nbdev.config import get_config
    cfg = get_config(proj/'pyproject.toml')
    url = f"{cfg.git_url}/blob/{cfg.branch}/{cfg.lib_path.name}"
    for p in order:
        proc = proj/'_proc'/p.name
        if not proc.exists(): continue
        w = p.with_suffix('.widgets.json')
        name = page_name(p); names.append(name)
        nb = convert(json.loads(proc.read_text()), _cuda_cells(p), json.loads(w.read_text()) if w.exists() else None,
                     name, lines, url)
        (src/f'{name}.ipynb').write_text(json.dumps(nb))
    if (proj/'nbs/images').exists(): shutil.copytree(proj/'nbs/images', src/'images')
    if (ROOT/'LOG.md').exists():
        (src/'LOG.md').write_text((ROOT/'LOG.md').read_text().replace('](nbs/images/', '](images/')); names.append('LOG')
    toc = '\n'.join(n for n in names if n != 'index')
    idx = json.loads((src/'index.ipynb').read_text())
    idx['cells'].append(dict(cell_type='markdown', metadata={}, source=f'```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{toc}\n```'))
    (src/'index.ipynb').write_text(json.dumps(idx))
    shutil.rmtree(SITE, ignore_errors=True)
    sh([sys.executable, '-m', 'sphinx', '-q', '-b', 'html', '-j', '2', str(src), str(SITE)])
    print(f'site: {SITE/"index.html"} ({len(names)} pages)')
    return SITE


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('step', nargs='?', default='all', choices=['all', 'execute', 'build', 'check'])
    p.add_argument('--flags', default='', help='nbdev-test flags to run too (e.g. "cuda" on a GPU machine)')
    p.add_argument('--n-workers', type=int, default=2)
    p.add_argument('--only', default='', help='build only the notebooks whose file name matches this regex')
    p.add_argument('--screenshots', default=None, help="the check's screenshots (default: _docs_screenshots, beside the site)")
    a = p.parse_args(argv)
    if a.step in ('all', 'execute'): execute(a.n_workers, a.flags, a.only)
    if a.step in ('all', 'build'): build(only=a.only)
    if a.step in ('all', 'check'):
        sys.path.insert(0, str(ROOT/'tools'))
        from docs_check import check
        return check(SITE, a.screenshots)
    return 0


if __name__ == '__main__':
    try: sys.exit(main())
    except subprocess.CalledProcessError as e:
        print(f'failed ({e.returncode}): {" ".join(map(str, e.cmd))[:200]}', file=sys.stderr); sys.exit(e.returncode or 1)

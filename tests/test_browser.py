"""The notebooks in a real browser: JupyterLab on 127.0.0.1, Debian's headless Chromium driven by Playwright.

Each of `04_compiler`, `07_reward` and `11_episode` is copied into a temporary folder (the originals are
never touched), opened in JupyterLab and run with Run All. The tests check that no cell raised, that the
notebook's widget is drawn in the page (the kernel inspector, the reward group view, the transcript
viewer), and that moving the inspector's slider changes its occupancy table. On a machine without a GPU
the `#| cuda` cells skip themselves (`cudarl_wb.core` registers an input transformer in IPython).

Needs Debian's `chromium` (`apt-get install chromium`) and the `playwright` package; it never downloads a
browser. `CUDARL_BROWSER_STRIP=<regex>` deletes the matching lines from the copies before they are
opened: with `^(inspect_kernel\\(.*\\)|w)$` the inspector is built but never displayed, and the widget
test must fail.
"""
import json, os, re, secrets, shutil, socket, subprocess, sys, time, urllib.request
from pathlib import Path
import pytest

CHROMIUM = os.environ.get('CUDARL_CHROMIUM', '/usr/bin/chromium')
NBS = Path(__file__).resolve().parent.parent/'nbs'
NOTEBOOKS = ('04_compiler', '07_reward', '11_episode')
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync']
RUN_TIMEOUT_S = 240  # one notebook's Run All

def _missing() -> str | None:
    if not Path(CHROMIUM).exists(): return f'no Chromium at {CHROMIUM} (apt-get install chromium)'
    for mod in ('playwright', 'jupyterlab', 'ipywidgets'):
        try: __import__(mod)
        except ImportError: return f'the {mod} package is not installed (pip install {mod})'
    return None

pytestmark = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def _copy_notebooks(dest: Path):
    "The notebooks under test, with `CUDARL_BROWSER_STRIP`'s lines removed."
    strip = os.environ.get('CUDARL_BROWSER_STRIP')
    for name in NOTEBOOKS:
        nb = json.loads((NBS/f'{name}.ipynb').read_text())
        if strip:
            for c in nb['cells']:
                src = c['source'] if isinstance(c['source'], str) else ''.join(c['source'])
                c['source'] = '\n'.join(l for l in src.split('\n') if not re.search(strip, l))
        # the copy names the kernel to start, as a notebook saved by Jupyter does
        nb.setdefault('metadata', {}).setdefault('kernelspec', {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'})
        (dest/f'{name}.ipynb').write_text(json.dumps(nb))


@pytest.fixture(scope='module')
def lab(tmp_path_factory):
    "A JupyterLab server on 127.0.0.1 at a free port with a token, serving copies of the notebooks."
    root = tmp_path_factory.mktemp('lab')
    work, home = root/'nbs', root/'home'
    work.mkdir(); home.mkdir()
    _copy_notebooks(work)
    for folder in ('bench', 'cudarl_wb', 'tests'):   # what the notebooks read through `..`, as from nbs/ in a checkout
        (root/folder).symlink_to(NBS.parent/folder, target_is_directory=True)
    settings = home/'lab-settings'/'@jupyterlab'/'notebook-extension'
    settings.mkdir(parents=True)
    # every cell in the page, not only the ones scrolled into view
    (settings/'tracker.jupyterlab-settings').write_text(json.dumps({'windowingMode': 'none'}))
    news = home/'lab-settings'/'@jupyterlab'/'apputils-extension'
    news.mkdir(parents=True)
    (news/'notification.jupyterlab-settings').write_text(json.dumps({'fetchNews': 'false'}))
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, 'JUPYTER_CONFIG_DIR': str(home/'config'), 'JUPYTER_RUNTIME_DIR': str(home/'runtime'),
           'JUPYTER_DATA_DIR': str(home/'data'), 'IPYTHONDIR': str(home/'ipython'),
           'JUPYTERLAB_SETTINGS_DIR': str(home/'lab-settings'), 'JUPYTERLAB_WORKSPACES_DIR': str(home/'workspaces'),
           'MPLBACKEND': 'module://matplotlib_inline.backend_inline'}
    env.pop('IN_TEST', None)
    cmd = [sys.executable, '-m', 'jupyterlab', '--no-browser', '--ServerApp.ip=127.0.0.1', f'--ServerApp.port={port}',
           '--ServerApp.port_retries=0', f'--IdentityProvider.token={token}', f'--ServerApp.root_dir={work}',
           '--allow-root', '--LabApp.expose_app_in_browser=True', '--LabApp.news_url=None', '--LabApp.extension_manager=readonly',
           '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate']
    log = open(root/'jupyterlab.log', 'w')
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work)
    base = f'http://127.0.0.1:{port}'
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f'{base}/api/status?token={token}', timeout=2); break
            except OSError:
                if proc.poll() is not None: raise RuntimeError((root/'jupyterlab.log').read_text()[-3000:])
                time.sleep(0.5)
        else: raise RuntimeError('JupyterLab did not answer in 60 s:\n' + (root/'jupyterlab.log').read_text()[-3000:])
        yield dict(base=base, token=token, root=root)
    finally:
        proc.terminate()
        try: proc.wait(20)
        except subprocess.TimeoutExpired: proc.kill()
        log.close()


@pytest.fixture(scope='module')
def browser(lab):
    "Headless Chromium from Debian's package, in a new empty profile."
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(str(lab['root']/'chromium-profile'), executable_path=CHROMIUM,
                                                    headless=True, args=FLAGS, viewport={'width': 1400, 'height': 1000})
        try: yield ctx
        finally: ctx.close()


_RUN_ALL = """async (timeoutMs) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  const timer = new Promise((_, no) => setTimeout(() => no(new Error(`Run All took over ${timeoutMs/1000} s`)), timeoutMs));
  const run = (async () => {
    await panel.context.ready; await panel.sessionContext.ready;
    if (!panel.sessionContext.session?.kernel) throw new Error('no kernel started');
    await app.commands.execute('notebook:run-all-cells');
  })();
  await Promise.race([run, timer]);
  const cells = panel.content.widgets.filter(c => c.model.type === 'code');
  return cells.map((c, i) => ({
    index: i, count: c.model.executionCount,
    source: c.model.sharedModel.getSource().slice(0, 80),
    errors: c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => `${o.ename}: ${o.evalue}`)}));
}"""

_runs = {}

def _run_notebook(lab, browser, name):
    "Open `name` in JupyterLab and Run All (once per test module); its page and each code cell's summary."
    if name in _runs: return _runs[name]
    page = browser.new_page()
    console = []
    page.on('console', lambda m: console.append(f'{m.type}: {m.text}') if m.type == 'error' else None)
    page.goto(f"{lab['base']}/lab/tree/{name}.ipynb?reset&token={lab['token']}")
    page.wait_for_function('() => window.jupyterapp && window.jupyterapp.shell.currentWidget '
                           '&& window.jupyterapp.shell.currentWidget.sessionContext', timeout=90_000)
    t0 = time.time()
    cells = page.evaluate(_RUN_ALL, RUN_TIMEOUT_S * 1000)
    _runs[name] = (page, cells, time.time() - t0, console)
    return _runs[name]


@pytest.mark.parametrize('name', NOTEBOOKS)
def test_run_all_has_no_error(lab, browser, name):
    page, cells, seconds, _ = _run_notebook(lab, browser, name)
    errors = [f"cell {c['index']} ({c['source'].splitlines()[0] if c['source'] else ''!r}): {e}" for c in cells for e in c['errors']]
    not_run = [c['index'] for c in cells if c['count'] is None and c['source'].strip()]
    print(f'{name}: {len(cells)} code cells run in {seconds:.0f} s')
    assert not errors, f'{name}: cells raised:\n' + '\n'.join(errors)
    assert not not_run, f'{name}: cells never ran: {not_run}'


# One DOM test per widget: an ipywidgets box in an output area holding the widget's own parts.
WIDGETS = {
    '04_compiler': ('kernel inspector', '.widget-vbox:has(.widget-slider:has-text("block size")):has(.cudarl-k table:has-text("occupancy"))'),
    '07_reward': ('reward group view', '.widget-vbox:has(.widget-slider:has-text("candidate")):has(table:has-text("verdict"))'),
    '11_episode': ('transcript viewer', '.widget-vbox:has(.widget-dropdown:has-text("episode")):has(.cw-ep)'),
}

@pytest.mark.parametrize('name', NOTEBOOKS)
def test_widget_renders(lab, browser, name):
    page = _run_notebook(lab, browser, name)[0]
    what, selector = WIDGETS[name]
    found = page.locator(f'.jp-OutputArea-output {selector}')
    try: found.first.wait_for(state='attached', timeout=15_000)
    except Exception: pass
    assert found.count() > 0, f'{name}: the {what} is not drawn in the page (no `{selector}` in any output)'


def test_inspector_slider_changes_occupancy_table(lab, browser):
    page = _run_notebook(lab, browser, '04_compiler')[0]
    box = page.locator(f".jp-OutputArea-output {WIDGETS['04_compiler'][1]}").first
    assert page.locator(f".jp-OutputArea-output {WIDGETS['04_compiler'][1]}").count(), 'no kernel inspector in the page'
    table = box.locator('.cudarl-k table:has-text("occupancy")').first
    before = table.inner_text()
    readout = box.locator('.widget-slider .widget-readout').first
    start = readout.inner_text().strip()
    handle = box.locator('.widget-slider .noUi-handle').first
    handle.focus()
    for _ in range(4): handle.press('ArrowRight')  # four steps of 32 threads
    page.wait_for_function('([el, start]) => el.innerText.trim() !== start', arg=[readout.element_handle(), start], timeout=10_000)
    size = readout.inner_text().strip()
    assert int(size) == min(int(start) + 4 * 32, 1024), (start, size)
    # the table follows the slider (the kernel answers each value in turn, and each answer redraws the
    # table): wait for the answer to the last one
    deadline, after = time.time() + 20, before
    while time.time() < deadline and size not in after.split():
        time.sleep(0.2); after = table.inner_text()
    assert after != before, f'the occupancy table did not change:\n{after}'
    head, row = [l.split('\t') for l in after.splitlines()[:2]]
    block = row[head.index('block')]
    assert block == size, f"the table's block size {block} is not the slider's {size}:\n{after}"

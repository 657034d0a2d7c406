"""Open every page of the built site in headless Chromium and check what a reader would see.

    python tools/docs_check.py [SITE] [--screenshots DIR]   # default: _docs, screenshots in _docs_screenshots

Per page, at a 1280×800 window: no console error, no page error, no request leaving the site, no broken
image or link; a header (title and description) that reads as text, with no `\\u2192`-style escape or
stray backslash left by the front matter; nothing in the content column running past its right edge
(a wide table scrolls inside it); code in widgets set with single line spacing; on the pages that show
widgets (compiler, reward, episode), a rendered widget; and the site's search finds a known API name.
Screenshots go beside the site, not into it, so that they are not published with it. Uses Debian's
Chromium (/usr/bin/chromium, or $CHROMIUM) through Playwright; no browser is downloaded. Exit status 0
when every check passes."""
import argparse, functools, http.server, os, re, shutil, sys, threading
from pathlib import Path

WIDGET_PAGES = ('compiler', 'reward', 'episode')
SEARCH_FOR = os.environ.get('DOCS_SEARCH_FOR', 'compile_candidate')
VIEWPORT = {'width': 1280, 'height': 800}
MAX_LINE_HEIGHT = 1.6        # code in a widget: at most this many times its font size per line
FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync']


def serve(root: Path):
    "A static server for `root` on a free port of 127.0.0.1, in a thread."
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    handler = functools.partial(Quiet, directory=str(root))
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f'http://127.0.0.1:{srv.server_address[1]}'


def site_file(url: str, base: str) -> Path:
    rel = url[len(base):].lstrip('/') or 'index.html'
    p = SITE_ROOT/rel
    return p/'index.html' if p.is_dir() else p


SITE_ROOT = Path('_docs')

# The page's title and the description under it, as the reader sees them.
HEADER_JS = """() => {
  const h1 = document.querySelector('article h1');
  const out = {title: document.title, h1: h1 ? h1.innerText : null, description: ''};
  const next = h1 && h1.nextElementSibling;
  if (next && next.tagName === 'BLOCKQUOTE') out.description = next.innerText;
  return out;
}"""
ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[nt"\\]|\s|$)')

# Elements of the page's content whose right edge passes the content column's, with no scrolling box around them
# inside the column; only the outermost of each is reported. Also: the page itself scrolling sideways.
OVERFLOW_JS = """() => {
  const art = document.querySelector('article[role=main]') || document.querySelector('article');
  if (!art) return {missing: true, out: []};
  const col = art.closest('.content') || art;        // Furo's content column, its gutters included
  const edge = col.getBoundingClientRect().right + 1;
  const clips = el => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const bad = new Set(), out = [];
  for (const el of art.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= edge) continue;
    let held = false;
    for (let a = el.parentElement; a && a !== art; a = a.parentElement) if (clips(a)) { held = true; break; }
    if (held) continue;
    bad.add(el);
    if (bad.has(el.parentElement)) continue;
    const cls = (typeof el.className === 'string' && el.className) ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
    out.push(`${el.tagName.toLowerCase()}${cls} ends at ${Math.round(r.right)}px, the column at ${Math.round(edge - 1)}px`);
  }
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) out.push(`the page scrolls sideways (${doc.scrollWidth}px wide in a ${doc.clientWidth}px window)`);
  return {missing: false, out};
}"""

# Code blocks in widgets: lines (as the reader sees them) against the height they take.
WIDGET_CODE_JS = """() => [...document.querySelectorAll('.jupyter-widgets pre, .widget-html-content pre, .widget-output pre')]
  .filter(p => p.offsetParent !== null && p.innerText.trim())
  .map(p => {
    const cs = getComputedStyle(p);
    const lines = p.innerText.replace(/\\n+$/, '').split('\\n').length;
    const height = p.scrollHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    return {lines, height, font: parseFloat(cs.fontSize), text: p.innerText.slice(0, 40)};
  })"""


def check_page(page, url: str, base: str, shots: Path, name: str) -> list[str]:
    "Load one page; return what is wrong with it."
    problems, outside = [], []
    page.on('console', lambda m: m.type == 'error' and problems.append(f'console error: {m.text[:200]}'))
    page.on('pageerror', lambda e: problems.append(f'page error: {str(e)[:200]}'))
    page.on('request', lambda r: r.url.startswith(('http:', 'https:')) and not r.url.startswith(base) and outside.append(r.url))
    page.on('requestfailed', lambda r: r.url.startswith(base) and problems.append(f'request failed: {r.url}'))
    resp = page.goto(url, wait_until='networkidle')
    if resp is None or resp.status != 200: problems.append(f'status {resp.status if resp else None}')
    broken = page.eval_on_selector_all('img', 'els => els.filter(e => e.complete && e.naturalWidth === 0).map(e => e.src)')
    problems += [f'broken image: {s}' for s in broken]
    problems += [f'request leaving the site: {u}' for u in outside]
    hrefs = page.eval_on_selector_all('a[href]', 'els => els.map(e => e.href)')
    for h in sorted(set(hrefs)):
        if h.startswith(base) and not (site_file(h.split('#')[0].split('?')[0], base)).exists():
            problems.append(f'broken link: {h}')
    if name in WIDGET_PAGES:
        try: page.wait_for_selector('.jupyter-widgets, .widget-inline-hbox, .widget-box', timeout=15000)
        except Exception: problems.append('no widget rendered')
        page.wait_for_timeout(500)                # widgets finish laying out
    head = page.evaluate(HEADER_JS)
    if not head['h1']: problems.append('no title (h1) on the page')
    for part in ('title', 'h1', 'description'):
        if head[part] and ESCAPE.search(head[part]): problems.append(f'escape or stray backslash in the page\'s {part}: {head[part][:160]!r}')
    over = page.evaluate(OVERFLOW_JS)
    if over['missing']: problems.append('no content column (article) on the page')
    problems += [f'past the content column: {x}' for x in over['out'][:5]]
    if len(over['out']) > 5: problems.append(f'past the content column: {len(over["out"]) - 5} more')
    codes = page.evaluate(WIDGET_CODE_JS)
    for c in codes:
        if c['height'] > MAX_LINE_HEIGHT * c['font'] * c['lines'] + 2:
            problems.append(f"widget code spaced out: {c['lines']} lines of {c['font']:.0f}px take {c['height']:.0f}px "
                            f"({c['height'] / c['lines'] / c['font']:.2f}× the font size a line; at most {MAX_LINE_HEIGHT}): {c['text']!r}")
    page.screenshot(path=str(shots/f'{name}.png'), full_page=False)
    return problems


def check_search(page, base: str) -> list[str]:
    page.goto(f'{base}/search.html?q={SEARCH_FOR}', wait_until='networkidle')
    try: page.wait_for_selector('#search-results li', timeout=15000)
    except Exception: return [f'search for {SEARCH_FOR!r} found nothing']
    return []


def check(site='_docs', screenshots=None) -> int:
    """Check every page of `site`; screenshots go to `screenshots` (default: a folder beside the site,
    `_docs_screenshots` for `_docs`), never inside the site."""
    global SITE_ROOT
    site = SITE_ROOT = Path(site)
    from playwright.sync_api import sync_playwright
    exe = os.environ.get('CHROMIUM', '/usr/bin/chromium')
    if not Path(exe).exists(): print(f'no Chromium at {exe}: install Debian\'s chromium package'); return 2
    pages = sorted(p for p in site.glob('*.html') if p.name not in ('genindex.html', 'search.html'))
    shots = Path(screenshots) if screenshots else site.resolve().parent/f'{site.resolve().name}_screenshots'
    if shots.resolve().is_relative_to(site.resolve()): print(f'screenshots would be published with the site: {shots}'); return 2
    shutil.rmtree(site/'_screenshots', ignore_errors=True)      # left there by an older check
    shots.mkdir(parents=True, exist_ok=True)
    srv, base = serve(site)
    failed = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, headless=True, args=FLAGS)
            for p in pages:
                page = browser.new_page(viewport=VIEWPORT)
                problems = check_page(page, f'{base}/{p.name}', base, shots, p.stem)
                page.close()
                failed += bool(problems)
                print(f"{'ok  ' if not problems else 'FAIL'} {p.name}" + ''.join(f'\n     {x}' for x in problems))
            page = browser.new_page()
            problems = check_search(page, base)
            failed += bool(problems)
            print(f"{'ok  ' if not problems else 'FAIL'} search {SEARCH_FOR}" + ''.join(f'\n     {x}' for x in problems))
            browser.close()
    finally: srv.shutdown()
    print(f'{len(pages) + 1 - failed} passed, {failed} failed; screenshots in {shots}')
    return 1 if failed else 0


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('site', nargs='?', default='_docs')
    ap.add_argument('--screenshots', default=None, help='folder for the screenshots (default: beside the site)')
    a = ap.parse_args()
    sys.exit(check(a.site, a.screenshots))

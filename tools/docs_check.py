"""Open every page of the built site in headless Chromium and check what a reader would see.

    python tools/docs_check.py [SITE]        # default: _docs; screenshots go to SITE/_screenshots

Per page: no console error, no page error, no request leaving the site, no broken image; on the pages
that show widgets (compiler, reward, episode), a rendered widget; and the site's search finds a known
API name. Uses Debian's Chromium (/usr/bin/chromium, or $CHROMIUM) through Playwright; no browser is
downloaded. Exit status 0 when every check passes."""
import functools, http.server, os, re, sys, threading
from pathlib import Path

WIDGET_PAGES = ('compiler', 'reward', 'episode')
SEARCH_FOR = os.environ.get('DOCS_SEARCH_FOR', 'compile_candidate')
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
    page.screenshot(path=str(shots/f'{name}.png'), full_page=False)
    return problems


def check_search(page, base: str) -> list[str]:
    page.goto(f'{base}/search.html?q={SEARCH_FOR}', wait_until='networkidle')
    try: page.wait_for_selector('#search-results li', timeout=15000)
    except Exception: return [f'search for {SEARCH_FOR!r} found nothing']
    return []


def check(site='_docs') -> int:
    global SITE_ROOT
    site = SITE_ROOT = Path(site)
    from playwright.sync_api import sync_playwright
    exe = os.environ.get('CHROMIUM', '/usr/bin/chromium')
    if not Path(exe).exists(): print(f'no Chromium at {exe}: install Debian\'s chromium package'); return 2
    pages = sorted(p for p in site.glob('*.html') if p.name not in ('genindex.html', 'search.html'))
    shots = site/'_screenshots'; shots.mkdir(exist_ok=True)
    srv, base = serve(site)
    failed = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, headless=True, args=FLAGS)
            for p in pages:
                page = browser.new_page(viewport={'width': 1280, 'height': 1600})
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
    print(f'{len(pages) + 1 - failed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(check(*sys.argv[1:2]))

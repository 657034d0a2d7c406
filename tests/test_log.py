"LOG.md: its index by module is made from its entries, and its links to entries lead to one."
import subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT/'tools'))
from log_index import dead_links, render, slugs  # noqa: E402


def test_the_index_is_current_and_its_links_lead_somewhere():
    r = subprocess.run([sys.executable, str(ROOT/'tools'/'log_index.py'), '--check'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_stale_index_and_a_dead_link_are_caught():
    text = (ROOT/'LOG.md').read_text(encoding='utf-8')
    more = text + '\n## 2099-01-01 · `00_core` · an entry the index does not hold yet\n\nSee [it](#no-such-entry).\n'
    assert render(more) != more and dead_links(more) == ['no-such-entry']
    assert '2099-01-01--00_core--an-entry-the-index-does-not-hold-yet' in render(more)


def test_anchors_are_githubs():
    text = '## 2026-12-05 · `04_compiler`, `14_trainer` · the link: 0.64 s (H200)\n## a\n## a\n'
    assert [a for _, a in slugs(text)] == ['2026-12-05--04_compiler-14_trainer--the-link-064-s-h200', 'a', 'a-1']


def test_links_from_the_notebooks_and_the_readme_lead_to_an_entry():
    import re
    have = {a for _, a in slugs((ROOT/'LOG.md').read_text(encoding='utf-8'))}
    bad = []
    for f in [ROOT/'README.md', *sorted((ROOT/'nbs').glob('*.ipynb'))]:
        for a in re.findall(r'LOG\.md#([^)\s"\\]+)', f.read_text(encoding='utf-8')):
            if a not in have: bad.append(f'{f.name}: #{a}')
    assert not bad, bad

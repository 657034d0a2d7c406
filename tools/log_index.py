"""LOG.md's index by module, made from its entries' headings, so it never drifts from them.

    python tools/log_index.py            # rewrite the index between its two markers in LOG.md
    python tools/log_index.py --check    # exit 1 if the index is stale or a link to an entry (#anchor) leads nowhere

An entry's heading reads `## DATE · MODULES · TITLE`, MODULES being backticked notebook names (or a script's path)
joined by commas. Anchors are the ones GitHub and the documentation site (MyST, `myst_heading_anchors`) give a
heading: lower case, punctuation dropped, spaces made hyphens, `-1`, `-2` after a repeat.
"""
import argparse, re, sys
from pathlib import Path

LOG = Path(__file__).resolve().parents[1]/'LOG.md'
START, END = '<!-- index: made by tools/log_index.py from the headings below -->', '<!-- /index -->'
ENTRY = re.compile(r'^## (\d{4}-\d{2}-\d{2}) · (.+?) · (.+)$')


def slugs(text: str) -> list[tuple[str, str]]:
    "(heading, anchor) of every heading of `text`, repeats numbered as GitHub numbers them."
    seen, out = {}, []
    for line in text.splitlines():
        m = re.match(r'^#{1,6} (.+)$', line)
        if not m: continue
        base = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
        n = seen.get(base, 0); seen[base] = n + 1
        out.append((line, base if n == 0 else f'{base}-{n}'))
    return out


def index(text: str) -> str:
    "The index block: for each module, in notebook order, its entries newest first."
    by_module: dict[str, list[str]] = {}
    for line, anchor in slugs(text):
        m = ENTRY.match(line)
        if not m: continue
        date, modules, title = m.groups()
        for mod in re.findall(r'`([^`]+)`', modules) or [modules]:
            by_module.setdefault(mod, []).append(f'[{date}: {title}](#{anchor})')
    parts = [START, '', '## Index by module', '']
    for mod in sorted(by_module, key=lambda m: (not re.match(r'\d', m), m)):
        links = by_module[mod][::-1]
        parts.append(f'- `{mod}` ({len(links)}): ' + ' · '.join(links))
    return '\n'.join(parts + ['', END])


def render(text: str) -> str:
    "`text` with its index block made anew (placed after the opening section when it has none yet)."
    block = index(text)
    if START in text:
        head, rest = text.split(START, 1)
        return head + block + rest.split(END, 1)[1]
    first = text.index('\n## 20')                 # the first dated entry
    return text[:first] + '\n' + block + '\n' + text[first:]


def dead_links(text: str) -> list[str]:
    "Links to an anchor of this file (`](#…)`) that no heading has."
    have = {a for _, a in slugs(text)}
    return sorted({a for a in re.findall(r'\]\(#([^)]+)\)', text) if a not in have})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--check', action='store_true', help='only check that the index is current and its links lead somewhere')
    a = p.parse_args(argv)
    text = LOG.read_text(encoding='utf-8')
    new = render(text)
    if a.check:
        bad = dead_links(text)
        if bad: print(f'LOG.md links to anchors no heading has: {bad[:5]}', file=sys.stderr)
        if new != text: print('LOG.md\'s index is stale: run python tools/log_index.py', file=sys.stderr)
        return 1 if bad or new != text else 0
    LOG.write_text(new, encoding='utf-8')
    print(f'LOG.md: index of {sum(1 for l in text.splitlines() if ENTRY.match(l))} entries')
    return 0


if __name__ == '__main__':
    sys.exit(main())

"The README's tour, run as a reader runs it: its Python blocks, in order, in a fresh Python on the CPU."
import json, os, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r'^```(\S*)[^\n]*\n(.*?)^```[ \t]*$', re.M | re.S)

# Each block is compiled under its own name, so that a failure says which block stopped the tour.
DRIVER = '''
import json, sys
ns = {'__name__': '__main__'}
for i, block in enumerate(json.load(sys.stdin), 1):
    print(f'--- README python block {i}', flush=True)
    exec(compile(block, f'<README.md python block {i}>', 'exec'), ns)
'''


def python_blocks(text: str) -> list[str]:
    "The ```python blocks of a markdown text, in order (shell blocks, output blocks and the rest are left out)."
    return [body for lang, body in FENCE.findall(text) if lang.lower() in ('python', 'py')]


def test_blocks_are_found_and_shell_blocks_left_out():
    md = '```bash\npip install x\n```\n\ntext\n\n```python\nx = 1\n```\n\n```\n1\n```\n\n```python\nprint(x)\n```\n'
    assert python_blocks(md) == ['x = 1\n', 'print(x)\n']
    blocks = python_blocks((ROOT/'README.md').read_text(encoding='utf-8'))
    assert len(blocks) >= 5 and not any('cudarl-wb train' in b or 'pip install' in b for b in blocks)


def test_readme_python_blocks_run_in_order(tmp_path):
    "Every Python block of the README runs as shown, one after the other, with nothing from the notebook's hidden cells."
    blocks = python_blocks((ROOT/'README.md').read_text(encoding='utf-8'))
    env = {**os.environ, 'CUDA_VISIBLE_DEVICES': '', 'CUDARL_CACHE': str(tmp_path/'cache'),
           'PYTHONPATH': os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))}
    r = subprocess.run([sys.executable, '-c', DRIVER], input=json.dumps(blocks), capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=240)
    assert r.returncode == 0, f'{r.stdout[-3000:]}\n{r.stderr[-3000:]}'
    assert f'--- README python block {len(blocks)}' in r.stdout
    assert 'compile-only' in r.stdout          # the reward says, on a CPU, what it could not check

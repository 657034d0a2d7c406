"The notebooks as the documentation site's build reads them."
import ast, warnings
from pathlib import Path
import pytest

NBS = sorted((Path(__file__).parents[1]/'nbs').glob('*.ipynb'))


def site_cells(path):
    "The code cells that nbdev's page build executes on its own (exports, show_doc calls, cells with an import)."
    from nbdev.process import NBProcessor
    from nbdev.processors import _do_eval
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        nb = NBProcessor(path).nb
        return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == 'code' and _do_eval(c)]


@pytest.mark.parametrize('path', NBS, ids=[p.stem for p in NBS])
def test_the_site_build_runs_no_test_code(path):
    """The page build runs exports, show_doc and every cell with an import, and nothing else: a test there that uses
    a name from a test cell fails the build only (17_cli did). So a cell that imports holds imports only."""
    bad = []
    for i, c in site_cells(path):
        if c.directives_.keys() & {'export', 'exports', 'exporti', 'exec_doc'} or 'show_doc' in c.source: continue
        body = ast.parse(c.source).body
        if not all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body): bad.append(f'cell {i}: {c.source[:80]!r}')
    assert not bad, f'{path.name}: put the imports of these cells in a cell of their own:\n' + '\n'.join(bad)

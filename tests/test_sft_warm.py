"""The warm start's length and data: steps with an early-stop probe and a time cap, the entropy it records,
the check that refuses an unusable warm start, and `--data sakana:PATH` on an archive parquet of our own."""
import json, os, subprocess, sys
from pathlib import Path
import pytest
import torch

from cudarl_wb.core import nvcc_path
from cudarl_wb.sft import WarmStartError, _sft_data, check_warm_start, run_sft, sakana_rows, sft_config

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent/'data'
QUICK = dict(procedural={'elementwise': 24, 'rowreduce': 4, 'broadcast': 4}, builtin_variants=0, repair_pairs=4,
             eval_procedural={'elementwise': 1, 'rowreduce': 1, 'broadcast': 0}, eval_repair=1, max_new_tokens=96,
             max_length=640, max_length_optimizer=1100, probe={'elementwise': 1, 'rowreduce': 0, 'broadcast': 0})


@pytest.fixture(autouse=True)
def _threads():
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope='module')
def archive(tmp_path_factory):
    "An archive parquet in the exact schema, from the rows `tests/test_data.py` uses."
    import pyarrow as pa, pyarrow.parquet as pq
    from cudarl_wb.data import sakana_schema
    # the rows' problems (level 1 task 19, level 2 task 12) fall in the test split: moved to ids of the warm start's
    rows = [{**r, 'Task_ID': {(1, 19): 14, (2, 12): 3}[r['Level_ID'], r['Task_ID']]} for r in json.loads((DATA/'sakana_rows.json').read_text())]
    # one more problem, in the test split (level 1, task 23): it must never be trained on
    rows.append({**rows[0], 'Task_ID': 23, 'Op_Name': '23_ReLU_heldout'})
    d = tmp_path_factory.mktemp('archive')
    pq.write_table(pa.Table.from_pylist(rows, schema=sakana_schema()), d/'level_1.parquet')
    return d


def test_early_stop_probe_ends_the_generator_and_entropy_is_recorded(tmp_path):
    m = run_sft('tiny', out=tmp_path/'sft', evaluate=True, progress=False, threads=1, steps={'generator': 60, 'optimizer': 3},
                eval_every=10, stop_compile=0.0, stop_correct=0.0, **QUICK)
    g = m['train']['generator']
    why = 'probe correct 0%' if torch.cuda.is_available() else 'probe compiles 0%'     # a GPU's Tester runs the kernels
    assert (g['steps'], g['planned_steps']) == (10, 60) and g['stopped_by'] == f'early: {why}', g
    assert [p['step'] for p in g['probes']] == [10] and g['probes'][0]['entropy'] > 0
    assert m['train']['optimizer']['steps'] == 3                     # no probe for the Optimizer: its steps
    h = m['entropy']
    assert h['before'] > 6 and h['after'] < h['before']              # a random model is near ln(4096) nats per token
    assert json.loads((tmp_path/'sft'/'metrics.json').read_text())['entropy'] == h


def test_time_is_a_cap_on_the_steps(tmp_path):
    m = run_sft('tiny', out=tmp_path/'sft', evaluate=False, progress=False, threads=1, time_budget_s=6,
                steps={'generator': 100_000, 'optimizer': 100_000}, eval_every=0, **QUICK)
    for a in ('generator', 'optimizer'):
        t = m['train'][a]
        assert t['stopped_by'] == 'time' and t['planned_steps'] == 100_000 and 0 < t['steps'] < 100_000, t
        assert t['seconds'] < 6 + 5


def test_unusable_warm_start_is_refused(tmp_path):
    (tmp_path/'metrics.json').write_text(json.dumps(dict(
        eval=dict(after=dict(generator=dict(n=46, compile=0.0, format=0.0))),
        train=dict(generator=dict(steps=75, planned_steps=745, seconds=172.0, stopped_by='time')))))
    with pytest.raises(WarmStartError, match=r'compiles 0% of 46 validation tasks .* after 75 of 745 steps'):
        check_warm_start(tmp_path)
    assert check_warm_start(tmp_path, min_compile=None)['n'] == 46


@pytest.mark.skipif(nvcc_path() is None, reason='the archive loader builds every launcher target with nvcc')
def test_sakana_source_rows_counted_and_split_by_problem(archive):
    g, o, counts = sakana_rows(str(archive), isolate=False)
    assert len(g) == counts['generator'] > 0 and len(o) == counts['optimizer']
    assert set(g['format']) <= {'launcher'} and set(g['origin']) == {'sakana'}
    assert sum(counts['left_out'].values()) >= 1 and counts['left_out'].get('not correct') == 1, counts
    assert counts['heldout_problems'] == 1 and counts['left_out'].get('not in the sft split') == 1, counts
    assert not [t for t in list(g['task']) + list(o['task']) if 'heldout' in t]


@pytest.mark.skipif(nvcc_path() is None, reason='the archive loader builds every launcher target with nvcc')
def test_sft_data_sources(archive):
    from cudarl_wb.agents import Tester
    from cudarl_wb.models import load_tokenizer
    with Tester(evaluator=False) as tester:
        gen, opt, pairs = _sft_data(sft_config('tiny', max_length=4096, max_length_optimizer=4096), tester, load_tokenizer(),
                                    log=lambda *a: None, data=f'sakana:{archive}')
    src = pairs['sources'][f'sakana:{archive}']
    assert list(pairs['sources']) == [f'sakana:{archive}'] and len(gen) + pairs['generator']['too_long'] == src['generator']
    assert len(opt) + pairs['optimizer']['too_long'] == src['optimizer']
    assert pairs['generator']['by_origin'] == {'sakana/sakana': src['generator']}
    with pytest.raises(ValueError, match=r'no generator examples from sakana:.*longer than 700 tokens'):   # the archive's are long
        _sft_data(sft_config('tiny'), None, load_tokenizer(), log=lambda *a: None, data=f'sakana:{archive}')
    with pytest.raises(ValueError, match='unknown SFT data source'):
        _sft_data(sft_config('tiny'), None, None, data='kernelbench:x')


@pytest.mark.skipif(nvcc_path() is None, reason='the archive loader builds every launcher target with nvcc')
def test_cli_trains_on_the_archive(archive, tmp_path):
    env = {**os.environ, 'PYTHONPATH': f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", 'OMP_NUM_THREADS': '1',
           'CUDARL_CACHE': os.environ.get('CUDARL_CACHE') or str(tmp_path/'cache')}
    r = subprocess.run([sys.executable, '-m', 'cudarl_wb.sft', '--data', f'sakana:{archive}', '--out', str(tmp_path/'out'),
                        '--max-steps', '2', '--no-eval', '--no-progress', '--set', 'max_length=4096', '--set', 'max_length_optimizer=4096'],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    m = json.loads((tmp_path/'out'/'metrics.json').read_text())
    assert list(m['pairs']['sources']) == [f'sakana:{archive}'] and m['train']['generator']['steps'] == 2
    assert 'optimizer' not in m['train'] and 'optimizer: no examples' in r.stdout      # the archive's repair prompts are too long for tiny


@pytest.mark.cuda
def test_probe_on_gpu_during_bf16_training(tmp_path):
    "`small` on a GPU: the probe generates and is judged in the middle of bf16 training, and training goes on after it."
    if not nvcc_path(): pytest.skip('no nvcc')
    m = run_sft('small', out=tmp_path/'sft', progress=False, evaluate='after', steps={'generator': 20, 'optimizer': 4},
                eval_every=10, stop_compile=1.01, min_entropy=0.0, **{**QUICK, 'batch_size': 8, 'grad_accum': 2})
    g = m['train']['generator']
    assert g['bf16'] is True and g['steps'] == 20 and [p['step'] for p in g['probes']] == [10], g
    assert g['probes'][0]['compile'] is not None and g['probes'][0]['entropy'] > 0
    assert m['entropy']['before'] > m['entropy']['after'] > 0

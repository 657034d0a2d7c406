"Integration tests of `cudarl_wb.data`: KernelBench folders, the Sakana archive, SFT pairs and `cudarl-wb data`."
import ctypes, json, os, pickle, shutil, subprocess, sys, time
from pathlib import Path

import pytest
import torch

from cudarl_wb.core import nvcc_path
from cudarl_wb.tasks import TASKS, Task, get_task
from cudarl_wb.data import (SAKANA_COLUMNS, SFT_COLUMNS, load_kernelbench, load_manifest, load_sakana, sakana_examples,
                            sakana_schema, sakana_split, sakana_tasks, sakana_to_launcher, sft_features, sft_pairs,
                            vary_kernel, ProblemWorker)

DATA = Path(__file__).parent/'data'
needs_nvcc = pytest.mark.skipif(nvcc_path() is None, reason='needs nvcc')


def cli(*args, check=True, timeout=600):
    exe = shutil.which('cudarl-wb')
    cmd = [exe, *args] if exe else [sys.executable, '-m', 'cudarl_wb.cli', *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=timeout)


@pytest.fixture(scope='module')
def kernelbench():
    return load_kernelbench(DATA/'kernelbench')


@pytest.fixture(scope='module')
def archive(tmp_path_factory):
    "A small archive in the exact schema, written with pyarrow: level_1.parquet and level_2.parquet."
    import pyarrow as pa, pyarrow.parquet as pq
    rows = json.loads((DATA/'sakana_rows.json').read_text())
    d = tmp_path_factory.mktemp('archive')
    for lvl in (1, 2):
        table = pa.Table.from_pylist([r for r in rows if r['Level_ID'] == lvl], schema=sakana_schema())
        # the published files carry pandas' index column too; the loader must drop it
        table = table.append_column('__index_level_0__', pa.array(range(table.num_rows), pa.int64()))
        pq.write_table(table, d/f'level_{lvl}.parquet')
    return d


# ---- KernelBench ---------------------------------------------------------------------------------

def test_kernelbench_folder_converts_and_lists_skipped_reasons(kernelbench):
    tasks, skipped = kernelbench
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert reasons == {'51_Dropout_train.py': 'nondeterministic', '60_Shape_only.py': 'non-tensor-output',
                       '70_Huge_Linear.py': 'too-large', '71_FFT.py': 'unsupported-dtype',
                       '72_No_Model.py': 'no-model', '73_Syntax_error.py': 'syntax-error'}
    assert len(tasks) == 9
    for t in tasks:
        t.check_contract()
        assert t.family == 'kernelbench' and t.name.startswith(('kb_l1_', 'kb_l2_'))
        assert len({t.shape_label(s) for s in t.shapes}) >= 3
        assert t.extra['cpu_checked_shapes'], t.name


def test_kernelbench_level_filter():
    tasks, skipped = load_kernelbench(DATA/'kernelbench', level=2, isolate=False)
    assert sorted(t.name for t in tasks) == ['kb_l2_12_gemm_multiply_leakyrelu', 'kb_l2_1_conv2d_relu_biasadd',
                                             'kb_l2_95_matmul_add_swish_tanh_gelu_hardtanh']
    assert skipped == []


def test_kernelbench_reference_matches_the_module_with_the_same_weights(kernelbench):
    "The pure function of (inputs, parameters) equals the original module once its weights are set to those inputs."
    tasks, _ = kernelbench
    t = next(t for t in tasks if t.name == 'kb_l2_1_conv2d_relu_biasadd')
    src = (DATA/'kernelbench/level2/1_Conv2D_ReLU_BiasAdd.py').read_text()
    ns = {}
    exec(compile(src, 'p', 'exec'), ns)
    model = ns['Model'](*ns['get_init_inputs']())
    xs = t.make_inputs(t.shapes[0], torch.Generator().manual_seed(0))
    with torch.no_grad():
        for (name, p), v in zip(model.named_parameters(), xs[1:]):
            p.copy_(v)
        expected = model(xs[0])
    assert [p.name for p in t.params if p.role == 'in'] == ['x', 'bias', 'conv_weight', 'conv_bias']  # named_parameters() order
    torch.testing.assert_close(t.run_reference(xs)[0], expected)


def test_kernelbench_task_runs_in_another_process(kernelbench, tmp_path):
    "A worker process receives the task pickled (standard pickle; cloudpickle where installed) and runs the reference."
    tasks, _ = kernelbench
    t = next(t for t in tasks if t.name == 'kb_l2_12_gemm_multiply_leakyrelu')
    # float64: a float32 GEMM in another process (other thread count, other blocking) rounds differently
    xs = [x.double() for x in t.make_inputs(t.shapes[0], torch.Generator().manual_seed(0))]
    (tmp_path/'job.pt').write_bytes(pickle.dumps((t, xs)))
    code = ('import pickle, sys, torch\n'
            't, xs = pickle.loads(open(sys.argv[1], "rb").read())\n'
            'torch.save(t.run_reference(xs)[0], sys.argv[2])\n')
    subprocess.run([sys.executable, '-c', code, str(tmp_path/'job.pt'), str(tmp_path/'y.pt')], check=True, timeout=300)
    torch.testing.assert_close(torch.load(tmp_path/'y.pt'), t.run_reference(xs)[0])
    cloudpickle = pytest.importorskip('cloudpickle')
    t2 = cloudpickle.loads(cloudpickle.dumps(t))
    torch.testing.assert_close(t2.run_reference(xs)[0], t.run_reference(xs)[0])


def test_hanging_and_crashing_problems_do_not_take_the_caller(tmp_path):
    tasks, skipped = load_kernelbench(DATA/'kernelbench_hostile', timeout=10)
    assert {Path(s.path).name: s.reason for s in skipped} == {'1_Hangs.py': 'timeout', '2_Kills_the_interpreter.py': 'crashed'}
    assert [t.name for t in tasks] == ['kb_l1_3_tanh']       # the restarted worker goes on
    bad = tmp_path/'level1'; bad.mkdir()
    (bad/'latin1.py').write_bytes(b'# caf\xe9\nimport torch\n')
    _, skipped = load_kernelbench(tmp_path, isolate=False)
    assert [s.reason for s in skipped] == ['not-utf8']
    with pytest.raises(FileNotFoundError):
        load_kernelbench(tmp_path/'missing')


def test_manifest_round_trip_through_the_cli(tmp_path):
    r = cli('data', 'kernelbench', str(DATA/'kernelbench'), '--out', str(tmp_path), '--level', '1')
    assert '6 tasks' in r.stdout and 'nondeterministic' in r.stdout
    skipped = json.loads((tmp_path/'skipped.json').read_text())
    assert len(skipped) == 6 and all(s['reason'] and s['path'] for s in skipped)
    tasks = load_manifest(tmp_path)
    assert len(tasks) == 6 and all(t.family == 'kernelbench' for t in tasks)
    ce = next(t for t in tasks if 'crossentropy' in t.name)
    xs = ce.make_inputs(ce.shapes[0], torch.Generator().manual_seed(0))
    torch.testing.assert_close(ce.run_reference(xs)[0], torch.nn.functional.cross_entropy(*xs))


# ---- Sakana ----------------------------------------------------------------------------------------

def test_sakana_parquet_loads_filters_and_splits(archive):
    ds = load_sakana(archive)
    assert ds.column_names == list(SAKANA_COLUMNS)
    assert len(ds) == 4 and all(ds['Correct'])
    assert len(load_sakana(archive, correct_only=False)) == 5
    assert set(load_sakana(archive, levels=[1])['Level_ID']) == {1}
    assert set(load_sakana(archive, ops='relu')['Op_Name']) == {'19_ReLU'}
    from cudarl_wb.tasks import SPLITS
    parts = {s: load_sakana(archive, correct_only=False, split=s) for s in SPLITS}
    assert sum(map(len, parts.values())) == 5                     # each problem in one split
    for s, d in parts.items():
        assert all(sakana_split(l, t) == s for l, t in zip(d['Level_ID'], d['Task_ID']))
    assert len(load_sakana(archive, correct_only=False, split='train')) == len(parts['sft']) + len(parts['rl'])
    with pytest.raises(ValueError):
        load_sakana(archive, split='validation-set')


@needs_nvcc
def test_sakana_rows_convert_and_build(archive):
    "Converted rows build with nvcc (the real compiler module), the torch-host one stays a torch extension."
    from cudarl_wb.compiler import compile_candidate
    ds = load_sakana(archive, correct_only=False)
    tasks, skipped = sakana_tasks(ds)
    assert skipped == [] and sorted(tasks) == [(1, 19), (2, 12)]
    converted = {r['Kernel_Name']: sakana_to_launcher(r['CUDA_Code'], tasks[(r['Level_ID'], r['Task_ID'])]) for r in ds}
    assert converted['addmm_then_fused_epilogue'] is None
    built = {k: compile_candidate(v, arch='sm_90') for k, v in converted.items() if v}
    assert len(built) == 4
    for k, r in built.items():
        assert r.ok, (k, r.log[-2000:])


def test_sakana_examples_schema_and_pairs(archive):
    ex = sakana_examples(load_sakana(archive, correct_only=False), isolate=False)
    assert list(ex.features) == list(SFT_COLUMNS) and ex.features == sft_features()
    df = ex.to_pandas()
    assert (df.origin == 'sakana').all() and (df.family == 'sakana').all()
    assert set(df.format) == {'launcher', 'torch-extension'}
    opt = df[df.kind == 'optimizer']
    assert len(opt) == 2 and (opt.previous_kernel != '').all() and (opt.format == 'launcher').all()
    assert ((df.kind == 'generator') == (df.previous_kernel == '')).all()


# ---- Loader fixes: KernelBench cases and the archive's edge cases ----------------------------------

def test_kernelbench_extra_cases_convert_or_say_why():
    "Scans, a Gemm over the cap, equal sizes, a degenerate reference, state drawn in forward, a Hub model."
    t0 = time.time()
    tasks, skipped = load_kernelbench(DATA/'kernelbench_extra')
    took = time.time() - t0
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert reasons == {'83_Conv3d_GroupNorm_Min_Clamp_Dropout.py': 'degenerate', '35_LSTM_state_in_forward.py': 'nondeterministic',
                       '1_hub_model.py': 'no-model-config'}, reasons
    hub = next(s for s in skipped if s.reason == 'no-model-config')
    assert '\n' not in hub.detail and 'cudarl-test/no-such-model' in hub.detail
    assert 'all zeros' in next(s.detail for s in skipped if s.reason == 'degenerate')
    assert took < 120, took                     # no network retries for the Hub problem
    by = {t.name: t for t in tasks}
    assert by['kb_l1_90_cumprod'].tier == 1 and by['kb_l1_93_masked_cumsum'].tier == 1   # scans are not elementwise
    big = by['kb_l2_76_gemm_add_relu_large']
    assert big.extra['scaled'] == {'batch_size': [128, 32], 'in_features': [8192, 2048], 'out_features': [8192, 2048],
                                   'bias_shape': [(8192,), (2048,)]}, big.extra['scaled']
    assert 'scaled down' in big.description and big.extra['notes'][0].startswith('sizes divided by 4')
    xs = big.make_inputs(big.shapes[0], torch.Generator().manual_seed(0))
    torch.testing.assert_close(big.run_reference(xs)[0], torch.relu(xs[0] @ xs[2].T + xs[1]))
    conv = by['kb_l2_60_conv3d_scale']
    x_dims, w_dims = (p[0] for p in conv.extra['spec']['inputs'][:2])
    assert x_dims[1] == w_dims[1] and len({w_dims[1], w_dims[2], w_dims[3], w_dims[4]}) == 2, (x_dims, w_dims)
    mm = next(t for t in load_kernelbench(DATA/'kernelbench/level1/1_Square_matrix_multiplication_.py', isolate=False)[0])
    for s in mm.shapes:                         # a square matmul keeps square shapes
        a, b = (x.shape for x in mm.inputs(s))
        assert a[0] == a[1] == b[0] == b[1]



@pytest.fixture(scope='module')
def meaning():
    "Problems whose inputs carry a meaning: structured matrices, class targets, module buffers, state drawn in forward."
    tasks, skipped = load_kernelbench(DATA/'kernelbench_meaning', isolate=False)
    assert skipped == [], skipped
    return {t.name: t for t in tasks}


def _draws(t, shape=0, seed=0):
    return t.make_inputs(t.shapes[shape], torch.Generator().manual_seed(seed))


def test_kernelbench_structured_matrices_stay_structured(meaning):
    sym, low = meaning['kb_l1_13_matmul_for_symmetric_matrices'], meaning['kb_l1_15_matmul_for_lower_triangular_matrices']
    for t, dom in ((sym, 'symmetric'), (low, 'lower')):
        assert t.tier == 2 and [d for _, _, d in t.extra['spec']['inputs']] == [dom, dom]
        assert [list(s.values()) for s in t.shapes][-1] == [256 if t is sym else 64]
        for k in range(len(t.shapes)):
            a, b = _draws(t, k, seed=k)
            n = t.shapes[k]['d0']
            assert a.shape == b.shape == (n, n)
            assert torch.equal(a, a.T) if t is sym else torch.equal(a, a.tril()) and bool((a.tril(-1) != 0).any())
    assert 'symmetric' in sym.description and 'lower triangular' in low.description


def test_kernelbench_class_targets_come_from_the_class_count(meaning):
    ce = meaning['kb_l1_95_crossentropy_many_classes']
    assert ce.tier == 1 and [s['d1'] for s in ce.shapes] == [1000] * 3 and ce.shapes[-1]['d0'] == 8
    assert [p.domain for p in ce.inputs(ce.timing_shape)] == ['real', 'index:1000']    # 8 samples, 1000 classes
    x, y = _draws(ce, -1)
    torch.testing.assert_close(ce.run_reference([x, y])[0], torch.nn.functional.cross_entropy(x, y))


def test_kernelbench_buffers_stay_module_state(meaning):
    bn = meaning['kb_l1_33_batchnorm_training']
    assert [p.name for p in bn.params if p.role == 'in'] == ['x', 'bn_weight', 'bn_bias']
    assert bn.tier == 1 and [s['d0'] for s in bn.shapes] == [7, 8, 16] and "buffers (bn.running_mean" in bn.description
    x, w, b = _draws(bn)
    expected = torch.nn.functional.batch_norm(x, None, None, w, b, training=True)
    torch.testing.assert_close(bn.run_reference([x, w, b])[0], expected)
    torch.testing.assert_close(bn.run_reference([x, w, b])[0], expected)     # training mode twice: same answer
    att = meaning['kb_l3_43_causal_attention_mask']                       # the causal mask is not a random input
    assert [p.name for p in att.params if p.role == 'in'] == ['x', 'qkv_weight', 'qkv_bias'] and att.tier == 3
    x, w, b = _draws(att, -1)
    y = att.run_reference([x, w, b])[0]
    x2 = x.clone(); x2[:, -1] += 1                                           # the last position cannot reach earlier ones
    assert torch.equal(att.run_reference([x2, w, b])[0][:, :-1], y[:, :-1])


def test_kernelbench_lstm_state_drawn_in_forward_becomes_inputs(meaning):
    lstm = meaning['kb_l3_35_lstm_optional_state']
    assert lstm.tier == 3 and [p.name for p in lstm.params if p.role == 'in'][:3] == ['x', 'h0', 'c0']
    assert lstm.extra['notes'] == ['the random state forward would draw (h0, c0) is drawn as inputs']
    for s in lstm.shapes:                                      # the state follows the batch in every shape
        x, h0, c0 = lstm.inputs(s)[:3]
        assert x.shape == (s['d0'], 8, 16) and h0.shape == c0.shape == (2, s['d0'], 32)
    xs = _draws(lstm, -1)
    torch.manual_seed(1); a = lstm.run_reference(xs)[0]
    torch.manual_seed(2); b = lstm.run_reference(xs)[0]
    assert torch.equal(a, b) and a.shape == (4, 10)
    _, skipped = load_kernelbench(DATA/'kernelbench_extra/level3', isolate=False)        # drawn with no argument for it
    assert [s.reason for s in skipped] == ['nondeterministic'] and 'draws 2 random tensors' in skipped[0].detail


def test_kernelbench_fusion_scan_and_conv3d_shapes_and_tiers(meaning):
    fused = meaning['kb_l2_20_linear_gelu']
    assert fused.tier == 3 and [s['d0'] for s in fused.shapes] == [25, 32, 64]
    assert [p.shape for p in fused.inputs(fused.timing_shape)] == [(64, 256), (384, 256), (384,)]
    x, w, b = _draws(fused)
    torch.testing.assert_close(fused.run_reference([x, w, b])[0], torch.nn.functional.gelu(x @ w.T + b))
    extra = DATA/'kernelbench_extra'
    (scan,), _ = load_kernelbench(extra/'level1/90_cumprod.py', isolate=False)
    assert scan.tier == 1 and [p.shape for p in scan.inputs(scan.timing_shape)] == [(16, 2048)]
    (conv,), _ = load_kernelbench(extra/'level2/60_Conv3d_Scale.py', isolate=False)
    assert conv.tier == 3 and [p.shape for p in conv.inputs(conv.timing_shape)] == [(4, 3, 6, 10, 10), (8, 3, 3, 3, 3), (8,)]
    assert conv.outputs(conv.timing_shape)[0].shape == (4, 8, 4, 8, 8)

def test_load_kernelbench_from_a_script_without_a_main_guard(tmp_path):
    script = tmp_path/'convert.py'
    script.write_text('from cudarl_wb.data import load_kernelbench\n'
                      f'tasks, skipped = load_kernelbench({str(DATA/"kernelbench/level1/19_ReLU.py")!r})\n'
                      'print(len(tasks), len(skipped))\n')
    env = {**os.environ, 'PYTHONPATH': str(Path(__file__).parents[1])}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert r.returncode == 0 and r.stdout.strip() == '1 0', r.stderr[-2000:]


def _write_archive(d, rows, correct_as_str=False):
    import pyarrow as pa, pyarrow.parquet as pq
    schema = sakana_schema()
    if correct_as_str:
        schema = schema.set(schema.get_field_index('Correct'), pa.field('Correct', pa.string()))
        rows = [{**r, 'Correct': str(bool(r['Correct']))} for r in rows]
    d.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), d/'level_1.parquet')
    return d


def test_sakana_correct_as_strings_and_left_out_rows_counted(tmp_path):
    rows = [r for r in json.loads((DATA/'sakana_rows.json').read_text()) if r['Level_ID'] == 1]
    d = _write_archive(tmp_path/'a', rows, correct_as_str=True)
    report = {}
    ds = load_sakana(d, report=report)
    assert len(ds) == 2 and report == {'not correct': 1}
    report = {}
    assert len(load_sakana(d, correct_only=False, ops='softmax', report=report)) == 0 and report == {'other op': 3}


def test_sakana_empty_archive_says_so(tmp_path):
    d = _write_archive(tmp_path/'empty', [])
    with pytest.raises(ValueError, match='holds no rows'):
        load_sakana(d)
    r = cli('data', 'sakana', str(d), '--out', str(tmp_path/'out'), check=False)
    assert r.returncode == 2 and 'holds no rows' in r.stdout and 'Traceback' not in r.stdout + r.stderr


def test_sakana_repair_feedback_holds_the_compiler_errors(archive):
    ds = load_sakana(archive, correct_only=False)
    log = ('Error building extension \'relu\': [1/2] /usr/local/cuda/bin/nvcc ' + '-I/usr/include/x ' * 60 + '-c cuda.cu\n'
           '/tmp/torch_extensions/relu/cuda.cu(21): error: identifier "size4" is undefined\n'
           '1 error detected in the compilation of "/tmp/torch_extensions/relu/cuda.cu".\nninja: build stopped: subcommand failed.')
    ds = ds.map(lambda r: {'Error': log if r['Kernel_Name'] == 'relu_half_the_elements' else r['Error']})
    df = sakana_examples(ds, isolate=False, check=False).to_pandas()
    fb = df[(df.kind == 'optimizer') & df.feedback.str.startswith('verdict: wrong')].feedback.iloc[0]
    assert 'cuda.cu(21): error: identifier "size4" is undefined' in fb and '/tmp/' not in fb


@needs_nvcc
def test_sakana_launcher_that_does_not_build_is_not_a_target(archive):
    ds = load_sakana(archive, correct_only=False)
    broken = ds.map(lambda r: {'CUDA_Code': r['CUDA_Code'].replace('const int64_t size = input.numel();',
                                                                   'const int64_t size = input.numel(); auto dims = input.sizes().vec();')
                               if r['Kernel_Name'] == 'relu_vec4_base' else r['CUDA_Code']})
    report = {}
    df = sakana_examples(broken, isolate=False, report=report).to_pandas()
    assert report.get('launcher does not build with nvcc: kept as a torch extension') == 1, report
    vec = df[df.kernel.str.contains('sizes().vec()', regex=False)]
    assert len(vec) and (vec.format == 'torch-extension').all()


# ---- SFT pairs ---------------------------------------------------------------------------------------

def _heldout_copy(name):
    base = get_task('vector_add')
    fields = ('tier', 'description', 'signature', 'reference', 'inputs', 'outputs', 'shapes', 'solution')
    return Task(name=name, **{f: getattr(base, f) for f in fields}, tags=('heldout',))


def test_sft_pairs_schema_and_heldout_exclusion():
    held = _heldout_copy('vector_add_heldout')
    ds = sft_pairs(list(TASKS.values()) + [held], variants=3, seed=1)
    assert ds.features == sft_features()
    df = ds.to_pandas()
    assert 'vector_add_heldout' not in set(df.task)
    assert set(df.kind) <= {'generator', 'optimizer'} and set(df.format) == {'launcher'}
    assert set(df.origin) <= {'suite', 'procedural', 'template', 'sakana', 'kernelbench'}
    gen = df[df.kind == 'generator']
    assert (gen.previous_kernel == '').all() and (gen.feedback == '').all()
    opt = df[df.kind == 'optimizer']
    assert (opt.previous_kernel != '').all() and opt.feedback.str.startswith('verdict: ').all()
    assert len(set(df[df.origin == 'template'].description)) > 1
    for name, shapes in zip(df.task, df.shapes):            # what the agents' task_brief needs besides the text
        assert json.loads(shapes) == get_task(name).shapes
    # the same seed gives the same pairs
    assert sft_pairs(list(TASKS.values()), variants=3, seed=1).to_pandas().equals(
        sft_pairs(list(TASKS.values()), variants=3, seed=1).to_pandas())


def test_procedural_heldout_compositions_stay_out():
    import cudarl_wb.tasks as tasks_module
    if not hasattr(tasks_module, 'procedural_tasks'):
        pytest.skip('tasks.procedural_tasks is not in this version of the suite')
    test_names = {t.name for t in tasks_module.procedural_tasks(20, seed=0, split='test')}
    df = sft_pairs([], procedural=20, seed=0, split='train').to_pandas()
    assert len(df) and not (set(df.task) & test_names)


@needs_nvcc
def test_templated_variations_still_build():
    from cudarl_wb.compiler import compile_candidate
    import random
    rng = random.Random(0)
    for name in ('vector_add', 'relu', 'softmax_rows'):
        src = vary_kernel(get_task(name).solution, rng)
        assert src != get_task(name).solution
        r = compile_candidate(src, arch='sm_90')
        assert r.ok, r.log[-2000:]


def test_cli_sft_and_sakana(tmp_path, archive):
    import datasets
    r = cli('data', 'sft', '--out', str(tmp_path/'sft'), '--variants', '1')
    counts = json.loads((tmp_path/'sft/counts.json').read_text())
    assert counts['rows'] == len(datasets.load_from_disk(str(tmp_path/'sft/pairs'))) > 0
    assert (tmp_path/'sft/pairs.parquet').exists() and 'rows' in r.stdout
    r = cli('data', 'sakana', str(archive), '--out', str(tmp_path/'sk'), '--level', '1', '--op', 'relu')
    counts = json.loads((tmp_path/'sk/counts.json').read_text())
    assert counts['archive rows'] == 2 and counts['problems converted to tasks'] == 1
    r = cli('data', 'sakana', str(tmp_path/'nope'), '--out', str(tmp_path/'x'), check=False)
    assert r.returncode == 2 and 'nope' in r.stdout


# ---- on the GPU ----------------------------------------------------------------------------------------

def _call_launcher(lib_path, task, inputs, sizes):
    lib = ctypes.CDLL(lib_path)
    fn = getattr(lib, task.launcher_name)
    outs = [torch.full(s.shape, float('nan'), dtype=getattr(torch, s.dtype), device='cuda') for s in task.outputs(sizes)]
    args, ins, os_ = [], iter(inputs), iter(outs)
    for p in task.params:
        if p.role == 'in': args.append(ctypes.c_void_p(next(ins).data_ptr()))
        elif p.role == 'out': args.append(ctypes.c_void_p(next(os_).data_ptr()))
        elif p.role == 'size': args.append(ctypes.c_int64(int(sizes[p.name])))
        elif p.role == 'scalar': args.append(ctypes.c_double(float(sizes[p.name])))
        else: args.append(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    fn(*args)
    torch.cuda.synchronize()
    return outs


@pytest.mark.cuda
def test_converted_sakana_kernels_are_correct_on_the_gpu():
    "Each converted archive kernel, called through our launcher, matches the task's reference on every shape."
    # straight from the rows (no datasets/pyarrow needed on the GPU machine)
    from cudarl_wb.compiler import compile_candidate
    from cudarl_wb.data import convert_problem, task_from_spec
    rows = json.loads((DATA/'sakana_rows.json').read_text())
    tasks = {}
    for r in rows:
        key = (r['Level_ID'], r['Task_ID'])
        if key not in tasks:
            res = convert_problem(r['PyTorch_Code_Functional'], 'sakana', f'sakana_{key[0]}_{key[1]}', key[0])
            assert res['ok'], res
            tasks[key] = task_from_spec(res['spec'])
    results = {}
    for r in rows:
        task = tasks[(r['Level_ID'], r['Task_ID'])]
        src = sakana_to_launcher(r['CUDA_Code'], task)
        if src is None: continue
        built = compile_candidate(src)
        assert built.ok, built.log[-2000:]
        ok = True
        for sizes in task.shapes:
            xs = [x.cuda() for x in task.make_inputs(sizes, torch.Generator().manual_seed(0))]
            got = _call_launcher(built.lib_path, task, xs, sizes)[0]
            want = task.run_reference(xs)[0]
            ok &= bool(torch.allclose(got, want, atol=1e-3, rtol=1e-3))
        results[r['Kernel_Name']] = ok
    print(results)
    assert results == {'relu_vec4_base': True, 'relu_naive_32_threads': True, 'relu_half_the_elements': False,
                       'gemm_tiled_fused_scale_leaky': True}


@pytest.mark.cuda
def test_kernelbench_references_run_on_the_gpu_in_float64(kernelbench):
    "The benchmarker calls references on the GPU, in float32 and float64: both agree with the CPU."
    tasks, _ = kernelbench
    for t in tasks:
        sizes = t.shapes[0]
        xs = t.make_inputs(sizes, torch.Generator().manual_seed(0))
        cpu = t.run_reference(xs)[0]
        gpu = t.run_reference([x.cuda() for x in xs])[0].cpu()
        g64 = t.run_reference([x.cuda().double() if x.is_floating_point() else x.cuda() for x in xs])[0].cpu()
        torch.testing.assert_close(gpu, cpu, atol=1e-3, rtol=1e-3, msg=t.name)
        torch.testing.assert_close(g64.float(), cpu, atol=1e-3, rtol=1e-3, msg=t.name)


@pytest.mark.cuda
def test_meaning_references_run_on_the_gpu_in_float64(meaning):
    "Structured inputs, class targets, module buffers and LSTM state: the GPU's float32 and float64 calls agree with the CPU."
    # the judge's numerics: sandbox workers run references with TF32 off (matmul and cuDNN)
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try: _meaning_on_gpu(meaning)
    finally: torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def _meaning_on_gpu(meaning):
    for t in meaning.values():
        xs = t.make_inputs(t.shapes[0], torch.Generator().manual_seed(0))
        cpu = t.run_reference(xs)[0]
        gpu = t.run_reference([x.cuda() for x in xs])[0].cpu()
        g64 = t.run_reference([x.cuda().double() if x.is_floating_point() else x.cuda() for x in xs])[0].cpu()
        torch.testing.assert_close(gpu, cpu, atol=1e-3, rtol=1e-3, msg=t.name)
        torch.testing.assert_close(g64.float(), cpu, atol=1e-3, rtol=1e-3, msg=t.name)


L4_STYLE = '''
import torch
from transformers import AutoModelForCausalLM, AutoConfig

class Model(torch.nn.Module):
    def __init__(self, model_name, config):
        super().__init__()
        self.model_name = model_name
        self.config = config
        self.model = AutoModelForCausalLM.from_pretrained(self.model_name, config=self.config)

    def forward(self, x):
        return self.model(x).logits

model_name = MODEL
config = AutoConfig.from_pretrained(model_name)
vocab_size = config.vocab_size
sequence_length = 16
batch_size = 64

def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, sequence_length))]

def get_init_inputs():
    return [model_name, config]
'''


def test_level4_converts_offline_from_a_local_model_config(tmp_path):
    "A level-4 problem whose model configuration is on this machine (no weights) converts, with drawn weights said so; without one, one line."
    cfg = tmp_path/'tiny-gpt2'; cfg.mkdir()
    (cfg/'config.json').write_text(json.dumps(dict(model_type='gpt2', n_layer=1, n_embd=32, n_head=2, n_positions=64, vocab_size=100)))
    probs = tmp_path/'kb'/'level4'; probs.mkdir(parents=True)
    (probs/'1_tiny_gpt2_bs64_seq16.py').write_text(L4_STYLE.replace('MODEL', repr(str(cfg))))
    (probs/'2_absent_bs64_seq16.py').write_text(L4_STYLE.replace('MODEL', repr('no-such-org/no-such-model')))
    tasks, skipped = load_kernelbench(tmp_path/'kb', level=4)
    assert [s.reason for s in skipped] == ['no-model-config'], skipped
    assert len(tasks) == 1, skipped
    t = tasks[0]
    assert any('weights drawn from the configuration' in n for n in t.extra['notes']), t.extra['notes']
    xs = t.make_inputs(t.shapes[0], torch.Generator().manual_seed(0))
    out = t.run_reference(xs)[0]
    assert out.shape[-1] == 100 and out.shape[:2] == xs[0].shape and torch.isfinite(out).all()
    again = pickle.loads(pickle.dumps(t.reference))(*xs)      # as a sandbox worker builds it: the same drawn weights
    torch.testing.assert_close(again[0] if isinstance(again, (list, tuple)) else again, out)

"The fast rollout engines of `cudarl_wb.agents.sample_tokens` (static cache, CUDA graphs) against the dynamic one."
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import cudarl_wb.agents as agents
from cudarl_wb.agents import (Generator, Sampling, StaticDecoder, encode_prompt, generator_messages, optimizer_messages,
                              rollout_engine, sample_tokens, static_engine_issue, stop_token_ids, _left_pad)
from cudarl_wb.models import AgentModels, build_model
from cudarl_wb.tasks import get_task

torch.set_num_threads(1)   # more threads than free cores make CPU steps much slower under CI's two notebooks


def early_stops(model, tok, prompts, max_new=48):
    "Stop tokens that end some answers after a few steps and leave others running to the limit."
    probe = sample_tokens(model, prompts, 1, Sampling(max_new_tokens=max_new, greedy=True), [], tok.pad_token_id, engine='dynamic')
    return sorted({next(t for t in r if t != r[0]) for r, _, _ in probe if len(set(r)) > 1})


def assert_same_rows(a, b, tol=1e-4):
    assert [(r, why) for r, _, why in a] == [(r, why) for r, _, why in b]
    for (_, la, _), (_, lb, _) in zip(a, b):
        assert len(la) == len(lb) and (not la or max(abs(x - y) for x, y in zip(la, lb)) < tol)


# --- CPU: the static engine (no graph) -------------------------------------------------------------------

def test_greedy_static_equals_dynamic_with_ragged_prompts_and_early_stops(tiny, prompts):
    model, tok = tiny
    stops = stop_token_ids(tok, model) + early_stops(model, tok, prompts)
    greedy = Sampling(max_new_tokens=48, greedy=True)
    dyn = sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='dynamic')
    sta = sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='static')
    assert agents.LAST_ROLLOUT['engine'] == 'static' and agents.LAST_ROLLOUT['graph'] == 'off'
    assert {why for _, _, why in sta} == {'stop', 'length'}, 'the test needs both kinds of rows'
    assert_same_rows(sta, dyn)
    for r, _, why in sta:    # a 'stop' row ends at its first stop token; a 'length' row holds none
        hits = [i for i, t in enumerate(r) if t in stops]
        assert (hits == [len(r) - 1]) if why == 'stop' else (not hits and len(r) == 48)


def test_sampled_tokens_equal_dynamic_while_the_batch_is_whole(tiny, prompts):
    "Same seed, same random numbers: both engines draw with `_draw`, from logits that agree."
    model, tok = tiny
    for samp in (Sampling(max_new_tokens=32), Sampling(max_new_tokens=32, temperature=0.7, top_p=0.9),
                 Sampling(max_new_tokens=32, temperature=1.3, top_k=50)):
        dyn = sample_tokens(model, prompts, 3, samp, [], tok.pad_token_id, seed=11, engine='dynamic')
        sta = sample_tokens(model, prompts, 3, samp, [], tok.pad_token_id, seed=11, engine='static')
        assert_same_rows(sta, dyn)
        assert len({tuple(r) for r, _, _ in sta[:3]}) > 1       # three different answers to one prompt


def test_sampled_with_stops_agrees_until_the_first_row_stops(tiny, prompts):
    "After a row stops, the dynamic engine's batch shrinks and it draws fewer random numbers; before, all is equal."
    model, tok = tiny
    samp = Sampling(max_new_tokens=40, temperature=1.0)
    free = sample_tokens(model, prompts, 2, samp, [], tok.pad_token_id, seed=2, engine='dynamic')
    stop = [free[0][0][6]]                                          # a token the first answer emits at step 7
    dyn = sample_tokens(model, prompts, 2, samp, stop, tok.pad_token_id, seed=2, engine='dynamic')
    sta = sample_tokens(model, prompts, 2, samp, stop, tok.pad_token_id, seed=2, engine='static')
    first = min(len(r) for r, _, why in dyn if why == 'stop')
    assert first <= 7
    for (a, _, _), (b, _, _) in zip(dyn, sta): assert a[:first] == b[:first]
    for r, _, why in sta:
        assert (why == 'stop') == (stop[0] in r) and (why == 'length') == (len(r) == 40 and stop[0] not in r)   # a stop may be the 40th


@pytest.mark.parametrize('temperature,top_p,top_k', [(1.0, 1.0, 0), (0.7, 0.9, 0), (1.3, 1.0, 50)])
def test_static_logprobs_agree_with_grpo_token_logprobs(tiny, prompts, temperature, top_p, top_k):
    from cudarl_wb.grpo import token_logprobs
    model, tok = tiny
    samp = Sampling(temperature=temperature, top_p=top_p, top_k=top_k, max_new_tokens=40)
    rows = sample_tokens(model, prompts, 2, samp, stop_token_ids(tok), tok.pad_token_id, seed=11, engine='static')
    seqs = [prompts[i // 2] + r for i, (r, _, _) in enumerate(rows)]
    ids, att = _left_pad(seqs, tok.pad_token_id, 'cpu')
    resp = torch.zeros_like(ids)
    for i, (r, _, _) in enumerate(rows): resp[i, ids.shape[1] - len(r):] = 1
    with torch.no_grad(): lp, _ = token_logprobs(model, ids, att, resp, temperature=temperature)
    for i, (r, logps, _) in enumerate(rows):
        mine, theirs = torch.tensor(logps), lp[i, ids.shape[1] - 1 - len(r):ids.shape[1] - 1]
        assert (mine - theirs).abs().max().item() < 1e-4 and (mine <= 0).all()


def _decode(model, prompts, samp, fused, windowed, seed=5, n=2, pad=0, compile=False):
    "One batch through a StaticDecoder with the fused step on or off and windows on or off: (run info, rows)."
    from cudarl_wb.agents import _prefill, _generator
    device = next(model.parameters()).device
    with torch.no_grad():
        cache, logits, mask, pos = _prefill(model, prompts, n, pad, device)
        dec = StaticDecoder(model, cache, logits, mask, pos, samp.max_new_tokens, samp, torch.tensor([], dtype=torch.long, device=device),
                            _generator(device, seed), fused=fused, compile=compile)
        dec.windowed = dec.windowed and windowed
        return dec.run(), dec.results()


def test_fused_windowed_step_equals_the_model_forward_over_the_whole_cache_with_lora():
    "The fused step over windows samples what the model's own forward over the whole cache samples: GQA, LoRA merged, top-k."
    model, tok = build_model('tiny', seed=0, num_attention_heads=4, num_key_value_heads=2)
    am = AgentModels.create(model.eval(), tok)
    with torch.no_grad():
        for p in am.parameters_of('optimizer'): p.add_(0.05 * torch.randn_like(p))
    prompts = [list(range(5, 25)), list(range(40, 67)), [7, 8, 9]]
    samp = Sampling(max_new_tokens=48, temperature=0.9, top_k=50)
    with am.use('optimizer') as m:
        m.eval()
        info_f, fast = _decode(m, prompts, samp, fused=True, windowed=True)
        info_m, ref = _decode(m, prompts, samp, fused=False, windowed=False)
    assert info_f['fused'] == 'on' and info_f['windows'] == [32, 48, 64, 96] and info_m['windows'] == [128], (info_f, info_m)
    assert_same_rows(fast, ref, tol=1e-5)
    with am.use('optimizer') as m, pytest.MonkeyPatch.context() as mp:
        mp.setattr(agents, 'DECODE_ATTENTION_KERNEL', 'matmul')
        info_mm, by_matmul = _decode(m.eval(), prompts, samp, fused=True, windowed=True)
    assert info_mm['attention'] == 'matmul_attention', info_mm
    assert_same_rows(by_matmul, ref, tol=1e-5)
    with am.use('generator') as m:          # the other adapter merges into different weights
        other = _decode(m.eval(), prompts, samp, fused=True, windowed=True)[1]
    assert [r for r, _, _ in other] != [r for r, _, _ in fast]


def test_fused_step_is_refused_where_it_would_differ():
    from cudarl_wb.agents import fused_issue
    assert fused_issue(build_model('tiny', seed=0)[0]) is None
    assert 'sdpa' in fused_issue(build_model('tiny', seed=0, attn_implementation='eager')[0])
    info, _ = _decode(build_model('tiny', seed=0, attn_implementation='eager')[0].eval(), [[5, 6, 7]], Sampling(max_new_tokens=20),
                      fused=None, windowed=True)
    assert info['fused'].startswith('off') and info['windows'] == [128], info     # eager attention reads the whole cache


def test_a_compile_that_fails_leaves_the_step_uncompiled(tiny, prompts, monkeypatch):
    "Compiling on: a compiled layer function that raises switches compiling off for the call, says why, and samples the same."
    model, tok = tiny
    def broken(*args, **kwargs): raise RuntimeError('simulated compiler failure')
    for f in (agents.attention_in, agents.attention_out_mlp): monkeypatch.setitem(agents._COMPILED_FNS, f, broken)
    samp = Sampling(max_new_tokens=24, temperature=0.9)
    info, rows = _decode(model, prompts, samp, fused=True, windowed=True, compile=True)
    assert info['compiled'] is False and 'simulated compiler failure' in info['compile_error'], info
    plain_info, plain = _decode(model, prompts, samp, fused=True, windowed=True)
    assert plain_info['compiled'] is False and 'compile_error' not in plain_info
    assert_same_rows(rows, plain, tol=1e-6)


def test_eager_attention_takes_an_additive_mask(prompts):
    model, tok = build_model('tiny', seed=0, attn_implementation='eager')
    model.eval()
    assert model.config._attn_implementation == 'eager'
    stops = stop_token_ids(tok, model) + early_stops(model, tok, prompts)
    greedy = Sampling(max_new_tokens=32, greedy=True)
    assert_same_rows(sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='static'),
                     sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='dynamic'))


def test_all_done_check_ends_the_loop_early_and_edge_lengths(tiny, prompts):
    model, tok = tiny
    first = sample_tokens(model, prompts[:1], 1, Sampling(max_new_tokens=1, greedy=True), [], tok.pad_token_id, engine='static')
    assert len(first[0][0]) == 1 and first[0][2] == 'length' and agents.LAST_ROLLOUT['steps'] == 1
    t = first[0][0][0]
    out = sample_tokens(model, prompts[:1], 4, Sampling(max_new_tokens=300, greedy=True), [t], tok.pad_token_id, engine='static')
    assert all(r == [t] and why == 'stop' for r, _, why in out)
    assert agents.LAST_ROLLOUT['steps'] == agents.ALL_DONE_CHECK_EVERY and agents.LAST_ROLLOUT['host_syncs'] == 2
    # a prompt near the position limit: max_new shrinks to what fits, as in the dynamic engine
    long = [5] * (model.config.max_position_embeddings - 3)
    rows = sample_tokens(model, [long], 1, Sampling(max_new_tokens=50), [], tok.pad_token_id, seed=0, engine='static')
    assert len(rows[0][0]) == 3 and rows[0][2] == 'length'


def test_engine_choice_and_refusals(tiny):
    model, tok = tiny
    assert rollout_engine(model) == 'dynamic' and rollout_engine(model, 'auto') == 'dynamic'   # CPU
    with pytest.raises(ValueError, match='needs a CUDA device'): sample_tokens(model, [[5, 6]], 1, engine='graph')
    with pytest.raises(ValueError, match='unknown rollout engine'): sample_tokens(model, [[5, 6]], 1, engine='turbo')
    windowed, _ = build_model('tiny', seed=0, use_sliding_window=True, sliding_window=64, max_window_layers=2)
    assert 'sliding_attention' in static_engine_issue(windowed)
    with pytest.raises(ValueError, match='cannot run this model'): rollout_engine(windowed, 'static')
    assert rollout_engine(windowed, 'auto') == 'dynamic'
    model.config._attn_implementation = 'flash_attention_2'    # (only the name is read)
    try: assert 'flash_attention_2' in static_engine_issue(model)
    finally: model.config._attn_implementation = 'sdpa'


def test_default_engine_reaches_agents_with_lora_adapters(tiny, prompts, monkeypatch):
    "TrainableAgent.generate passes no engine: DEFAULT_ENGINE decides; a peft-wrapped model decodes alike on both."
    _, tok = tiny
    am = AgentModels.create(build_model('tiny', seed=0)[0], tok)
    with torch.no_grad():
        for p in am.parameters_of('generator'): p.add_(0.05 * torch.randn_like(p))
    gen = Generator(am, sampling=Sampling(max_new_tokens=24))
    tasks = [get_task('relu'), get_task('matmul')]
    dyn = gen.write(tasks, n=2, seed=4)
    assert agents.LAST_ROLLOUT['engine'] == 'dynamic'
    monkeypatch.setattr(agents, 'DEFAULT_ENGINE', 'static')
    sta = gen.write(tasks, n=2, seed=4)
    assert agents.LAST_ROLLOUT['engine'] == 'static'
    assert agents.LAST_ROLLOUT['fused'] == 'on'               # the adapter merged into the fused step's weights
    for gd, gs in zip(dyn, sta):
        for a, b in zip(gd, gs):
            assert (a.response_ids, a.finish_reason, a.text) == (b.response_ids, b.finish_reason, b.text)
            assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs)) < 1e-4


def test_auto_falls_back_to_dynamic_when_a_fast_engine_breaks(tiny, prompts, monkeypatch):
    "In auto mode a failing fast engine costs a warning and the dynamic engine's speed, never the rollout."
    model, tok = tiny
    monkeypatch.setattr(agents, 'rollout_engine', lambda m, e=None: 'static' if (e or 'auto') == 'auto' else e)
    def broken(self, *a, **k): raise RuntimeError('simulated failure inside the static decoder')
    monkeypatch.setattr(StaticDecoder, 'advance', broken)
    greedy = Sampling(max_new_tokens=16, greedy=True)
    with pytest.warns(UserWarning, match='sampling this batch with the dynamic engine'):
        rows = sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='auto')
    assert agents.LAST_ROLLOUT['engine'] == 'dynamic' and 'simulated failure' in agents.LAST_ROLLOUT['fallback_from']
    assert rows == sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='dynamic')
    with pytest.raises(RuntimeError, match='simulated'):      # asked for by name: the failure is the caller's to see
        sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='static')


def test_rollout_bench_smoke(tmp_path):
    "bench/rollout_bench.py --smoke runs every column this machine has to the end, and writes its table as JSON."
    import importlib.util, json
    from pathlib import Path
    spec = importlib.util.spec_from_file_location('rollout_bench', Path(__file__).resolve().parents[1] / 'bench' / 'rollout_bench.py')
    bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
    out = tmp_path / 'rollout_bench.json'
    assert bench.main(['--smoke', '--device', 'cpu', '--new-tokens', '6', '--out', str(out)]) == 0
    rows = {r['method']: r for r in json.loads(out.read_text())['rows']}
    for m in ('hf_generate', 'hf_static', 'ours_dynamic', 'ours_static'):
        assert rows[m]['tokens_per_s'] > 0 and rows[m]['batch'] == 4 and 'error' not in rows[m], rows[m]
    assert rows['ours_static']['engine'] == 'static' and rows['ours_graph']['skipped'] == 'needs a GPU'
    assert rows['hf_generate']['speedup'] == 1.0


class HostWaits(TorchDispatchMode):
    "Records operations that make the host wait for the device, or copy host data to it: none may run inside a CUDA graph."
    FLAGGED = {'_local_scalar_dense', 'item', 'is_nonzero', 'equal', 'nonzero', 'masked_select', 'unique', '_unique',
               '_unique2', 'unique_consecutive', 'unique_dim', 'lift_fresh', 'lift_fresh_copy'}
    def __init__(self): super().__init__(); self.seen = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in self.FLAGGED or (func.overloadpacket.__name__ == 'repeat_interleave'
                                                            and isinstance(args[0], torch.Tensor) and args[0].dtype == torch.long):
            self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize('kind', ['plain', 'lora', 'eager-attention'])
def test_the_captured_step_never_waits_for_the_device(tiny, kind):
    "What a CUDA graph records must not read device values on the host (`.item()`, `bool(t)`, data-dependent shapes)."
    from cudarl_wb.agents import _prefill, _generator
    _, tok = tiny
    model = build_model('tiny', seed=0, **({'attn_implementation': 'eager'} if kind == 'eager-attention' else {}))[0].eval()
    if kind == 'lora': model = AgentModels.create(model, tok).model.eval()
    with HostWaits() as control:
        x = torch.tensor([1, 0]); bool(x.any())
    assert control.seen, 'the detector must see a host read'
    for samp in (Sampling(greedy=True), Sampling(temperature=0.7, top_p=0.9, top_k=20)):
        with torch.no_grad():
            cache, logits, mask, pos = _prefill(model, [[5, 6, 7, 8], [9, 10]], 2, tok.pad_token_id, 'cpu')
            dec = StaticDecoder(model, cache, logits, mask, pos, 12, samp, torch.tensor([2]), _generator('cpu', 0))
            dec.step()                                   # the eager warm-up step
            with HostWaits() as w: dec.step()
        assert w.seen == [], (kind, samp, w.seen)


# --- GPU: the graph engine ----------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def full_precision_fp32_matmuls():
    "The fp32 comparisons here need exact matmuls; the GRPO trainer turns TF32 on for its whole process."
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32 = saved


@pytest.fixture(scope='module')
def tiny_gpu():
    model, tok = build_model('tiny', seed=0, device='cuda')
    return model.eval(), tok


@pytest.mark.cuda
def test_graph_engine_captures_and_matches_eager_static_and_dynamic(tiny_gpu, prompts):
    model, tok = tiny_gpu
    stops = stop_token_ids(tok, model) + early_stops(model, tok, prompts)
    greedy = Sampling(max_new_tokens=48, greedy=True)
    dyn = sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='dynamic')
    gra = sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='graph')
    info = dict(agents.LAST_ROLLOUT)
    assert info['graph'] == 'captured' and info['fused'] == 'on', info
    assert info['graphs'] >= 2 and len(info['windows']) >= 2, info      # a graph per window the answers reached
    assert_same_rows(gra, dyn)
    assert_same_rows(sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id), gra, tol=1e-5)   # auto: the graph engine on a GPU
    assert agents.LAST_ROLLOUT['engine'] == 'graph'
    # sampled: a replay draws the same random numbers as the eager step it recorded
    for samp in (Sampling(max_new_tokens=64), Sampling(max_new_tokens=64, temperature=0.7, top_p=0.9, top_k=40)):
        eager = sample_tokens(model, prompts, 4, samp, stops, tok.pad_token_id, seed=9, engine='static')
        graph = sample_tokens(model, prompts, 4, samp, stops, tok.pad_token_id, seed=9, engine='graph')
        assert agents.LAST_ROLLOUT['graph'] == 'captured', agents.LAST_ROLLOUT
        assert_same_rows(graph, eager, tol=1e-5)
        again = sample_tokens(model, prompts, 4, samp, stops, tok.pad_token_id, seed=9, engine='graph')
        assert agents.LAST_ROLLOUT['decoder'] == 'refilled', agents.LAST_ROLLOUT     # the kept decoder, its graphs replayed
        assert_same_rows(again, graph, tol=1e-5)    # prefilled by the fused layers this time: the same to rounding
        assert sample_tokens(model, prompts, 4, samp, stops, tok.pad_token_id, seed=10, engine='graph') != graph


@pytest.mark.cuda
def test_graph_engine_logprobs_agree_with_grpo_and_loras_on_gpu(tiny_gpu, prompts, monkeypatch):
    from cudarl_wb.grpo import token_logprobs
    model, tok = tiny_gpu
    samp = Sampling(temperature=0.8, top_p=0.95, max_new_tokens=48)
    rows = sample_tokens(model, prompts, 2, samp, stop_token_ids(tok), tok.pad_token_id, seed=3, engine='graph')
    assert agents.LAST_ROLLOUT['graph'] == 'captured'
    seqs = [prompts[i // 2] + r for i, (r, _, _) in enumerate(rows)]
    ids, att = _left_pad(seqs, tok.pad_token_id, 'cuda')
    resp = torch.zeros_like(ids)
    for i, (r, _, _) in enumerate(rows): resp[i, ids.shape[1] - len(r):] = 1
    with torch.no_grad(): lp, _ = token_logprobs(model, ids, att, resp, temperature=0.8)
    for i, (r, logps, _) in enumerate(rows):
        assert (torch.tensor(logps, device='cuda') - lp[i, ids.shape[1] - 1 - len(r):ids.shape[1] - 1]).abs().max().item() < 1e-4
    # LoRA agents through TrainableAgent: auto is the graph engine, and each call captures its own adapter
    am = AgentModels.create(build_model('tiny', seed=0, device='cuda')[0], tok)
    with torch.no_grad():
        for p in am.parameters_of('optimizer'): p.add_(0.05 * torch.randn_like(p))
    samp = Sampling(max_new_tokens=32)
    gen, opt = Generator(am, sampling=samp), Generator(am, sampling=samp, name='optimizer')
    relu = get_task('relu')
    g_graph, o_graph = gen.write([relu], n=2, seed=1)[0], opt.write([relu], n=2, seed=1)[0]
    assert agents.LAST_ROLLOUT['engine'] == 'graph' and agents.LAST_ROLLOUT['graph'] == 'captured', agents.LAST_ROLLOUT
    monkeypatch.setattr(agents, 'DEFAULT_ENGINE', 'static')
    g_eager, o_eager = gen.write([relu], n=2, seed=1)[0], opt.write([relu], n=2, seed=1)[0]
    assert agents.LAST_ROLLOUT['engine'] == 'static'
    assert [g.response_ids for g in g_graph] == [g.response_ids for g in g_eager]
    assert [g.response_ids for g in o_graph] == [g.response_ids for g in o_eager]
    assert [g.response_ids for g in o_graph] != [g.response_ids for g in g_graph]     # the optimizer's own adapter ran


@pytest.mark.cuda
def test_graph_engine_bf16_small_runs_full_length(prompts):
    model, tok = build_model('small', seed=0, device='cuda', dtype='bf16')
    model.eval()
    rows = sample_tokens(model, prompts, 8, Sampling(max_new_tokens=96), [], tok.pad_token_id, seed=0)
    info = dict(agents.LAST_ROLLOUT)
    assert info['engine'] == 'graph' and info['graph'] == 'captured' and info['steps'] == 96, info
    assert info['host_syncs'] <= 96 // agents.ALL_DONE_CHECK_EVERY + 1
    assert all(len(r) == 96 and why == 'length' and all(l <= 0 for l in lp) for r, lp, why in rows)
    greedy = Sampling(max_new_tokens=32, greedy=True)
    a = sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='graph')
    b = sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='static')
    assert [r for r, _, _ in a] == [r for r, _, _ in b]     # the replay runs the eager step's kernels


# --- the decode step's parts ------------------------------------------------------------------------------

def test_decode_attention_reads_each_kv_head_for_its_query_heads(prompts):
    "Grouped-query attention (4 query heads on 2 kv heads) through `decode_attention` equals the model's own attention."
    from cudarl_wb.agents import DECODE_ATTENTION, attention_as
    model, tok = build_model('tiny', seed=0, num_attention_heads=4, num_key_value_heads=2)
    model.eval()
    assert model.config._attn_implementation == 'sdpa'
    stops = stop_token_ids(tok, model) + early_stops(model, tok, prompts)
    greedy = Sampling(max_new_tokens=32, greedy=True)
    sta = sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='static')
    assert_same_rows(sta, sample_tokens(model, prompts, 2, greedy, stops, tok.pad_token_id, engine='dynamic'), tol=1e-5)
    with pytest.raises(ZeroDivisionError):
        with attention_as(model.config, DECODE_ATTENTION):
            assert model.config._attn_implementation == DECODE_ATTENTION
            1 / 0
    assert model.config._attn_implementation == 'sdpa'          # restored, also after an error


@pytest.mark.parametrize('samp', [Sampling(), Sampling(temperature=0.6), Sampling(top_p=0.8), Sampling(top_k=2, temperature=1.5)])
def test_draw_samples_the_truncated_tempered_distribution(samp):
    "Token frequencies of `_draw` over many rows match the distribution `torch.multinomial` samples from."
    from cudarl_wb.agents import _draw, _generator, filter_logits
    logits = torch.tensor([2.0, 1.5, 0.3, -1.0, -4.0]).expand(40000, 5).contiguous()
    scaled = logits / samp.temperature
    want = filter_logits(scaled[:1], samp.top_k, samp.top_p).softmax(-1)[0]
    tok, logp = _draw(logits, samp, _generator('cpu', 1))
    freq = torch.bincount(tok, minlength=5) / len(tok)
    assert (freq - want).abs().max() < 0.01, (freq, want)
    assert torch.allclose(logp, scaled.log_softmax(-1).gather(-1, tok[:, None])[:, 0], atol=1e-6)   # the untruncated distribution
    ref = torch.multinomial(filter_logits(scaled, samp.top_k, samp.top_p).softmax(-1), 1, generator=_generator('cpu', 1))[:, 0]
    assert torch.equal(tok, ref)                                # a short row: the same draw as torch.multinomial, number for number


@pytest.mark.parametrize('temperature', [1.0, 0.6])
def test_two_level_draw_samples_the_tempered_distribution(temperature, monkeypatch):
    "Rows drawn in two levels (chunk, then token) come at their probabilities, with exact log-probabilities, chunks padded or not."
    from cudarl_wb.agents import _draw, _generator
    monkeypatch.setattr(agents, 'CDF_DRAW_MIN_VOCAB', 10)
    for vocab, chunk in ((3000, 1000), (4099, 1024)):                # 4,099 is prime: its last chunk is padded
        assert agents.draw_chunk(vocab) == chunk
        base = torch.full((vocab,), -20.0)
        base[[3, 999, 1000, 2500, vocab - 1]] = torch.tensor([1.0, 0.5, 0.2, -0.3, 1.5])
        logits = base.expand(12000, vocab)
        want = (base / temperature).softmax(-1)
        tok, logp = _draw(logits, Sampling(temperature=temperature), _generator('cpu', 4))
        freq = torch.bincount(tok, minlength=vocab) / len(tok)
        assert (freq - want).abs().max() < 0.015, (vocab, freq[[3, 999, 1000, 2500, vocab - 1]], want[[3, 999, 1000, 2500, vocab - 1]])
        assert torch.allclose(logp, want.log()[tok], atol=1e-5)


def test_rollout_bench_breakdown_smoke(tmp_path):
    "--breakdown takes a decode step apart (CPU time here): every part, their sum, bytes and floor fractions in the JSON."
    import importlib.util, json
    from pathlib import Path
    spec = importlib.util.spec_from_file_location('rollout_bench', Path(__file__).resolve().parents[1] / 'bench' / 'rollout_bench.py')
    bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
    out = tmp_path / 'rollout_bench.json'
    assert bench.main(['--smoke', '--device', 'cpu', '--new-tokens', '12', '--methods', 'ours_static', '--breakdown', '--out', str(out)]) == 0
    res = json.loads(out.read_text())
    parts = {r['part']: r for r in res['breakdown']}
    assert set(bench.PARTS) <= set(parts), parts
    for p in ('attention', 'mlp', 'output projection', 'sampling'): assert parts[p]['ms'] > 0 and parts[p]['mb_read'] > 0, parts[p]
    assert abs(sum(parts[p]['ms'] for p in bench.PARTS) - parts['step (kernels)']['ms']) < 1e-3
    assert 0 < parts['step (eager, timed)']['floor_frac'] < 1 and res['info']['copy_gb_per_s'] > 0
    assert 0 < res['rows'][0]['floor_frac'] < 1


@pytest.mark.cuda
def test_compiled_graph_engine_matches_the_graph_engine(tiny_gpu, prompts, monkeypatch):
    model, tok = tiny_gpu
    greedy = Sampling(max_new_tokens=40, greedy=True)
    plain = sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='graph')
    monkeypatch.setattr(agents, 'COMPILE_DECODE', True)
    fused = sample_tokens(model, prompts, 2, greedy, [], tok.pad_token_id, engine='graph')
    info = dict(agents.LAST_ROLLOUT)
    assert info['compiled'] and info['graph'] == 'captured' and info['cache_columns'] % 128 == 0, info
    assert info['fused'] == 'on' and 'compile_error' not in info and info['graphs'] >= 2, info
    assert_same_rows(fused, plain, tol=1e-4)


@pytest.mark.cuda
def test_graph_engine_fused_windows_match_the_model_forward_over_the_whole_cache(tiny_gpu, prompts):
    "On the GPU (fp32): the fused step replayed per window samples what the model's own forward over the whole cache does."
    model, tok = tiny_gpu
    samp = Sampling(max_new_tokens=64, temperature=0.8, top_p=0.95)
    with torch.no_grad():
        fast = sample_tokens(model, prompts, 2, samp, [], tok.pad_token_id, seed=2, engine='graph')
        info = dict(agents.LAST_ROLLOUT)
        ref = _decode(model, prompts, samp, fused=False, windowed=False, seed=2, pad=tok.pad_token_id)[1]
    assert info['fused'] == 'on' and info['graph'] == 'captured' and len(info['windows']) >= 2, info
    assert_same_rows(fast, ref, tol=1e-4)

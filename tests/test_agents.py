"Integration tests of `cudarl_wb.agents` with the real tiny model and the real compiler (nvcc)."
import dataclasses

import pytest
import torch

from cudarl_wb.agents import *
from cudarl_wb.agents import _left_pad
from cudarl_wb.core import Verdict, BenchResult, ShapeCheck
from cudarl_wb.models import AgentModels, build_model
from cudarl_wb.tasks import get_task

torch.set_num_threads(1)   # more threads than free cores make CPU steps much slower under CI's two notebooks


@pytest.fixture(scope='module')
def tester(tmp_path_factory):
    import os
    os.environ.setdefault('CUDARL_CACHE', str(tmp_path_factory.mktemp('cache')))
    with Tester() as t: yield t


# --- the sampling loop -------------------------------------------------------------------------------------

def test_greedy_matches_hf_generate_with_padding_shared_prefill_and_early_stops(tiny, prompts):
    model, tok = tiny
    stops = stop_token_ids(tok, model)
    rows = sample_tokens(model, prompts, 2, Sampling(max_new_tokens=48, greedy=True), stops, tok.pad_token_id)
    assert len(rows) == 6
    for i, p in enumerate(prompts):
        q = torch.tensor([p])
        ref = model.generate(input_ids=q, attention_mask=torch.ones_like(q), max_new_tokens=48, do_sample=False)[0, len(p):].tolist()
        assert rows[2 * i][0] == ref and rows[2 * i + 1][0] == ref   # both copies of the shared prefill decode alike


@pytest.mark.parametrize('temperature,top_p,top_k', [(1.0, 1.0, 0), (0.7, 0.9, 0), (1.3, 1.0, 50)])
def test_logprobs_agree_with_grpo_token_logprobs(tiny, prompts, temperature, top_p, top_k):
    from cudarl_wb.grpo import token_logprobs
    model, tok = tiny
    samp = Sampling(temperature=temperature, top_p=top_p, top_k=top_k, max_new_tokens=40)
    rows = sample_tokens(model, prompts, 2, samp, stop_token_ids(tok), tok.pad_token_id, seed=11)
    seqs = [prompts[i // 2] + r for i, (r, _, _) in enumerate(rows)]
    ids, att = _left_pad(seqs, tok.pad_token_id, 'cpu')
    resp = torch.zeros_like(ids)
    for i, (r, _, _) in enumerate(rows): resp[i, ids.shape[1] - len(r):] = 1
    with torch.no_grad(): lp, _ = token_logprobs(model, ids, att, resp, temperature=temperature)
    for i, (r, logps, _) in enumerate(rows):
        mine = torch.tensor(logps)
        theirs = lp[i, ids.shape[1] - 1 - len(r):ids.shape[1] - 1]
        assert (mine - theirs).abs().max().item() < 1e-4, (i, (mine - theirs).abs().max().item())
        assert (mine <= 0).all()


def test_truncation_only_samples_inside_the_nucleus(tiny, prompts):
    model, tok = tiny
    # top_k=1 is greedy by another road: the only token left is the arg-max
    a = sample_tokens(model, prompts[:1], 3, Sampling(top_k=1, max_new_tokens=20), [], tok.pad_token_id, seed=0)
    g = sample_tokens(model, prompts[:1], 1, Sampling(greedy=True, max_new_tokens=20), [], tok.pad_token_id)
    assert all(r == g[0][0] for r, _, _ in a)


def test_seeded_sampling_shapes_and_order(tiny):
    model, tok = tiny
    am = AgentModels.create(build_model('tiny', seed=0)[0], tok)
    gen = Generator(am, sampling=Sampling(max_new_tokens=12), max_batch=3)   # 2 prompts x 2 answers, in chunks of one prompt
    tasks = [get_task('relu'), get_task('matmul')]
    a, b = gen.write(tasks, n=2, seed=5), gen.write(tasks, n=2, seed=5)
    assert a == b
    assert gen.write(tasks, n=2, seed=6) != a
    assert [len(x) for x in a] == [2, 2]
    for t, group in zip(tasks, a):
        for g in group:
            assert g.prompt_ids == encode_prompt(tok, generator_messages(t))   # order kept across chunks
            assert len(g.response_ids) == len(g.logprobs) and 1 <= len(g.response_ids) <= 12
            assert g.finish_reason in ('stop', 'length') and g.agent == 'generator'
            assert Generation.from_json(g.to_json()) == g


def test_stop_token_is_kept_in_response_ids_and_not_in_text(tiny, prompts):
    model, tok = tiny
    first = sample_tokens(model, prompts[:1], 1, Sampling(greedy=True, max_new_tokens=4), [], tok.pad_token_id)[0][0][0]
    base, _ = build_model('tiny', seed=0)
    base.generation_config.eos_token_id = [2, first]      # a checkpoint whose generation config names this token an end
    am = AgentModels.create(base, tok, full_finetune=True)
    g = TrainableAgent('generator', am, sampling=Sampling(greedy=True, max_new_tokens=30)).generate([prompts[0]])[0][0]
    assert g.response_ids == [first] and g.finish_reason == 'stop' and g.text == ''
    cut = TrainableAgent('optimizer', am, sampling=Sampling(greedy=True, max_new_tokens=5)).generate([prompts[1]])[0][0]
    if cut.finish_reason == 'length': assert len(cut.response_ids) == 5 and not set(cut.response_ids) & {2, first}
    else: assert cut.response_ids[-1] in (2, first) and len(cut.response_ids) <= 5


def test_adapters_switched_per_agent_lora_and_full(tiny, prompts):
    _, tok = tiny
    base, _ = build_model('tiny', seed=0)
    am = AgentModels.create(base, tok)
    with torch.no_grad():
        for p in am.parameters_of('optimizer'): p.add_(0.05 * torch.randn_like(p))
    samp = Sampling(max_new_tokens=16)
    gen, opt = Generator(am, sampling=samp), Optimizer(am, sampling=samp)
    g = gen.generate([prompts[0]], 2, seed=1)[0]
    o = opt.generate([prompts[0]], 2, seed=1)[0]
    with am.reference() as ref:
        r = sample_tokens(ref, [prompts[0]], 2, samp, stop_token_ids(tok), tok.pad_token_id, seed=1)
    assert [x.response_ids for x in g] == [x for x, _, _ in r]          # the untouched Generator adapter is the base
    assert [x.response_ids for x in o] != [x.response_ids for x in g]   # the Optimizer used its own
    assert am.active == 'generator'
    full = AgentModels.create(build_model('tiny', seed=0)[0], tok, full_finetune=True)
    fg = Generator(full, sampling=samp).generate([prompts[0]], 2, seed=1)[0]
    assert [x.response_ids for x in fg] == [x.response_ids for x in g]   # a full copy of the same base answers alike


def test_prompts_that_do_not_fit_and_bad_prompts_fail_clearly(tiny):
    model, tok = tiny
    with pytest.raises(ValueError, match='positions'):
        sample_tokens(model, [[5] * 4096], 1, Sampling(max_new_tokens=8), [2], tok.pad_token_id)
    with pytest.raises(TypeError, match='chat messages'):
        encode_prompt(tok, {'role': 'user'})
    am = AgentModels.create(build_model('tiny', seed=0)[0], tok)
    assert Generator(am).generate([]) == []


# --- the Tester ---------------------------------------------------------------------------------------------

def test_builtin_naive_solutions_pass_the_tester(tester):
    names = ['vector_add', 'relu', 'softmax_rows', 'matmul']
    reports = tester.test_many([(n, answer(get_task(n).solution)) for n in names])
    for n, r in zip(names, reports):
        assert r.compile.ok, (n, r.feedback)
        if tester.mode == 'compile-only':
            assert r.verdict is Verdict.COMPILED and r.reward.mode == 'compile-only' and r.reward.total > 0, (n, r.summary)
            assert 'not run (no GPU here)' in r.feedback
        else:
            assert r.verdict is Verdict.CORRECT and r.reward.mode == 'full', (n, r.summary)
        assert r.feedback.splitlines()[-1].startswith('Hint: ')
        assert TestReport.from_json(r.to_json()) == r


@pytest.mark.parametrize('task,old,new,what', [
    ('softmax_rows', 'sum += expf(xr[j] - m);', 'sum += expf(xr[j] - mm);', 'identifier "mm" is undefined'),
    ('matmul', 'acc += A[row * k + i] * B[i * n + col];', 'acc += A[row * k + i] * B[i * n + col]', 'expected a ";"'),
])
def test_broken_kernel_feedback_names_the_right_line(tester, task, old, new, what):
    src = get_task(task).solution.strip('\n')
    assert old in src
    line = next(i for i, l in enumerate(src.split('\n'), 1) if old in l)
    r = tester.test(task, f'Here it is.\n```cuda\n{src.replace(old, new)}\n```\nDone.')
    assert r.verdict is Verdict.COMPILE_ERROR and r.reward.total == 0.0
    lines = r.feedback.splitlines()
    at = next(l for l in lines if what in l)
    # the error may be reported on the broken line or (for a missing ';') on the next one
    reported = int(at.split('line ')[1].split(':')[0])
    assert reported in (line, line + 1), r.feedback
    assert f'{reported} |' in r.feedback and lines[-1] == f'Hint: Fix line {reported} first; later errors often follow from the first one.'


def test_bad_answers_are_verdicts_never_exceptions(tester):
    relu = get_task('relu')
    bad = [None, b'\xff\xfe\x00', '', 'x' * 300_000, 'print("hello")', '```cuda\n__global__ void k(', 42,
           answer(relu.solution.replace('cudaStream_t stream)', 'int s)'))]
    reports = tester.test_many([(relu, b) for b in bad])
    assert [r.verdict.value for r in reports] == ['no-code'] * 5 + ['rejected-by-static-check', 'no-code', 'rejected-by-static-check']
    assert all(r.reward.total == 0.0 and r.feedback.startswith('Verdict: ') and 'Hint: ' in r.feedback for r in reports)
    assert 'Declare the launcher exactly as' in reports[-1].feedback


def test_identical_answers_get_identical_reports(tester):
    relu = get_task('relu')
    a, b = tester.test_many([(relu, answer(relu.solution)), ('relu', answer(relu.solution) + '\n')])
    assert a.reward.total == b.reward.total and a.code == b.code and a.compile.key == b.compile.key


def test_strategies_and_hints_follow_the_code(tester):
    relu, softmax = get_task('relu'), get_task('softmax_rows')
    cr = tester.test(relu, answer(relu.solution)).compile
    slow = BenchResult(Verdict.CORRECT, 'relu', checks=[ShapeCheck('n=1024', 5, 5)], kernel_ms=1.0, peak_fraction=0.2)
    assert 'float4' in hint(relu, cr, slow, strategies_of(relu.solution))
    assert 'warp' in hint(softmax, cr, slow, strategies_of(softmax.solution))
    assert strategies_of(softmax.solution) == ['shared-memory tiling']
    wrong = BenchResult(Verdict.WRONG, 'relu', checks=[ShapeCheck('n=1000003', 5, 0, 2.0, 1.0, 'y[1000002] (tail)')])
    assert verdict_line(cr, wrong).startswith('Verdict: wrong. n=1000003: 0/5 trials passed')
    assert 'i < n' in hint(relu, cr, wrong, [])


@pytest.mark.cuda
def test_tester_full_rewards_on_gpu():
    relu = get_task('relu')
    tail = relu.solution.replace('for (; i < n; i += stride)', 'for (; i < (n & ~31LL); i += stride)')
    with Tester() as t:
        assert t.mode == 'full'
        good, wrong, again = t.test_many([(relu, answer(relu.solution)), (relu, answer(tail)), (relu, answer(relu.solution))])
        assert good.verdict is Verdict.CORRECT and good.reward.mode == 'full' and good.reward.total > 0.4, good.summary
        assert good.bench.kernel_ms and good.bench.speedup_eager and 'correct on' in good.feedback
        assert wrong.verdict is Verdict.WRONG and 'Guard every access' in wrong.feedback, wrong.feedback
        assert again.reward.total == good.reward.total and t.stats['evaluated'] == 2

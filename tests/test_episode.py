"Integration tests of `cudarl_wb.episode`: real tiny model, real compiler, transcripts, the viewer, the CLI as a subprocess."
import json, os, subprocess, sys
from pathlib import Path

import pytest
import torch

from cudarl_wb.agents import Generator, Optimizer, Sampling, Tester, answer, generator_messages
from cudarl_wb.core import Verdict
from cudarl_wb.episode import *
from cudarl_wb.models import AgentModels, build_model
from cudarl_wb.tasks import get_task

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope='module')
def cache(tmp_path_factory):
    os.environ.setdefault('CUDARL_CACHE', str(tmp_path_factory.mktemp('cache')))
    return os.environ['CUDARL_CACHE']


class CountingGenerator(Generator):
    "The real Generator, counting its batched calls."
    calls = 0
    def generate(self, *a, **kw):
        type(self).calls += 1
        return super().generate(*a, **kw)

class CountingOptimizer(Optimizer):
    calls, rows = 0, []
    def generate(self, prompts, *a, **kw):
        type(self).calls += 1; type(self).rows.append(len(prompts))
        return super().generate(prompts, *a, **kw)

class CountingTester(Tester):
    batches = []
    def test_many(self, pairs):
        pairs = list(pairs); type(self).batches.append(len(pairs))
        return super().test_many(pairs)


def teach(am, agent, messages, reply, steps=300, lr=2e-3):
    "Train one agent (full copies) to give `reply` to `messages`: the notebook's recipe."
    enc = am.tokenizer.apply_chat_template(messages + [{'role': 'assistant', 'content': reply}], return_dict=True,
                                           return_assistant_tokens_mask=True, return_tensors='pt')
    dev = am.parameters_of(agent)[0].device
    enc = {k: v.to(dev) for k, v in enc.items()}
    labels = enc['input_ids'].masked_fill(enc['assistant_masks'] == 0, -100)
    params = am.parameters_of(agent)
    opt = torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.95))
    for _ in range(steps):
        with am.use(agent) as m:
            loss = m(input_ids=enc['input_ids'], attention_mask=enc['attention_mask'], labels=labels).loss
            loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step(); opt.zero_grad()
        if loss.item() < 0.01: break
    return loss.item()


def test_tiny_episodes_two_turns_lockstep_and_jsonl_round_trip(tmp_path, cache):
    base, tok = build_model('tiny', seed=0)
    am = AgentModels.create(base, tok)
    samp = Sampling(max_new_tokens=64)
    gen, opt, tester = CountingGenerator(am, sampling=samp), CountingOptimizer(am, sampling=samp), CountingTester()
    eps = run_episodes(['relu', 'softmax_rows'], gen, opt, tester, group_size=3, max_turns=2, seed=4, progress=False)
    assert len(eps) == 6 and [e.group for e in eps] == [0, 0, 0, 1, 1, 1] and [e.member for e in eps] == [0, 1, 2] * 2
    # one batched generate and one test_many per turn, for every live episode at once
    live_after_0 = sum(len(e.turns) > 1 for e in eps)
    assert CountingGenerator.calls == 1 and CountingOptimizer.calls == (1 if live_after_0 else 0)
    assert CountingTester.batches == [6] + ([live_after_0] if live_after_0 else [])
    for e in eps:
        assert e.mode == tester.mode and e.seed == 4 and e.stop_reason
        assert [t.index for t in e.turns] == list(range(len(e.turns))) and e.turns[0].agent == 'generator'
        assert all(t.agent == 'optimizer' for t in e.turns[1:])
        assert e.final_reward == max(e.rewards) and all(isinstance(t.turn_reward, float) for t in e.turns)
        assert len(e.state.trajectory) == len(e.turns)
        for t in e.turns:
            g = t.generation
            assert g.prompt_ids and len(g.response_ids) == len(g.logprobs) <= 64 and g.agent == t.agent
            assert t.report.reward.mode in ('compile-only', 'full') and t.report.feedback.startswith('Verdict: ')
    path = save_transcripts(tmp_path/'eps.jsonl', eps)
    assert len(path.read_text().splitlines()) == 6
    back = load_transcripts(path)
    assert back == eps
    assert back[0].turns[0].report.compile.verdict in list(Verdict)
    assert back[3].turns[0].messages == generator_messages(get_task('softmax_rows'))


def test_taught_generator_writes_a_compiling_kernel_and_the_optimizer_reads_the_feedback(cache):
    relu = get_task('relu')
    base, tok = build_model('tiny', seed=0)
    am = AgentModels.create(base, tok, full_finetune=True)
    assert teach(am, 'generator', generator_messages(relu), answer(relu.solution)) < 0.01
    with Tester() as tester:
        [ep] = run_episodes([relu], Generator(am, sampling=Sampling(max_new_tokens=260, greedy=True)),
                            Optimizer(am, sampling=Sampling(max_new_tokens=32)), tester, group_size=1, max_turns=3,
                            threshold=1.1, progress=False)   # never stop early: the Optimizer's turns are what is tested
    first = ep.turns[0]
    assert first.generation.text == answer(relu.solution) and first.generation.finish_reason == 'stop'
    assert first.report.verdict in (Verdict.COMPILED, Verdict.CORRECT) and first.report.reward.total > 0
    assert ep.best.index == 0 and ep.final_reward == first.report.reward.total
    prompt = ep.turns[1].messages[1]['content']
    assert answer(relu.solution) in prompt and first.report.feedback in prompt
    if len(ep.turns) == 3 and not ep.turns[1].report.code:       # the Optimizer wrote no code: the kernel is still shown
        assert answer(relu.solution) in ep.turns[2].messages[1]['content']


def test_viewer_renders_loaded_transcripts(tmp_path, cache):
    base, tok = build_model('tiny', seed=1)
    am = AgentModels.create(base, tok)
    samp = Sampling(max_new_tokens=24)
    with Tester(evaluator=False) as tester:
        eps = run_episodes(['vector_add'], Generator(am, sampling=samp), Optimizer(am, sampling=samp), tester,
                           group_size=2, max_turns=2, progress=False)
    back = load_transcripts(save_transcripts(tmp_path/'v.jsonl', eps))
    h = episode_html(back[0])
    assert 'compile-only' in h and 'turn 0' in h and '<script' not in h
    assert group_html(back).count('class="cw-card"') == sum(len(e.turns) for e in back)
    viewer = TranscriptViewer(back)
    assert len(viewer.groups) == 1 and len(viewer.episode_pick.options) == 2
    assert show_episode(back[1]).children


def test_load_agent_models_reads_checkpoints_with_their_own_tokenizer(tmp_path):
    base, tok = build_model('tiny', seed=0)
    lora = AgentModels.create(base, tok)
    lora.save(tmp_path/'lora')
    back = load_agent_models(tmp_path/'lora')
    assert back.mode == 'lora' and back.tokenizer.tokenize('float32 __global__') == tok.tokenize('float32 __global__')
    full = AgentModels.create(build_model('tiny', seed=0)[0], tok, full_finetune=True)
    full.save(tmp_path/'full')
    back = load_agent_models(tmp_path/'full')
    assert back.mode == 'full' and back.tokenizer.tokenize('float32') == tok.tokenize('float32')
    assert load_agent_models('tiny').mode == 'lora'


def _cli(*args, timeout=600):
    env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''), 'OMP_NUM_THREADS': '1'}
    return subprocess.run([sys.executable, '-m', 'cudarl_wb.cli', 'episode', *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def test_cli_episode_as_a_subprocess(tmp_path, cache):
    out = tmp_path/'relu.jsonl'
    p = _cli('--task', 'relu', '--turns', '2', '--group', '2', '--max-new-tokens', '32', '--seed', '3', '--out', str(out))
    assert p.returncode == 0, p.stderr[-3000:]
    eps = load_transcripts(out)
    assert len(eps) == 2 and all(e.seed == 3 for e in eps)
    mode = eps[0].mode
    turn_lines = [l for l in p.stdout.splitlines() if l.startswith(f'[{mode}] relu g0#') and ' turn ' in l]
    assert len(turn_lines) == sum(len(e.turns) for e in eps), p.stdout
    assert f'wrote {out}' in p.stdout and ('compiled, not run' in p.stdout or mode == 'full')
    bad = _cli('--task', 'no_such_task', '--out', str(tmp_path/'x.jsonl'))
    assert bad.returncode == 1 and 'no task' in bad.stderr


@pytest.mark.cuda
def test_episode_full_rewards_on_gpu(tmp_path):
    relu = get_task('relu')
    base, tok = build_model('tiny', seed=0, device='cuda')
    am = AgentModels.create(base, tok, full_finetune=True)
    assert teach(am, 'generator', generator_messages(relu), answer(relu.solution)) < 0.01
    with Tester() as tester:
        assert tester.mode == 'full'
        eps = run_episodes([relu], Generator(am, sampling=Sampling(max_new_tokens=260, greedy=True)),
                           Optimizer(am, sampling=Sampling(max_new_tokens=64)), tester, group_size=2, max_turns=2, progress=False)
    for ep in eps:
        first = ep.turns[0].report
        assert ep.mode == 'full' and first.verdict is Verdict.CORRECT and first.reward.mode == 'full', first.summary
        assert first.bench.kernel_ms > 0 and first.reward.total > 0.4 and ep.final_reward >= first.reward.total
    am.save(tmp_path/'ckpt')
    p = _cli('--task', 'relu', '--model', str(tmp_path/'ckpt'), '--turns', '1', '--greedy', '--max-new-tokens', '260',
             '--out', str(tmp_path/'gpu.jsonl'))
    assert p.returncode == 0, p.stderr[-3000:]
    assert '[full] relu g0#0 turn 0 generator correct' in p.stdout, p.stdout


def test_recorded_transcript_in_the_viewer_and_as_text():
    "The shipped transcript loads, holds real compiler verdicts, and every view prints as text without a widget front end."
    from IPython.core.formatters import PlainTextFormatter
    rec = recorded_episodes()
    assert len(rec) >= 4 and all(e.extra['source'].startswith('recorded') for e in rec)
    assert {'compiled', 'did-not-compile'} <= {t.report.verdict.value for e in rec for t in e.turns}
    viewer = TranscriptViewer(rec + rec[:1])                  # the same episode twice still gets two labels
    labels = [l for _, l, _ in viewer.entries]
    assert len(set(labels)) == len(labels)
    text = PlainTextFormatter()(viewer)
    assert 'group 0: vector_add' in text and 'VBox' not in text and text.count('compile-only: no GPU') == 1
    shown = PlainTextFormatter()(show_episode(rec[0]))
    assert 'Figure' not in shown and shown.startswith(rec[0].label) and 'Tester feedback:' in shown
    bundle = show_episode(rec[0])._repr_mimebundle_()
    assert 'application/vnd.jupyter.widget-view+json' in bundle and bundle['text/plain'] == shown

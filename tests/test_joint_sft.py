"""The joint stage end to end on the tiny model (compile-only without a GPU): a Generator taught to write relu and
an Optimizer taught to repair it sample episodes at temperature 1 through the real Tester; the stage keeps exactly
the turns that raised the reward and fine-tunes each agent on its own."""
import json
from pathlib import Path
import pytest
import torch

from cudarl_wb.agents import Generation, Tester, answer, generator_messages, optimizer_messages
from cudarl_wb.episode import Episode, Turn, load_transcripts, optimizer_case
from cudarl_wb.models import AgentModels, build_model
from cudarl_wb.sft import _copy_agent, joint_agents, joint_table, run_joint, sft_config, tokenize_pairs, train_agent
from cudarl_wb.tasks import get_task

# a short relu kernel (a short answer is learnt in a few dozen steps) and the same with a semicolon missing
RELU = ('#include <cstdint>\n#include <cuda_runtime.h>\n\n'
        '__global__ void relu_kernel(const float* x, float* y, int64_t n) {\n'
        '    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n    if (i < n) y[i] = fmaxf(x[i], 0.f);\n}\n\n'
        'extern "C" void launch(const float* x, float* y, int64_t n, cudaStream_t stream) {\n'
        '    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);\n}\n')
BROKEN = RELU.replace('fmaxf(x[i], 0.f);', 'fmaxf(x[i], 0.f)')


@pytest.fixture(autouse=True)
def _threads():
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def taught_agents(tmp: Path, steps: int = 80) -> AgentModels:
    """Tiny agents taught one task: the Generator writes relu's kernel or the broken one, about half and half; the Optimizer,
    shown the broken one with the Tester's feedback (the prompt an episode builds), writes the right one."""
    relu = get_task('relu')
    am = AgentModels.create(*build_model('tiny', seed=0), full_finetune=True)
    with Tester(evaluator=False) as t: rep = t.test(relu, answer(BROKEN))
    ep = Episode('relu', turns=[Turn(0, 'generator', [], Generation(answer(BROKEN)), rep)])
    ep.state.update(ep.turns[0])
    data = dict(generator=[(generator_messages(relu), answer(RELU)), (generator_messages(relu), answer(BROKEN))],
                optimizer=[(optimizer_messages(**optimizer_case(ep, relu)), answer(RELU))] * 2)
    cfg = sft_config('tiny', warmup_steps=2, eval_every=0, save_every_s=None)
    for agent, n in (('generator', steps), ('optimizer', steps // 2)):
        if agent == 'optimizer': _copy_agent(am, 'generator', 'optimizer')      # as the warm start does: it writes relu already
        train_agent(am, agent, tokenize_pairs(data[agent], am.tokenizer)[0], cfg, tmp/agent, max_steps=n, progress=False, threads=1)
    return am


def test_joint_stage_keeps_the_improving_turns_and_trains_on_them(tmp_path):
    am = taught_agents(tmp_path/'teach')
    before = {a: [p.detach().clone() for p in am.parameters_of(a)] for a in am.agents}
    m = run_joint(models=am, out=tmp_path/'joint', evaluate=False, progress=False, threads=1, eval_tasks=['vector_mul'],
                  sample_tasks=['relu'], group_size=8, max_turns=2, max_new_tokens=160, per_task=3, epochs=1.0,
                  temperature=0.5)     # taught briefly, the tiny agents write their lessons at a lower temperature
    print(joint_table(m))
    eps = load_transcripts(tmp_path/'joint'/'episodes.jsonl')
    kept = [json.loads(l) for l in (tmp_path/'joint'/'kept.jsonl').read_text().splitlines()]
    assert m['tester'] == 'compile-only' and [e.task for e in eps] == ['relu'] * 8      # the tasks asked for, not the held-out ones
    by_turn = {(e.label, t.index): (t, e.turns[t.index - 1] if t.index else None) for e in eps for t in e.turns}
    for k in kept:                                                  # every kept turn raised the reward ...
        t, prev = by_turn[(k['episode'], k['turn'])]
        assert t.agent == k['agent'] and t.generation.text == k['completion'] and t.messages == k['messages']
        assert t.report.compile.ok and (prev is None or (t.report.reward.total > prev.report.reward.total and not prev.report.compile.ok))
    # the rule on a CPU, restated: a first turn that compiles; an Optimizer turn that compiles where the one before did not
    rule = lambda t, prev: t.report.compile.ok and (prev is None or (not prev.report.compile.ok and t.report.reward.total > prev.report.reward.total))
    improving = {key for key, (t, prev) in by_turn.items() if rule(t, prev)}
    assert {(k['episode'], k['turn']) for k in kept} <= improving
    for a in ('generator', 'optimizer'):                            # ... and each agent's count of them is the rule's
        assert m['kept'][a]['improving'] == sum(t.agent == a for key, (t, _) in by_turn.items() if key in improving), m['kept']
    for a in ('generator', 'optimizer'):
        n = sum(k['agent'] == a for k in kept)
        assert 1 <= n <= 3, (a, n, m['kept'])
        assert any(not torch.equal(x, y) for x, y in zip(before[a], am.parameters_of(a))), f'{a} did not change'
        assert m['kept'][a]['kept'] == n and m['train'][a]['examples'] == n
    assert not (tmp_path/'.joint-work').exists()                    # the Trainer's checkpoints are gone
    again = AgentModels.load(tmp_path/'joint')                      # the folder holds the fine-tuned agents
    for a in am.agents:
        with again.use(a) as g: assert all(torch.equal(x, y) for x, y in zip(g.parameters(), am.parameters_of(a)))
    reused = joint_agents(AgentModels.create(*build_model('tiny', seed=1), full_finetune=True), tmp_path/'joint', log=print)
    with reused.use('optimizer') as o:                              # a finished stage is reloaded, not run again
        assert all(torch.equal(x, y) for x, y in zip(o.parameters(), am.parameters_of('optimizer')))

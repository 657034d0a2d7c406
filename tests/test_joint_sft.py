"""The joint stage end to end on the tiny model (compile-only without a GPU): a Generator taught to write relu and
an Optimizer taught to repair it sample episodes at temperature 1 through the real Tester; the stage keeps exactly
the turns that raised the reward and fine-tunes each agent on its own."""
import json
from pathlib import Path
import pytest
import torch

from cudarl_wb.agents import Tester, answer, generator_messages, optimizer_messages, strategies_of
from cudarl_wb.episode import load_transcripts
from cudarl_wb.models import AgentModels, build_model
from cudarl_wb.sft import joint_table, mutate, raised_reward, run_joint, sft_config, tokenize_pairs, train_agent
from cudarl_wb.tasks import get_task

REPAIRS = ('missing_semicolon', 'misspelt_identifier', 'undeclared_variable', 'wrong_launcher')


@pytest.fixture(autouse=True)
def _threads():
    n = torch.get_num_threads(); torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def taught_agents(tmp: Path, steps: int = 60) -> AgentModels:
    "Tiny agents that write relu's kernel (Generator) and rewrite a broken relu kernel as the right one (Optimizer), often enough."
    relu = get_task('relu')
    am = AgentModels.create(*build_model('tiny', seed=0), full_finetune=True)
    bugs = [mutate(relu.solution, m, seed=1) for m in REPAIRS]
    with Tester(evaluator=False) as t: fbs = [r.feedback for r in t.test_many([(relu, answer(b)) for b in bugs])]
    data = dict(generator=[(generator_messages(relu), answer(relu.solution))] * 2,
                optimizer=[(optimizer_messages(relu, b, f, tried=strategies_of(b) or None), answer(relu.solution)) for b, f in zip(bugs, fbs)])
    cfg = sft_config('tiny', warmup_steps=2, eval_every=0, save_every_s=None)
    for agent, pairs in data.items():
        train_agent(am, agent, tokenize_pairs(pairs, am.tokenizer)[0], cfg, tmp/agent, max_steps=steps, progress=False, threads=1)
    return am


def test_joint_stage_keeps_the_improving_turns_and_trains_on_them(tmp_path):
    am = taught_agents(tmp_path/'teach')
    before = {a: [p.detach().clone() for p in am.parameters_of(a)] for a in am.agents}
    m = run_joint(models=am, out=tmp_path/'joint', evaluate=False, progress=False, threads=1, eval_tasks=['relu'],
                  tasks=['relu'], group_size=8, max_turns=2, max_new_tokens=320, per_task=3, epochs=1.0)
    print(joint_table(m))
    eps = load_transcripts(tmp_path/'joint'/'episodes.jsonl')
    kept = [json.loads(l) for l in (tmp_path/'joint'/'kept.jsonl').read_text().splitlines()]
    assert m['tester'] == 'compile-only' and len(eps) == 8
    by_turn = {(e.label, t.index): (t, e.turns[t.index - 1] if t.index else None) for e in eps for t in e.turns}
    for k in kept:                                                  # every kept turn raised the reward ...
        t, prev = by_turn[(k['episode'], k['turn'])]
        assert t.agent == k['agent'] and t.generation.text == k['completion'] and t.messages == k['messages']
        assert t.report.compile.ok and (prev is None or (t.report.reward.total > prev.report.reward.total and not prev.report.compile.ok))
    improving = {key for key, (t, prev) in by_turn.items() if raised_reward(t, prev, 'compile-only')}
    assert {(k['episode'], k['turn']) for k in kept} <= improving   # ... and every distinct improving kernel is kept, up to the cap
    for a in ('generator', 'optimizer'):
        n = sum(k['agent'] == a for k in kept)
        assert 1 <= n <= 3, (a, n, m['kept'])
        assert m['kept'][a]['kept'] == n and m['train'][a]['examples'] == n
        assert any(not torch.equal(x, y) for x, y in zip(before[a], am.parameters_of(a))), f'{a} did not change'
    again = AgentModels.load(tmp_path/'joint')                      # the folder holds the fine-tuned agents
    for a in am.agents:
        with again.use(a) as g: assert all(torch.equal(x, y) for x, y in zip(g.parameters(), am.parameters_of(a)))

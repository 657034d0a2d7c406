"The pipelined step against the serial one, and training on converted KernelBench problems (`14_trainer`)."
import hashlib, json, time
from pathlib import Path

import pytest
import torch

from cudarl_wb.agents import Generation, Tester
from cudarl_wb.episode import run_episodes
from cudarl_wb.tasks import load_solution, get_task
from cudarl_wb.trainer import GRPOConfig, GRPOTrainer, Pipeline, training_tasks

cuda = pytest.mark.cuda


class RuleAgent:
    "Answers by rule whatever the batch: the same prompt and member always get the same answer; `pause` seconds per call."
    def __init__(self, name, pause=0.0): self.name, self.pause = name, pause
    def messages(self, task, **kw): return [{'role': 'user', 'content': f"{task.name}|{kw.get('kernel', '')[:40]}|{len(kw.get('tried', []))}"}]
    def generate(self, prompts, n=1, seed=None):
        time.sleep(self.pause)
        return [[self.answer(p[0]['content'], j) for j in range(n)] for p in prompts]
    def answer(self, prompt, j):
        task, pick = prompt.split('|')[0], int(hashlib.sha256(f'{prompt}{j}'.encode()).hexdigest(), 16) % 3
        text = ('```cuda\n' + load_solution(task) + '\n```', '```cuda\n__global__ void k(float* y) { y[0] = ; }\n```', 'No code.')[pick]
        return Generation(text, agent=self.name)


def turns(eps, reward=True):
    return [(ep.task, ep.member, t.index, t.agent, str(t.report.verdict)) + ((t.report.reward.total, t.turn_reward) if reward else ())
            for ep in eps for t in ep.turns]


TASKS = ['relu', 'vector_add', 'relu', 'sigmoid']


def both_ways(tester, quiet=False, pause=0.0):
    agents = RuleAgent('generator', pause), RuleAgent('optimizer', pause)
    serial = run_episodes(TASKS, *agents, tester, group_size=3, max_turns=3, progress=False)
    with Pipeline(tester, quiet_card=quiet) as pipe: piped = pipe.run(TASKS, *agents, group_size=3, max_turns=3)
    return serial, piped, pipe


def test_pipelined_rewards_equal_the_serial_ones():
    with Tester(time_it=False) as judge: serial, piped, _ = both_ways(judge)
    assert turns(piped) == turns(serial)
    verdicts = {t[4] for t in turns(piped)}
    not_built = {'no-code', 'rejected-by-static-check', 'did-not-compile'}
    assert verdicts - not_built and len(verdicts & not_built) >= 2, verdicts   # answers that build ('compiled' on a CPU, run on a GPU), and two ways of not building
    assert any(t[2] > 0 for t in turns(piped))                                 # the Optimizer played


def test_judging_hides_under_generation():
    with Tester(time_it=False) as judge: _, piped, pipe = both_ways(judge, pause=0.3)
    assert 0 < pipe.hidden_s <= sum(e - s for s, e in pipe.judging), pipe.hidden_s
    assert sum(t.seconds['generate'] for ep in piped for t in ep.turns) == pytest.approx(sum(e - s for s, e in pipe.generating))


@pytest.fixture(scope='module')
def kernelbench(tmp_path_factory):
    "Three small problem files in KernelBench's format: an elementwise op and a row reduction (problems 5 and 40: the rl split), a matmul (2: test)."
    d = tmp_path_factory.mktemp('kb')/'level1'; d.mkdir()
    body = ("import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
            "    def forward(self, {args}):\n        return {expr}\n\ndef get_inputs():\n    return [{inputs}]\n\n"
            "def get_init_inputs():\n    return []\n")
    (d/'5_Square.py').write_text(body.format(args='x', expr='x * x', inputs='torch.rand(64, 256)'))
    (d/'40_RowSum.py').write_text(body.format(args='x', expr='x.sum(dim=1)', inputs='torch.rand(64, 256)'))
    (d/'2_Matmul.py').write_text(body.format(args='a, b', expr='a @ b', inputs='torch.rand(64, 32), torch.rand(32, 48)'))
    return d.parent


def test_train_on_kernelbench_problems_holds_one_out(kernelbench, tmp_path, capsys):
    cfg = GRPOConfig(tasks=f'kernelbench:{kernelbench}:1', output_dir=str(tmp_path/'rl'), sft_budget_s=0, num_episodes=2,
                     batch_size=1, group_size=2, max_turns=1, max_new_tokens=16, val_tasks=1, test_tasks=1)
    pool, fixed = training_tasks(cfg)
    held = [t for t in fixed if t.extra['problem'] == 'kernelbench:1:2']
    assert (len(pool), len(fixed), len(held)) == (2, 3, 1)
    trainer = GRPOTrainer(cfg, device='cpu')
    out = capsys.readouterr().out
    assert 'training on 2 tasks (2 kernelbench)' in out and 'reporting on 1 test tasks (1 kernelbench)' in out and 'no composition or problem in two' in out
    assert trainer.test_set == [held[0].name] and not set(trainer.test_set + trainer.val_set) & {t.name for t in pool}
    tiers = trainer.curriculum.tasks_by_tier
    assert all(t.name in tiers[t.tier] for t in pool)                           # each at its own tier
    assert len({t.tier for t in pool + held}) >= 2
    final = trainer.fit(progress=False)
    assert final['steps'][0]['tasks'][0] in {t.name for t in pool}
    evaluated = {json.loads(l)['task'] for l in (tmp_path/'rl'/'evals'/'test_start_00000.jsonl').read_text().splitlines()}
    assert held[0].name in evaluated                                             # the test problem was evaluated


@cuda
def test_pipelined_verdicts_equal_the_serial_ones_with_timings_in_the_window():
    with Tester() as judge: serial, piped, pipe = both_ways(judge, quiet=True, pause=0.2)
    assert turns(piped, reward=False) == turns(serial, reward=False)
    correct = [t.report.bench for ep in piped for t in ep.turns if t.report.verdict.correct]
    assert correct and all(b.speedup_eager for b in correct)                   # timed, in the window
    assert pipe.hidden_s > 0


@cuda
def test_a_gpu_step_reports_memory_beside_the_plan(tmp_path):
    from cudarl_wb.gpu_planner import plan_training
    cfg = GRPOConfig(output_dir=str(tmp_path/'rl'), sft_budget_s=0, num_episodes=4, batch_size=2, group_size=2, max_turns=1,
                     max_new_tokens=64, val_tasks=1, test_tasks=1, procedural=20)
    trainer = GRPOTrainer(cfg, device='cuda')
    trainer.plan = plan_training('tiny', rollout_batch=2, group_size=2, seq_len=1024 + 64, lora=False)
    m = trainer.train_step()
    trainer.tester.close()
    for phase in ('rollout', 'train'):
        assert m[f'memory/{phase}_measured_gib'] > 0 and m[f'memory/{phase}_ratio'] > 0
    assert m['judging_hidden_s'] >= 0 and 0 <= m['judging_share'] <= 1


def test_the_first_turn_samples_what_the_serial_step_samples():
    from cudarl_wb.agents import Generator, Optimizer, Sampling
    from cudarl_wb.models import AgentModels, build_model
    models = AgentModels.create(*build_model('tiny', seed=0), full_finetune=True)
    sampling = Sampling(temperature=1.0, max_new_tokens=12)
    agents = Generator(models, sampling=sampling), Optimizer(models, sampling=sampling)
    with Tester(time_it=False) as judge:
        serial = run_episodes(['relu', 'sigmoid'], *agents, judge, group_size=2, max_turns=2, progress=False, seed=5)
        with Pipeline(judge) as pipe: piped = pipe.run(['relu', 'sigmoid'], *agents, group_size=2, max_turns=2, seed=5)
    first = lambda eps: [ep.turns[0].generation.response_ids for ep in eps]
    assert first(piped) == first(serial) and len(set(map(tuple, first(serial)))) > 1


@cuda
def test_steps_in_a_row_begin_the_next_ones_first_turn(tmp_path):
    cfg = GRPOConfig(output_dir=str(tmp_path/'rl'), sft_budget_s=0, num_episodes=12, batch_size=2, group_size=2, max_turns=2,
                     max_new_tokens=64, val_tasks=1, test_tasks=1, procedural=20)
    trainer = GRPOTrainer(cfg, device='cuda')
    ms, drawn = [], []
    for _ in range(cfg.steps):
        ms.append(trainer.train_step())
        drawn.append(list(trainer.ahead['tasks']) if trainer.ahead else None)
    trainer.tester.close()
    assert [m['prefetched'] for m in ms] == [False, True, True]
    assert drawn[2] is None and trainer.ahead is None                          # the last step begins nothing
    assert [list(m['tasks']) for m in ms[1:]] == drawn[:2]                 # each step played what the one before drew
    for m in ms:
        assert 0 <= m['judging_share'] <= 1 and m['generating_s'] > 0
    trainer.drop_ahead()
    assert trainer.build_pool is None

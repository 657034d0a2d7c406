"The verl backend against the real verl 0.9.1 (the `verl` extra): data, reward, configuration, the agent loop on the tiny model."
import asyncio, threading, warnings
import pytest
from cudarl_wb.verl_backend import (AGENT_NAME, DATA_SOURCE, compute_score, fold_credit, train_batch, verl_row,
                                    write_parquet, curriculum_splits)
from cudarl_wb.tasks import get_task

needs_verl = pytest.mark.skipif(not __import__('importlib').util.find_spec('verl'),
                                reason='needs verl: pip install "cudarl-wb[verl]" (verl pins transformers <5.11)')


def in_own_loop(coro):
    out = {}
    th = threading.Thread(target=lambda: out.update(v=asyncio.run(coro))); th.start(); th.join()
    return out['v']


def test_rows_and_splits_without_verl():
    train, val = curriculum_splits(procedural=4, val_tasks=2)
    assert not {t.name for t in train} & {t.name for t in val}
    r = verl_row(val[0], 'val', 0)
    assert r['reward_model']['ground_truth'] == val[0].name and r['agent_name'] == AGENT_NAME
    assert train_batch(2, 8, 7) == 7 and train_batch(2, 8, 1) == 2
    assert fold_credit([0.2, 0.6]) > fold_credit([0.6, 0.2])


@pytest.fixture(scope='module')
def data(tmp_path_factory):
    return write_parquet(tmp_path_factory.mktemp('verl')/'data', procedural=4, val_tasks=2)


@needs_verl
def test_rlhf_dataset_reads_our_parquet(data, tmp_path):
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset
    from cudarl_wb.models import load_tokenizer
    ds = RLHFDataset(str(data['train']), load_tokenizer(), OmegaConf.create(dict(max_prompt_length=1024, cache_dir=str(tmp_path))))
    train, _ = curriculum_splits(procedural=4, val_tasks=2)
    assert len(ds) == len(train)
    row = ds[len(ds) - 1]
    assert row['raw_prompt'][-1]['role'] == 'user' and row['agent_name'] == AGENT_NAME
    assert row['reward_model']['ground_truth'] == train[-1].name and row['extra_info']['split'] == 'train'


@needs_verl
def test_naive_reward_manager_calls_our_reward():
    from verl.trainer.ppo.reward import load_reward_manager
    from cudarl_wb.models import load_tokenizer
    from cudarl_wb.verl_backend import compose_ppo, reward_overrides, answers_batch
    tok, t = load_tokenizer(), get_task('relu')
    cfg = compose_ppo(reward_overrides('ours') + ['actor_rollout_ref.model.path=unused'])
    batch = answers_batch(tok, [verl_row(t, 'train', 0)] * 2, [f'```cuda\n{t.solution}\n```', 'nothing'])

    async def judge():
        rm = load_reward_manager(cfg, tok)
        return [await rm.run_single(batch[i:i + 1]) for i in range(2)]
    good, bad = in_own_loop(judge())
    direct = compute_score(DATA_SOURCE, f'```cuda\n{t.solution}\n```', 'relu')
    assert good['reward_score'] == pytest.approx(direct['score']) and good['reward_score'] > bad['reward_score']
    assert good['reward_extra_info']['compiled'] == 1.0 and bad['reward_extra_info']['compiled'] == 0.0


@needs_verl
@pytest.mark.parametrize('gpus,cards', [('1xH100-80GB', 1), ('2xH100-80GB', 1), ('4xH100-80GB', 3),
                                        ('8xH100-80GB', 7), ('2x8xH100-80GB', 14)])
def test_planner_overrides_compose_and_validate(data, tmp_path, gpus, cards):
    from cudarl_wb.gpu_planner import plan_training
    from cudarl_wb.trainer import GRPOConfig
    from cudarl_wb.verl_backend import verl_overrides, compose_ppo, check_config, agent_loop_yaml
    warnings.filterwarnings('ignore', message='Disabled critic')
    model = 'Qwen/Qwen2.5-Coder-1.5B-Instruct'
    plan = plan_training(model, gpus, lora=False, rollout_batch=2, group_size=8, seq_len=2304)
    cfg = compose_ppo(verl_overrides(plan, GRPOConfig(batch_size=2, group_size=8, beta=0.02), model, data, agent_loop_yaml(tmp_path/'l.yaml')))
    got = check_config(cfg)
    assert got['gpus'] == cards and got['answers_per_step'] % cards == 0 and got['reference']     # beta 0.02: a KL anchor
    assert cfg.algorithm.adv_estimator == 'grpo' and cfg.actor_rollout_ref.rollout.tensor_model_parallel_size == 1
    assert cfg.actor_rollout_ref.rollout.agent.default_agent_loop == AGENT_NAME
    assert cfg.data.max_response_length == 2 * 640 + 512


@needs_verl
def test_two_agent_loop_through_verls_agent_loop_worker(data, tmp_path):
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from cudarl_wb.models import build_model
    from cudarl_wb.verl_backend import compose_ppo, agent_loop_yaml, save_for_verl, LocalServer, episodes_of
    from cudarl_wb.episode import save_transcripts, load_transcripts
    model, tok = build_model('tiny', seed=1)
    mdir, tdir = save_for_verl(model, tok, tmp_path/'tiny')
    y = agent_loop_yaml(tmp_path/'loop.yaml', max_turns=3, max_new_tokens=16)
    cfg = compose_ppo([f'actor_rollout_ref.model.path={mdir}', f'actor_rollout_ref.model.tokenizer_path={tdir}',
                       'actor_rollout_ref.rollout.name=vllm', 'actor_rollout_ref.rollout.tensor_model_parallel_size=1',
                       'data.max_prompt_length=512', 'data.max_response_length=1024',
                       f'actor_rollout_ref.rollout.agent.agent_loop_config_path={y}'])
    ds = RLHFDataset(str(data['val']), tok, OmegaConf.create(dict(max_prompt_length=512, cache_dir=str(tmp_path/'c'))))
    batch = DataProto.from_single_dict(collate_fn([ds[i] for i in range(len(ds))]))
    server = LocalServer(model.eval(), tok, seed=5)

    async def play(): return await AgentLoopWorker(cfg, server).generate_sequences(batch)
    out = in_own_loop(play())
    assert len(out) == 2 and server.calls >= 2
    for i in range(len(out)):
        n = int(out.batch['attention_mask'][i, 512:].sum())
        mask, lp = out.batch['response_mask'][i, :n], out.batch['rollout_log_probs'][i, :n]
        turns = len(out.non_tensor_batch['turn_scores'][i])
        assert 1 <= turns <= 3 and int(mask.sum()) <= 16 * turns
        assert (lp[mask == 1] < 0).all() and (lp[mask == 0] == 0).all()
        assert (mask == 0).any() == (turns > 1)          # feedback between turns, masked out
        assert out.batch['rm_scores'][i, n - 1] == pytest.approx(fold_credit(list(out.non_tensor_batch['turn_scores'][i])))
    eps = episodes_of(out)
    assert [e.task for e in eps] == [ds[i]['reward_model']['ground_truth'] for i in range(len(ds))]
    for e, scores in zip(eps, out.non_tensor_batch['turn_scores']):
        assert [t.report.reward.total for t in e.turns] == pytest.approx(list(scores))
        assert e.turns[0].agent == 'generator' and all(t.agent == 'optimizer' for t in e.turns[1:])
        assert all(t.turn_reward is not None for t in e.turns) and e.stop_reason in ('max-turns', 'same-kernel', 'threshold', 'length')
    assert len(load_transcripts(save_transcripts(tmp_path/'t.jsonl', eps))) == len(eps)


@needs_verl
def test_main_ppo_parses_the_prepared_overrides(tmp_path):
    import subprocess, yaml
    from cudarl_wb.gpu_planner import plan_training
    from cudarl_wb.trainer import GRPOConfig
    from cudarl_wb.verl_backend import prepare_run, main_ppo_command
    model = 'Qwen/Qwen2.5-Coder-1.5B-Instruct'
    run = GRPOConfig(batch_size=3, group_size=4, max_turns=3, procedural=4, val_tasks=2, beta=0.0, output_dir=str(tmp_path/'run'))
    ov = prepare_run(run, plan_training(model, '4xH100-80GB', lora=False, rollout_batch=3, group_size=4, seq_len=4096), model)
    p = subprocess.run(main_ppo_command(ov) + ['--cfg', 'job'], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    job = yaml.safe_load(p.stdout)
    assert job['trainer']['n_gpus_per_node'] == 3 and job['data']['train_batch_size'] == 3
    assert job['actor_rollout_ref']['actor']['use_kl_loss'] is False
    assert job['data']['train_files'].endswith('train.parquet') and (tmp_path/'run'/'verl_inputs'/'agent_loop.yaml').exists()
    loop = yaml.safe_load((tmp_path/'run'/'verl_inputs'/'agent_loop.yaml').read_text())[0]
    assert (loop['max_turns'], loop['name']) == (3, job['actor_rollout_ref']['rollout']['agent']['default_agent_loop'])


@needs_verl
def test_agent_loop_manager_under_local_ray(data, tmp_path):
    "verl's whole agent-loop chain: AgentLoopManager, Ray AgentLoopWorkers, our loop, a Ray server actor with the tiny model."
    import ray
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
    from verl.experimental.agent_loop.agent_loop import AgentLoopManager
    from cudarl_wb.models import build_model
    from cudarl_wb.verl_backend import compose_ppo, agent_loop_yaml, save_for_verl, ServerActor, ActorClient, episodes_of
    model, tok = build_model('tiny', seed=2)
    mdir, tdir = save_for_verl(model, tok, tmp_path/'tiny')
    y = agent_loop_yaml(tmp_path/'loop.yaml', max_turns=2, max_new_tokens=12)
    cfg = compose_ppo([f'actor_rollout_ref.model.path={mdir}', f'actor_rollout_ref.model.tokenizer_path={tdir}',
                       'actor_rollout_ref.rollout.name=vllm', 'actor_rollout_ref.rollout.tensor_model_parallel_size=1',
                       'data.max_prompt_length=512', 'data.max_response_length=512', 'actor_rollout_ref.rollout.agent.num_workers=2',
                       f'actor_rollout_ref.rollout.agent.agent_loop_config_path={y}'])
    ds = RLHFDataset(str(data['val']), tok, OmegaConf.create(dict(max_prompt_length=512, cache_dir=str(tmp_path/'c'))))
    batch = DataProto.from_single_dict(collate_fn([ds[i] for i in range(len(ds))]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        actor = ray.remote(ServerActor).remote(str(mdir), str(tdir))
        out = AgentLoopManager.create(cfg, ActorClient(actor)).generate_sequences(batch)
        calls = ray.get(actor.calls.remote())
    finally: ray.shutdown()
    eps = episodes_of(out)
    assert calls == sum(len(e.turns) for e in eps) and len(eps) == len(ds)
    for i, e in enumerate(eps):
        n = int(out.batch['attention_mask'][i, 512:].sum())
        mask = out.batch['response_mask'][i, :n]
        assert int(mask.sum()) == sum(len(t.generation.response_ids) for t in e.turns)
        assert out.batch['rm_scores'][i, n - 1] == pytest.approx(fold_credit([t.report.reward for t in e.turns]))


@needs_verl
def test_plugin_registers_our_rollout_and_fails_loudly(monkeypatch):
    import verl
    from verl.workers.rollout.base import get_rollout_class
    from verl.workers.rollout.replica import get_rollout_replica_class
    from cudarl_wb.verl_backend import check_plugin, RolloutAdapter, ROLLOUT_NAME
    assert check_plugin() == ROLLOUT_NAME
    assert get_rollout_class(ROLLOUT_NAME, 'async') is RolloutAdapter
    assert get_rollout_replica_class(ROLLOUT_NAME).__name__ == 'RolloutReplicaOfOurs'
    monkeypatch.setenv('VERL_USE_EXTERNAL_PLUGINS', 'none')
    with pytest.raises(RuntimeError, match='VERL_USE_EXTERNAL_PLUGINS'): check_plugin()
    monkeypatch.setenv('VERL_USE_EXTERNAL_MODULES', 'cudarl_wb.verl_backend')      # verl's other route: a module list
    assert check_plugin() == ROLLOUT_NAME


@needs_verl
def test_our_rollout_plugin_through_verls_chain_and_weight_sync(data, tmp_path):
    "verl's LLMServerManager starts our replica and server; AgentLoopManager plays our loop on it; the adapter syncs new weights."
    import json, ray, torch
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
    from verl.experimental.agent_loop.agent_loop import AgentLoopManager
    from verl.workers.rollout.llm_server import LLMServerManager
    from cudarl_wb.agents import encode_prompt, generator_messages
    from cudarl_wb.episode import load_transcripts
    from cudarl_wb.models import build_model
    from cudarl_wb.verl_backend import compose_ppo, agent_loop_yaml, save_for_verl, episodes_of, recomputed_logprobs
    from cudarl_wb.verl_backend import RolloutAdapter
    model, tok = build_model('tiny', seed=3)
    mdir, tdir = save_for_verl(model, tok, tmp_path/'tiny')
    y = agent_loop_yaml(tmp_path/'loop.yaml', max_turns=2, max_new_tokens=10, transcripts=tmp_path/'run'/'transcripts.jsonl')
    cfg = compose_ppo([f'actor_rollout_ref.model.path={mdir}', f'actor_rollout_ref.model.tokenizer_path={tdir}',
                       'actor_rollout_ref.rollout.name=cudarl', 'actor_rollout_ref.rollout.tensor_model_parallel_size=1',
                       'actor_rollout_ref.rollout.nnodes=1', 'actor_rollout_ref.rollout.n_gpus_per_node=1',
                       'data.max_prompt_length=512', 'data.max_response_length=512', 'actor_rollout_ref.rollout.agent.num_workers=2',
                       f'actor_rollout_ref.rollout.agent.agent_loop_config_path={y}'])
    ds = RLHFDataset(str(data['val']), tok, OmegaConf.create(dict(max_prompt_length=512, cache_dir=str(tmp_path/'c'))))
    batch = DataProto.from_single_dict(collate_fn([ds[i] for i in range(len(ds))]))
    other, _ = build_model('tiny', seed=8)
    prompt = encode_prompt(tok, generator_messages(get_task('relu')))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        servers = LLMServerManager.create(cfg)
        out = AgentLoopManager.create(cfg, servers.get_client()).generate_sequences(batch)
        server = servers.get_replicas()[0].server_handle
        before = ray.get(server.info.remote())
        adapter = RolloutAdapter(cfg.actor_rollout_ref.rollout, cfg.actor_rollout_ref.model)
        version = in_own_loop(adapter.update_weights(iter(other.state_dict().items())))
        in_own_loop(adapter.release()); in_own_loop(adapter.resume(['weights']))
        reply = ray.get(server.generate.remote(prompt_ids=prompt, sampling_params=dict(temperature=1.0, max_tokens=8)))
    finally: ray.shutdown()
    eps, tol = episodes_of(out), (0.1 if torch.cuda.is_available() else 1e-3)     # a GPU server samples in bfloat16
    assert before['calls'] == sum(len(e.turns) for e in eps) and len(eps) == len(ds)
    for i, e in enumerate(eps):
        n = int(out.batch['attention_mask'][i, 512:].sum())
        mask = out.batch['response_mask'][i, :n]
        lens = [len(t.generation.response_ids) for t in e.turns]
        assert mask[:lens[0]].eq(1).all() and int(mask.sum()) == sum(lens)          # agent tokens 1
        if len(lens) > 1: assert mask[lens[0]] == 0 and mask[n - lens[-1]:].eq(1).all()   # then the feedback 0, then the Optimizer
        mine, model_says = recomputed_logprobs(model.eval(), out, i)
        assert torch.allclose(mine, model_says, atol=tol), (mine - model_says).abs().max()
        assert out.batch['rm_scores'][i, n - 1] == pytest.approx(fold_credit([t.report.reward for t in e.turns]))
    written = load_transcripts(tmp_path/'run'/'evals'/'verl_val.jsonl')
    assert sorted(x.task for x in written) == sorted(e.task for e in eps)
    assert version == before['weight_version'] + 1
    with torch.no_grad(): logits = other.eval()(input_ids=torch.tensor([prompt + reply.token_ids])).logits[0]
    theirs = logits[len(prompt) - 1:-1].log_softmax(-1).gather(-1, torch.tensor(reply.token_ids)[:, None])[:, 0]
    assert torch.allclose(torch.tensor(reply.log_probs), theirs, atol=tol)

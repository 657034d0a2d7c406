"A GRPO step on the real tiny model: what `step_reach` measures, `target_kl` bounding how far the step goes, and the weights of its two sides."
import math, random
import torch
from cudarl_wb.grpo import Sample, StepConfig, grpo_step
from cudarl_wb.models import AgentModels, build_model


def _step(**kw):
    torch.manual_seed(0); torch.set_num_threads(1); random.seed(0)
    base, tok = build_model('tiny', seed=0)
    am = AgentModels.create(base, tok, full_finetune=True)
    prompt = tok('Write relu.')['input_ids']
    answers = ['__global__ void k(float* y) { y[0] = 1; }', 'int x;', 'float y = 2;', 'return 0;']
    ss = [Sample('generator', prompt, tok(a)['input_ids'] + [tok.eos_token_id or 2], float(i == 0), 0) for i, a in enumerate(answers)]
    opts = {'generator': torch.optim.AdamW(am.parameters_of('generator'), lr=1e-5)}
    return grpo_step(am, opts, ss, StepConfig(temperature=1.0, **kw), tok.pad_token_id)


def test_a_step_raises_the_rewarded_answer_and_target_kl_bounds_it():
    free, bounded = _step(epochs=6), _step(epochs=6, target_kl=0.02)
    assert free['generator/epochs'] == 6 and free['generator/reach_kl'] > 0.02
    assert free['generator/reach_up'] > 0 > free['generator/reach_down']
    assert 2 <= bounded['generator/epochs'] < 6, bounded
    assert 0.02 < bounded['generator/reach_kl'] < free['generator/reach_kl']   # stopped at the first pass past the target
    assert 'generator/reach_kl' not in _step(reach=False)


def test_the_weights_of_each_side_change_what_the_step_moves():
    plain, soft_neg, no_pos = _step(epochs=3), _step(epochs=3, negative_weight=0.1), _step(epochs=3, positive_weight=0.0)
    assert soft_neg['generator/reach_down'] > plain['generator/reach_down']   # the penalised answers lose less
    assert no_pos['generator/trained_turns'] == 3 and math.isnan(no_pos['generator/reach_up'])   # nothing rewarded left
    assert no_pos['generator/reach_down'] < 0

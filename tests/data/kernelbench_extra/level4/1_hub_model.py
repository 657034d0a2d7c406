import torch
import torch.nn as nn
from transformers import AutoConfig, AutoModelForCausalLM

model_name = "cudarl-test/no-such-model"
config = AutoConfig.from_pretrained(model_name)

class Model(nn.Module):
    def __init__(self, model_name, config):
        super().__init__()
        self.model = AutoModelForCausalLM.from_pretrained(model_name, config=config)

    def forward(self, x):
        return self.model(x).logits

batch_size = 2
sequence_length = 16

def get_inputs():
    return [torch.randint(0, 100, (batch_size, sequence_length))]

def get_init_inputs():
    return [model_name, config]

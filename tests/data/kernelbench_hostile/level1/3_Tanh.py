import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Simple model that performs a Tanh activation: after a hang and a crash, the restarted worker still converts this.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)

batch_size = 16
dim = 16384

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []

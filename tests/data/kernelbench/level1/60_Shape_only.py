import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Returns the shape of its input: not a tensor, so there is nothing for a kernel to write.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        return x.shape

batch_size = 16
dim = 64

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []

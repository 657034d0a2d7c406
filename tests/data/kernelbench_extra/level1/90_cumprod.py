import torch
import torch.nn as nn

class Model(nn.Module):
    """
    A cumulative product along a dimension.
    """
    def __init__(self, dim):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumprod(x, dim=self.dim)

batch_size = 16
input_shape = (2048,)
dim = 1

def get_inputs():
    return [torch.randn(batch_size, *input_shape)]

def get_init_inputs():
    return [dim]

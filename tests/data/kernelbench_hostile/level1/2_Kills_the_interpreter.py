import os
import torch
import torch.nn as nn

class Model(nn.Module):
    """
    A constructor that ends the process, as a segfaulting extension would.
    """
    def __init__(self):
        super(Model, self).__init__()
        os._exit(3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x

def get_inputs():
    return [torch.randn(16, 64)]

def get_init_inputs():
    return []

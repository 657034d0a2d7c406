import torch
import torch.nn as nn

class Model(nn.Module):
    """
    A Linear layer with 2**48 weights: too large to check on a CPU, even with its sizes divided by 64.
    """
    def __init__(self, in_features: int, out_features: int):
        super(Model, self).__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)

batch_size = 8
in_features = 1 << 24
out_features = 1 << 24

def get_inputs():
    return [torch.randn(batch_size, in_features)]

def get_init_inputs():
    return [in_features, out_features]

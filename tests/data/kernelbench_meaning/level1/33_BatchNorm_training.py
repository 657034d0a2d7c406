import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Batch normalisation in training mode: the output uses the batch's statistics, not the running ones.
    """
    def __init__(self, num_features: int):
        super(Model, self).__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x):
        return self.bn(x)

batch_size = 16
features = 8
dim1 = 32
dim2 = 32

def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]

def get_init_inputs():
    return [features]

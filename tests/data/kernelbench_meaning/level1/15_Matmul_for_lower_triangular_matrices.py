import torch
import torch.nn as nn

class Model(nn.Module):
    """
    C = tril(A * B) for two lower triangular matrices A and B.
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        return torch.tril(torch.matmul(A, B))

M = 64

def get_inputs():
    A = torch.tril(torch.rand(M, M))
    B = torch.tril(torch.rand(M, M))
    return [A, B]

def get_init_inputs():
    return []

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    """
    Single-head causal self-attention whose mask is a buffer built by the constructor.
    """
    def __init__(self, n_embd, max_seqlen):
        super().__init__()
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.register_buffer("bias", torch.tril(torch.ones(max_seqlen, max_seqlen)).view(1, max_seqlen, max_seqlen))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        att = (q @ k.transpose(-2, -1)) / C ** 0.5
        att = att.masked_fill(self.bias[:, :T, :T] == 0, float('-inf'))
        return F.softmax(att, dim=-1) @ v

batch_size = 4
seq_len = 16
n_embd = 32
max_seqlen = 16

def get_inputs():
    return [torch.randn(batch_size, seq_len, n_embd)]

def get_init_inputs():
    return [n_embd, max_seqlen]

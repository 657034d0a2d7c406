import torch
import torch.nn as nn

class Model(nn.Module):
    """
    A 3D convolution whose input channels and kernel size are both 3, then a scale.
    """
    def __init__(self, in_channels, out_channels, kernel_size, scale):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.scale = scale

    def forward(self, x):
        return self.conv(x) * self.scale

batch_size = 4
in_channels = 3
out_channels = 8
depth, height, width = 6, 10, 10
kernel_size = 3
scale = 0.5

def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]

def get_init_inputs():
    return [in_channels, out_channels, kernel_size, scale]

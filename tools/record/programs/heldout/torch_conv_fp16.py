# torch_conv_fp16: inference of a small convolutional network in fp16 with cuDNN (benchmark mode picks the
# convolution algorithms), channels-last, two batches.
import torch
import torch.nn as nn

torch.backends.cudnn.benchmark = True
net = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
).cuda().half().eval().to(memory_format=torch.channels_last)
x = torch.randn(8, 3, 64, 64, device="cuda").half().to(memory_format=torch.channels_last)
with torch.inference_mode():
    for _ in range(2):
        y = net(x)
torch.cuda.synchronize()
print("cudnn", torch.backends.cudnn.version(), "out", tuple(y.shape), y.dtype, bool(torch.isfinite(y).all()))

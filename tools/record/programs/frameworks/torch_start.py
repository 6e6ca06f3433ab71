# torch_start: PyTorch start-up alone: the CUDA context and one tiny tensor on the GPU.
import torch

t = torch.zeros(1, device="cuda")
torch.cuda.synchronize()
print("torch", torch.__version__, torch.cuda.get_device_name(0), t.item())

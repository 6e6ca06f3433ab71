# torch_step: PyTorch start-up on the GPU and one small training step (MLP, SGD), as a framework
# test does; prints what the step computed so the recording can be matched to a run that worked.
import torch

dev = torch.device("cuda")
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(64, 256, device=dev)
y = torch.randint(0, 10, (64,), device=dev)
for step in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print("step", step, "loss", round(loss.item(), 4))
print("memory allocated", torch.cuda.memory_allocated())

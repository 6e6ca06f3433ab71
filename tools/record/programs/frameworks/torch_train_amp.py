# torch_train_amp: five training steps of a small transformer encoder with AdamW under bf16 autocast.
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
m = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=2), torch.nn.Linear(128, 10)).cuda()
opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
x = torch.randn(16, 32, 128, device="cuda")
y = torch.randint(0, 10, (16, 32), device="cuda")
for step in range(5):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(m(x).reshape(-1, 10), y.reshape(-1))
    loss.backward()
    opt.step()
    print("step", step, "loss", round(loss.item(), 4))

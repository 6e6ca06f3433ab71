# nccl_allreduce: one process per GPU (torchrun-style, spawned here), an all-reduce of 1 Mi floats through NCCL.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run(rank, world):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    t = torch.full((1 << 20,), float(rank + 1), device="cuda")
    dist.all_reduce(t)
    torch.cuda.synchronize()
    print("rank", rank, "value", t[0].item())
    dist.destroy_process_group()


if __name__ == "__main__":
    w = torch.cuda.device_count()
    mp.spawn(run, args=(w,), nprocs=w)

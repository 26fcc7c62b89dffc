#!/usr/bin/env python3
"""peer-collectives.py - the same collectives through PyTorch's NCCL path,
as a peer measurement for f8bench ceilings / allgather in the same job.

    torchrun --nproc_per_node N scripts/peer-collectives.py [--sizes 1M:1G] [--iters 20]

Prints one line per (op, size): the per-call time of `iters` back-to-back
calls timed with CUDA events after a barrier and warm-up, and the bus
bandwidth by nccl-tests' definitions (all-gather: algbw * (R-1)/R over the
gathered bytes; all-reduce: algbw * 2(R-1)/R), the slowest rank's time.
"""
import argparse
import os

import torch
import torch.distributed as dist


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def sizes_of(spec):
    lo, hi = (parse_size(x) for x in spec.split(":"))
    while lo <= hi:
        yield lo
        lo *= 4


def timed(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    dist.barrier()
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    t = torch.tensor([start.elapsed_time(end) / 1e3 / iters], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1M:1G", help="total bytes gathered / reduced, MIN:MAX x4")
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    if rank == 0:
        print(f"# torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, {world} ranks")
    for size in sizes_of(a.sizes):
        n = size // 4
        out = torch.empty(n, dtype=torch.int32, device="cuda")
        inp = torch.ones(n // world, dtype=torch.int32, device="cuda")
        t = timed(lambda: dist.all_gather_into_tensor(out, inp), a.iters)
        if rank == 0:
            bus = size / t * (world - 1) / world / 1e9
            print(f"allgather {size} B: {t * 1e6:.1f} us, busbw {bus:.1f} GB/s")
        t = timed(lambda: dist.all_reduce(out), a.iters)
        if rank == 0:
            bus = size / t * 2 * (world - 1) / world / 1e9
            print(f"allreduce {size} B: {t * 1e6:.1f} us, busbw {bus:.1f} GB/s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""All-reduce bus bandwidth over NCCL, one process per GPU: abbench's real
distributed workload (scenarios/nccl-allreduce.yaml).

Each rank reads the benchmark specification (a JSON Lines file of text
prompts such as "all_reduce bytes=268435456 dtype=float32 warmup=5
iters=30"), initialises NCCL (whose INFO log reports the variables set by the
environment, NCCL_ALGO among them), prints "allreduce_ready", waits for the
client's start file, runs every specification in order, and reports:

  allreduce_result rank=R bytes=B iters=N time_us=T algbw_gbps=A busbw_gbps=W
  activation_sequence rank=R count=N digest=HEX algorithm=sha256-length-prefixed-text-sha256-v1

(the digest is abbench's pinned text digest of the specifications it ran, so
the workload's identity is checked like a serving workload's prompts). Rank 0
writes the record (--out). Each rank then writes its done file and stays
until SIGTERM, when it tears NCCL down and prints allreduce_shutdown.
"""
import argparse
import hashlib
import json
import os
import signal
import struct
import sys
import time

TEXT_ALGORITHM = "sha256-length-prefixed-text-sha256-v1"


def text_digest(prompts):
    """The pinned text digest of the abbench digest specification."""
    h = hashlib.sha256()
    h.update(TEXT_ALGORITHM.encode() + b"\n" + struct.pack(">Q", len(prompts)))
    for p in prompts:
        body = p.encode("utf-8")
        h.update(struct.pack(">Q", len(body)) + hashlib.sha256(body).digest())
    return h.hexdigest()


def parse_spec(text):
    fields = dict(kv.split("=", 1) for kv in text.split()[1:])
    if text.split()[0] != "all_reduce" or fields.get("dtype") != "float32":
        raise SystemExit(f"allreduce: unsupported specification {text!r}")
    return int(fields["bytes"]), int(fields["warmup"]), int(fields["iters"])


def log(msg):
    print(msg, flush=True)


def wait_for(path, timeout, stop):
    """Wait for path; False when SIGTERM came first."""
    deadline = time.time() + timeout
    while not os.path.exists(path):
        if stop:
            return False
        if time.time() > deadline:
            raise SystemExit(f"allreduce: {path} did not appear within {timeout}s")
        time.sleep(0.05)
    return True


def atomic_write(path, text):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--world-size", type=int, required=True)
    ap.add_argument("--master-addr", default="127.0.0.1")
    ap.add_argument("--master-port", type=int, required=True)
    ap.add_argument("--spec", required=True, help="JSON Lines benchmark specification")
    ap.add_argument("--coord", required=True, help="abbench's coordination directory")
    ap.add_argument("--out", required=True, help="record file (rank 0 writes it)")
    ap.add_argument("--headline-bytes", type=int, default=268435456)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()

    for name in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        if name not in os.environ:
            raise SystemExit(f"allreduce: {name} must be set (NVLink multicast stays off on shared machines)")
    with open(a.spec) as f:
        specs = [json.loads(line) for line in f if line.strip()]
    plan = [parse_spec(s) for s in specs]

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    import torch
    import torch.distributed as dist

    torch.cuda.set_device(a.rank)
    device = torch.device("cuda", a.rank)
    # With device_id the NCCL communicator is created now (eagerly), and
    # NCCL logs its environment settings, NCCL_ALGO among them, before any
    # collective: abbench checks them before it lets the measurement start.
    # (Ranks whose algorithms differ can hang in their first collective.)
    dist.init_process_group("nccl", init_method=f"tcp://{a.master_addr}:{a.master_port}",
                            rank=a.rank, world_size=a.world_size, device_id=device)
    log(f"allreduce_ready rank={a.rank} world_size={a.world_size} device={torch.cuda.get_device_name(device)}")
    if not wait_for(os.path.join(a.coord, "start"), a.timeout, stop):
        # Stopped before any measurement (abbench found something wrong).
        dist.destroy_process_group()
        log(f"allreduce_shutdown rank={a.rank} results=0")
        return
    probe = torch.ones(1, device=device)
    dist.all_reduce(probe)
    torch.cuda.synchronize()
    if probe.item() != a.world_size:
        raise SystemExit(f"allreduce: probe sum {probe.item()} != {a.world_size}")

    results = []
    ws = a.world_size
    for (nbytes, warmup, iters), text in zip(plan, specs):
        x = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
        for _ in range(warmup):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier(device_ids=[a.rank])
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        t = start.elapsed_time(end) / 1000 / iters  # seconds per all-reduce
        algbw = nbytes / t / 1e9
        busbw = algbw * 2 * (ws - 1) / ws
        # Correctness: one all-reduce of ones sums to the world size.
        x.fill_(1)
        dist.all_reduce(x)
        torch.cuda.synchronize()
        ok = bool(torch.all(x == ws).item())
        results.append({"spec": text, "bytes": nbytes, "iters": iters, "time_us": t * 1e6,
                        "algbw_gbps": algbw, "busbw_gbps": busbw, "correct": ok})
        log(f"allreduce_result rank={a.rank} bytes={nbytes} iters={iters} time_us={t*1e6:.2f} "
            f"algbw_gbps={algbw:.2f} busbw_gbps={busbw:.2f} correct={int(ok)}")
        del x
    log(f"activation_sequence rank={a.rank} count={len(specs)} digest={text_digest(specs)} algorithm={TEXT_ALGORITHM}")

    if a.rank == 0:
        correct = sum(r["correct"] for r in results)
        head = next((r for r in results if r["bytes"] == a.headline_bytes), None)
        if head is None:
            raise SystemExit(f"allreduce: no specification of {a.headline_bytes} bytes for the headline")
        lines = [json.dumps(r) for r in results]
        # algbw last: a world of one moves no bytes between GPUs (busbw 0),
        # so its scenario reads algbw instead.
        lines.append(f"headline busbw_gbps={head['busbw_gbps']:.4f} bytes={a.headline_bytes} "
                     f"requested={len(results)} completed={correct} failed={len(results) - correct} "
                     f"algo={os.environ.get('NCCL_ALGO', 'default')} world_size={ws} "
                     f"algbw_gbps={head['algbw_gbps']:.4f}")
        atomic_write(a.out, "\n".join(lines) + "\n")
    atomic_write(os.path.join(a.coord, f"done-{a.rank}"), "done\n")

    while not stop:
        time.sleep(0.1)
    dist.destroy_process_group()
    log(f"allreduce_shutdown rank={a.rank} results={len(results)}")


if __name__ == "__main__":
    main()

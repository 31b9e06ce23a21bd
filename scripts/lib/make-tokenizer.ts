// A seeded byte-level BPE tokenizer with exactly `vocab` ids, for generated checkpoints: the 256
// byte tokens (GPT-2's byte-to-unicode alphabet), then merges of printable-ASCII tokens until the
// vocabulary is full, then the family's special tokens as the last ids. Every id decodes to text
// (merged tokens to ASCII), so a generated checkpoint's output reads as text, not as nothing.
// Same seed, same files.

import { createPrng } from '../../src/util/prng.ts';
import { addedTokensDecoder, byteLevelBpeJson, specialToken } from './byte-level-bpe.ts';

export type TokenizerFamily = 'qwen' | 'llama';

/** Special tokens, in id order at the end of the vocabulary, and which ones are BOS / EOS. */
const SPECIALS: Record<TokenizerFamily, { tokens: string[]; bos: string | null; eos: string; chatEnd: string }> = {
  qwen: { tokens: ['<|endoftext|>', '<|im_start|>', '<|im_end|>'], bos: null, eos: '<|endoftext|>', chatEnd: '<|im_end|>' },
  llama: {
    tokens: ['<|begin_of_text|>', '<|end_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'],
    bos: '<|begin_of_text|>',
    eos: '<|end_of_text|>',
    chatEnd: '<|eot_id|>',
  },
};

const CHAT_TEMPLATES: Record<TokenizerFamily, string> = {
  qwen: "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
  llama: "{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}",
};

/** GPT-2's bytes_to_unicode: byte b -> the character that stands for it in byte-level BPE. */
function byteAlphabet(): string[] {
  const direct = new Set<number>();
  for (let b = 0x21; b <= 0x7e; b++) direct.add(b);
  for (let b = 0xa1; b <= 0xac; b++) direct.add(b);
  for (let b = 0xae; b <= 0xff; b++) direct.add(b);
  const out: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) out.push(String.fromCharCode(direct.has(b) ? b : 256 + extra++));
  return out;
}

export interface GeneratedTokenizer {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  /** Ids of the family's BOS (null for qwen) and EOS tokens. */
  bosId: number | null;
  eosId: number;
}

export function makeTokenizer(vocab: number, family: TokenizerFamily, seed: number): GeneratedTokenizer {
  const sp = SPECIALS[family];
  const merges = vocab - 256 - sp.tokens.length;
  if (merges < 0) throw new RangeError(`a ${family} tokenizer needs at least ${256 + sp.tokens.length} ids, got ${vocab}`);
  const bytes = byteAlphabet();
  const ids = new Map<string, number>(bytes.map((ch, i) => [ch, i]));
  // printable ASCII (space included, as its byte-level character): the tokens merges are made of
  const pool: string[] = [];
  for (let b = 0x20; b <= 0x7e; b++) pool.push(bytes[b]);
  const mergeList: string[] = [];
  const rng = createPrng(seed);
  // cubed uniform draws favour early (short) tokens, so merged tokens stay word-sized
  const pick = () => pool[Math.floor(pool.length * rng.next() ** 3)];
  while (mergeList.length < merges) {
    const a = pick();
    const b = pick();
    const t = a + b;
    if (t.length > 16 || ids.has(t)) continue;
    ids.set(t, ids.size);
    pool.push(t);
    mergeList.push(`${a} ${b}`);
  }
  const first = ids.size;
  const added = sp.tokens.map((content, i) => specialToken(first + i, content));
  const idOf = (t: string) => first + sp.tokens.indexOf(t);
  const tokenizerJson = byteLevelBpeJson({ added, vocab: Object.fromEntries(ids), merges: mergeList });
  const tokenizerConfig = {
    add_bos_token: sp.bos !== null,
    bos_token: sp.bos,
    eos_token: sp.chatEnd,
    pad_token: sp.eos,
    unk_token: null,
    model_max_length: 131072,
    clean_up_tokenization_spaces: false,
    chat_template: CHAT_TEMPLATES[family],
    added_tokens_decoder: addedTokensDecoder(added),
  };
  return { tokenizerJson, tokenizerConfig, bosId: sp.bos === null ? null : idOf(sp.bos), eosId: idOf(sp.eos) };
}

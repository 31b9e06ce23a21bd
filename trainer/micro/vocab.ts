// The micro model's character-level vocabulary and its tokenizer files.
// tokenizer.json is a byte-level BPE with no merges, so @huggingface/tokenizers maps every
// character to one token; ids here are the ones that file assigns.

import { addedTokensDecoder, byteLevelBpeJson, specialToken } from '../../scripts/lib/byte-level-bpe';

/** Characters in id order (plain text form). */
const CHARS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '-', '*', '=', ' ', '\n'] as const;
const EOS_TOKEN = '<|endoftext|>';
export const EOS_ID = CHARS.length;
export const VOCAB_SIZE = CHARS.length + 1;

const CHAR_ID = new Map<string, number>(CHARS.map((c, i) => [c, i]));

/** Byte-level BPE spells space and newline as the GPT-2 byte symbols. */
function byteLevelSymbol(ch: string): string {
  if (ch === ' ') return '\u0120';
  if (ch === '\n') return '\u010a';
  return ch;
}

export function encodeChars(text: string): number[] {
  return Array.from(text, (ch) => {
    const id = CHAR_ID.get(ch);
    if (id === undefined) throw new Error(`micro vocab: character ${JSON.stringify(ch)} is not in the vocabulary (${CHARS.join('')})`);
    return id;
  });
}

/** Decodes ids, stopping at the first eos. */
export function decodeChars(ids: readonly number[]): string {
  let s = '';
  for (const id of ids) {
    if (id === EOS_ID) break;
    const ch = CHARS[id];
    if (ch === undefined) throw new Error(`micro vocab: token id ${id} is outside [0, ${VOCAB_SIZE})`);
    s += ch;
  }
  return s;
}

const eosAdded = specialToken(EOS_ID, EOS_TOKEN);

export function tokenizerJson(): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  CHARS.forEach((c, i) => (vocab[byteLevelSymbol(c)] = i));
  vocab[EOS_TOKEN] = EOS_ID;
  return byteLevelBpeJson({ added: [eosAdded], vocab, merges: [], ignoreMerges: false });
}

export function tokenizerConfigJson(maxLength: number): Record<string, unknown> {
  return {
    add_bos_token: false,
    add_eos_token: false,
    add_prefix_space: false,
    bos_token: null,
    eos_token: EOS_TOKEN,
    pad_token: EOS_TOKEN,
    unk_token: null,
    model_max_length: maxLength,
    clean_up_tokenization_spaces: false,
    tokenizer_class: 'PreTrainedTokenizerFast',
    added_tokens_decoder: addedTokensDecoder([eosAdded]),
  };
}

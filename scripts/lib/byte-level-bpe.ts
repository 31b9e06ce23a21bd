// The tokenizer.json of a byte-level BPE tokenizer (the @huggingface/tokenizers format), for the
// tokenizers ReachLab writes itself: generated checkpoints (scripts/lib/make-tokenizer.ts) and the
// trained micro models (trainer/micro/vocab.ts). One writer, so both files keep one shape.

/** One entry of tokenizer.json's added_tokens: a special token at id `id`. */
export interface AddedToken {
  id: number;
  content: string;
  single_word: false;
  lstrip: false;
  rstrip: false;
  normalized: false;
  special: true;
}

export function specialToken(id: number, content: string): AddedToken {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** tokenizer_config.json's added_tokens_decoder: each added token keyed by its id, without the id. */
export function addedTokensDecoder(added: AddedToken[]): Record<string, Omit<AddedToken, 'id'>> {
  return Object.fromEntries(added.map(({ id, ...rest }) => [String(id), rest]));
}

export interface ByteLevelBpe {
  added: AddedToken[];
  vocab: Record<string, number>;
  merges: string[];
  /** Write `ignore_merges` into the model section (the trainer's files carry it; generated ones do not). */
  ignoreMerges?: boolean;
}

export function byteLevelBpeJson({ added, vocab, merges, ignoreMerges }: ByteLevelBpe): Record<string, unknown> {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ...(ignoreMerges === undefined ? {} : { ignore_merges: ignoreMerges }),
      vocab,
      merges,
    },
  };
}

// The graph contract: the name, shape and type of every input and output of the two graphs the
// engine builds and runs. The builders (graph/layer.ts, graph/head.ts) declare their inputs and
// outputs by these names; the runtime (runtime/model.ts, runtime/load.ts) feeds and fetches by them.
// batch: rows of a run; seq: new tokens per row; cap: KV capacity; H: hidden size; V: vocabulary;
// `act`: the precision's activation type (graph/linear.ts Precision).
import type { BlockPoint } from '../types.ts';

/** The read-out points a span slot outputs: every block point but resid_pre, which is the previous
 *  slot's resid_post, or the span's input. */
export type SlotPoint = Exclude<BlockPoint, 'resid_pre'>;

export const GRAPH = {
  /** A span of decoder layers in sequence ("slots"); lengths and positions are shared. */
  span: {
    in: {
      hidden: 'hidden', // [batch, seq, H] f32
      seqlensK: 'seqlens_k', // [batch] i32: total length − 1 per row
      totalSeqLen: 'total_seq_len', // [1] i32: the largest total length in the batch (read on the CPU)
      positionIds: 'position_ids', // [batch, seq] i64: token positions
    },
    out: {
      hidden: 'hidden_out', // [batch, seq, H] f32: the last slot's output
    },
    /** Slot k's own inputs and outputs; its weights, where they are inputs, are named with `prefix` too. */
    slot: (k: number) => {
      const prefix = `s${k}.`;
      return {
        prefix,
        in: {
          pastKey: `${prefix}past_key`, // [batch, kvHeads, cap, headDim] act: the route position's cache
          pastValue: `${prefix}past_value`, // [batch, kvHeads, cap, headDim] act
          mlpKeep: `${prefix}mlp_keep`, // [batch, 1, 1] bool: false where the slot's MLP is silenced
        },
        out: {
          presentKey: `${prefix}present_key`, // [batch, kvHeads, cap, headDim] act: the cache with this run's tokens written
          presentValue: `${prefix}present_value`, // [batch, kvHeads, cap, headDim] act
          /** Read-out points (engine/points.ts) by name, fetched only by runs that read them. */
          points: {
            attn_out: `${prefix}attn_out`, // [batch, seq, H] f32: blocks.{p}.attn_out, the attention block's output
            resid_mid: `${prefix}resid_mid`, // [batch, seq, H] f32: blocks.{p}.resid_mid, resid_pre + attn_out, the MLP block's input
            mlp_out: `${prefix}mlp_out`, // [batch, seq, H] f32: blocks.{p}.mlp_out, the MLP block's output (0 where silenced)
            resid_post: `${prefix}resid_post`, // [batch, seq, H] f32: blocks.{p}.resid_post, the slot's output
          } satisfies Record<SlotPoint, string>,
        },
      };
    },
  },
  /** The model's two ends: a run embeds m ids and/or projects n hidden states (either count may be 0). */
  head: {
    in: {
      ids: 'ids', // [m] i32: token ids to embed
      hidden: 'hidden', // [n, H] f32: hidden states whose logits are wanted
    },
    out: {
      embedded: 'embedded', // [m, H] f32
      logits: 'logits', // [n, V] f32
      nextIds: 'next_ids', // [n] i64: the greedy choice, each row's argmax
      nextLogprobs: 'next_logprobs', // [n] f32: its log-prob; NaN where any logit of the row is NaN or ±Inf
      nextEmbedded: 'next_embedded', // [n, H] f32: the embedding of next_ids, the next decode step's input
      lnFinal: 'ln_final', // [n, H] f32: the read-out point ln_final, the final norm's output the head multiplies
    },
  },
} as const;

/** Slot k's names (GRAPH.span.slot). */
export type SpanSlot = ReturnType<typeof GRAPH.span.slot>;

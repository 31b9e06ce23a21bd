// The ONNX graph of the final norm + LM head, over the positions whose logits are wanted.
// inputs  hidden [n, H] f32 (n = rows × positions gathered by the caller)
// outputs logits [n, vocab] f32
// The head weight stays in Hugging Face layout [vocab, H] (Gemm transB=1), so a tied head uses
// embed_tokens as stored, without a transposed copy.
import type { ModelConfig } from '../types.ts';
import { GraphBuilder, MS_DOMAIN } from './onnx.ts';
import { quantizeQ4, Q4_BLOCK } from '../quantize.ts';
import type { WeightFormat } from './linear.ts';

export function buildHeadGraph(config: ModelConfig, norm: Float32Array, head: Float32Array, format: WeightFormat): Uint8Array {
  const { hiddenSize: H, vocabSize: V } = config;
  const g = new GraphBuilder('head');
  const hidden = g.input('hidden', 'float32', ['n', H]);
  const w = g.init('model.norm.weight', 'float32', [H], norm);
  const x = g.op('SimplifiedLayerNormalization', [hidden, w], { axis: -1, epsilon: { float: config.rmsNormEps } }); // [n, H]
  if (format === 'f32') {
    const wh = g.init('lm_head.weight', 'float32', [V, H], head);
    g.node('Gemm', [x, wh], { outputs: ['logits'], attrs: { transB: 1 } });
  } else {
    const q = quantizeQ4(head, V, H);
    const kBlocks = Math.ceil(H / Q4_BLOCK);
    const b = g.init('lm_head.q4', 'uint8', [V, kBlocks, Q4_BLOCK / 2], q.packed);
    const s = g.init('lm_head.scales', 'float32', [V * kBlocks], q.scales);
    const z = g.init('lm_head.zp', 'uint8', [q.zeroPoints.length], q.zeroPoints);
    g.node('MatMulNBits', [x, b, s, z], { outputs: ['logits'], attrs: { K: H, N: V, bits: 4, block_size: Q4_BLOCK }, domain: MS_DOMAIN });
  }
  g.output('logits', 'float32', ['n', V]);
  return g.toBytes();
}

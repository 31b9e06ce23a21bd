// The ONNX graph of the final norm + LM head, over the positions whose logits are wanted.
// inputs  hidden [n, H] f32 (n = rows × positions gathered by the caller)
// outputs logits [n, vocab] f32 (computed in the precision's activation type, cast back)
// The dense head weight stays in Hugging Face layout [vocab, H] (Gemm transB=1), so a tied head
// uses embed_tokens as stored, without a transposed copy.
import type { ModelConfig } from '../types.ts';
import { GraphBuilder, ONNX_TYPE_CODE } from './onnx.ts';
import { matMulQ4, type Precision } from './linear.ts';

export function buildHeadGraph(config: ModelConfig, norm: Float32Array, head: Float32Array, p: Precision): Uint8Array {
  const { hiddenSize: H, vocabSize: V } = config;
  const act = p.act;
  const f32 = act === 'float32';
  const g = new GraphBuilder('head');
  const hiddenIn = g.input('hidden', 'float32', ['n', H]);
  const hidden = f32 ? hiddenIn : g.op('Cast', [hiddenIn], { to: ONNX_TYPE_CODE[act] }); // [n, H] act
  const w = g.floats('model.norm.weight', act, [H], norm);
  const x = g.op('SimplifiedLayerNormalization', [hidden, w], { axis: -1, epsilon: { float: config.rmsNormEps } }); // [n, H]
  const out = f32 ? 'logits' : 'logits_act';
  if (!p.q4) {
    const wh = g.floats('lm_head.weight', act, [V, H], head);
    g.node('Gemm', [x, wh], { outputs: [out], attrs: { transB: 1 } }); // [n, V]
  } else {
    matMulQ4(g, x, 'lm_head', head, V, H, act, out); // [n, V]
  }
  if (!f32) g.node('Cast', [out], { outputs: ['logits'], attrs: { to: ONNX_TYPE_CODE.float32 } });
  g.output('logits', 'float32', ['n', V]);
  return g.toBytes();
}

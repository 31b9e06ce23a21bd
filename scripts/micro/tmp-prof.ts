import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { initParams, forward, maskedLoss } from './model';
import type { MicroConfig } from './config';
await tf.setBackend('wasm'); await tf.ready();
const c: MicroConfig = { vocabSize: 17, hiddenSize: 64, intermediateSize: 256, numLayers: 6, numHeads: 4, numKvHeads: 2, headDim: 16, ropeTheta: 10000, rmsNormEps: 1e-5, maxPositionEmbeddings: 512, tieWordEmbeddings: false, eosTokenId: 16, padTokenId: 16 };
const params = initParams(c, 1);
const Bsz = 128, T = 9;
const ids = tf.tensor2d(Array.from({ length: Bsz * T }, (_, i) => i % 16), [Bsz, T], 'int32');
const w = tf.ones([Bsz, T]) as tf.Tensor2D;
const vars = [...params.values()];
const step = () => { const { value, grads } = tf.variableGrads(() => maskedLoss(forward(ids, [0,1,2,3,4,5], params, c), ids, w, 17), vars); for (const g of Object.values(grads)) g.dataSync(); tf.dispose([value, ...Object.values(grads)]); };
step();
const prof = await tf.profile(step);
const agg = new Map<string, [number, number]>();
for (const k of prof.kernels) { const a = agg.get(k.name) ?? [0, 0]; a[0] += k.kernelTimeMs as number; a[1]++; agg.set(k.name, a); }
console.log([...agg.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, 20).map(([n, [t, c]]) => `${n} ${t.toFixed(0)}ms x${c}`).join('\n'));
let t0 = performance.now(); step(); console.log('step ms', performance.now() - t0);

import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
await tf.setBackend(process.argv[2] ?? 'wasm'); await tf.ready();
const a = tf.randomNormal([1152, 64]), b = tf.randomNormal([64, 256]), bt = tf.randomNormal([256, 64]), at = tf.randomNormal([64, 1152]);
const g = tf.randomNormal([1152, 256]);
function bench(name: string, f: () => tf.Tensor) { f().dispose(); const t0 = performance.now(); for (let i = 0; i < 20; i++) f().dataSync(); const ms = (performance.now() - t0) / 20; console.log(name, ms.toFixed(2), 'ms', (2 * 1152 * 64 * 256 / ms / 1e6).toFixed(2), 'GFLOP/s'); }
bench('nn', () => tf.matMul(a, b));
bench('nt', () => tf.matMul(a, bt, false, true));
bench('tn (dW)', () => tf.matMul(at, g, false, false));
bench('tn flag', () => tf.matMul(a, g, true, false));
bench('nt dx', () => tf.matMul(g, b, false, true));
bench('3d batch', () => tf.matMul(a.reshape([128, 9, 64]), tf.randomNormal([128, 64, 256])));

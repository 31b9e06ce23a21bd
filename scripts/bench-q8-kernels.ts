// The 8-bit matrix kernels onnxruntime-node's CPU provider offers, on one Qwen2.5-0.5B MLP
// projection (gate+up, [1, 896] × [896, 9728]): f32 MatMul, q8 as the engine builds it
// (MatMulInteger over signed 8-bit rows), and MatMulNBits with 8-bit weights in blocks of 32 at
// accuracy_level 0 (f32 compute) and 4 (int8 compute); one row (decode) and 64 rows (prefill), the
// median of --reps runs each, and each kernel's max |Δ| against f32. JSON on stdout, a table on stderr.
//   npm run -s bench:q8-kernels [-- --reps 50] [--threads 2]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { GraphBuilder, type BuiltGraph } from '../src/engine/graph/onnx.ts';
import { getOrt, sessionOptionsOf, setThreads, type Ort } from '../src/engine/ort.ts';
import { answerHelp } from './lib/cli-help.ts';
import { median } from './peer/plan.ts';

const [K, N, BLOCK] = [896, 9728, 32];

/** The weight [K, N] (as MatMul takes it), seeded. */
function weight(): Float32Array {
  let s = 1;
  return Float32Array.from({ length: K * N }, () => ((s = (s * 16807) % 2147483647) / 2147483647 - 0.5) * 0.1);
}

type Kernel = 'f32' | 'q8-matmulinteger' | 'matmulnbits8-acc0' | 'matmulnbits8-acc4';

function graph(kernel: Kernel, w: Float32Array): BuiltGraph {
  const g = new GraphBuilder(kernel);
  const x = g.input('x', 'float32', ['M', K]);
  if (kernel === 'f32') g.node('MatMul', [x, g.init('w', 'float32', [K, N], w)], { outputs: ['y'] });
  else if (kernel === 'q8-matmulinteger') {
    // per output feature scales, weights [K, N] int8; activations one scale per row (graph/linear.ts)
    const scales = new Float32Array(N);
    for (let n = 0; n < N; n++) for (let k = 0; k < K; k++) scales[n] = Math.max(scales[n], Math.abs(w[k * N + n]) / 127);
    const q = Int8Array.from(w, (v, i) => Math.round(v / scales[i % N]));
    const f = (name: string, v: number) => g.init(name, 'float32', [], Float32Array.of(v));
    const amax = g.op('ReduceMax', [g.op('Abs', [x])], { axes: [-1], keepdims: 1 });
    const sx = g.op('Max', [g.op('Mul', [amax, f('inv', 1 / 127)]), f('min', 2 ** -126)]);
    const xq = g.op('Cast', [g.op('Round', [g.op('Div', [x, sx])])], { to: 3 });
    const acc = g.op('MatMulInteger', [xq, g.init('wq', 'int8', [K, N], q), g.init('zp', 'int8', [], Int8Array.of(0))]);
    g.node('Mul', [g.op('Mul', [g.op('Cast', [acc], { to: 1 }), sx]), g.init('ws', 'float32', [N], scales)], { outputs: ['y'] });
  } else {
    // [N, K/32, 32] uint8 with zero point 128, one f32 scale per block
    const kb = K / BLOCK;
    const packed = new Uint8Array(N * K);
    const scales = new Float32Array(N * kb);
    for (let n = 0; n < N; n++) for (let b = 0; b < kb; b++) {
      let m = 0;
      for (let j = 0; j < BLOCK; j++) m = Math.max(m, Math.abs(w[(b * BLOCK + j) * N + n]));
      const s = (scales[n * kb + b] = m / 127 || 1);
      for (let j = 0; j < BLOCK; j++) packed[(n * kb + b) * BLOCK + j] = Math.round(w[(b * BLOCK + j) * N + n] / s) + 128;
    }
    const attrs = { K, N, bits: 8, block_size: BLOCK, accuracy_level: kernel === 'matmulnbits8-acc4' ? 4 : 0 };
    g.node('MatMulNBits', [x, g.init('wq', 'uint8', [N, kb, BLOCK], packed), g.init('ws', 'float32', [N * kb], scales)], { outputs: ['y'], attrs, domain: 'com.microsoft' });
  }
  g.output('y', 'float32', ['M', N]);
  return g.build();
}

async function time(ort: Ort, built: BuiltGraph, rows: number, reps: number): Promise<{ s: number; y: Float32Array }> {
  const s = await ort.InferenceSession.create(built.bytes, { ...sessionOptionsOf(ort, 'cpu'), graphOptimizationLevel: 'all', externalData: built.externalData } as never);
  let st = 7;
  const x = new ort.Tensor('float32', Float32Array.from({ length: rows * K }, () => (st = (st * 48271) % 2147483647) / 2147483647 - 0.5), [rows, K]);
  let y = (await s.run({ x })).y.data as Float32Array;
  const runs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    y = (await s.run({ x })).y.data as Float32Array;
    runs.push((performance.now() - t0) / 1000);
  }
  await s.release();
  return { s: median(runs), y };
}

async function main(): Promise<void> {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { values } = parseArgs({ args: process.argv.slice(2), options: { reps: { type: 'string', default: '50' }, threads: { type: 'string', default: '2' } }, strict: true });
  const reps = Number(values.reps);
  const ort = await getOrt('cpu');
  setThreads(ort, Number(values.threads));
  const w = weight();
  const before = loadavg();
  const kernels: Kernel[] = ['f32', 'q8-matmulinteger', 'matmulnbits8-acc0', 'matmulnbits8-acc4'];
  const rows = [];
  for (const m of [1, 64]) {
    const ref = await time(ort, graph('f32', w), m, reps);
    for (const k of kernels) {
      const r = k === 'f32' ? ref : await time(ort, graph(k, w), m, reps);
      let d = 0;
      for (let i = 0; i < r.y.length; i++) d = Math.max(d, Math.abs(r.y[i] - ref.y[i]));
      rows.push({ kernel: k, rows: m, ms: r.s * 1000, speed_vs_f32: ref.s / r.s, max_abs_diff_vs_f32: d });
    }
  }
  const out = { shape: `[M, ${K}] x [${K}, ${N}]`, threads: Number(values.threads), reps, load_average: { before, after: loadavg() }, rows };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.stderr.write(rows.map((r) => `${r.kernel.padEnd(20)} M=${String(r.rows).padEnd(3)} ${r.ms.toFixed(3).padStart(8)} ms  ${r.speed_vs_f32.toFixed(2)}× f32  max|Δ| ${r.max_abs_diff_vs_f32.toExponential(1)}`).join('\n')
    + `\nload average before ${before.map((x) => x.toFixed(2)).join(' ')}, after ${out.load_average.after.map((x) => x.toFixed(2)).join(' ')}\n`);
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`bench:q8-kernels: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

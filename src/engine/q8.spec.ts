// q8 on the WASM EP: int8 projections (one scale per output feature) times int8 activations (one
// scale per row) in MatMulInteger, the LM head f32. On the native CPU EP: 8-bit weight blocks of 32
// in MatMulNBits at accuracy_level 4 (int8 activations per block of a row, in the kernel). The bounds:
//  - on the trained micro model (50 held-out questions, every position) q8's top-1 token agrees
//    with the exact float64 model's at ≥ 99% of positions and the mean KL(exact ‖ q8) is ≤ 0.01;
//  - on every checkpoint the exactness guarantees hold bit for bit: a row computes the same logits
//    alone and in a batch (the integer product is exact and each row has its own scale), and a
//    KV-cached step equals recomputing (on the native CPU EP in all but at most one case per
//    checkpoint: see the test);
//  - the reference checkpoints' random 64-wide matrices are no test of 8 bits: even 8-bit weights
//    alone in blocks of 32 (finer than q8) keep only 92–97% of top-1 tokens there (measured with
//    the float64 reference), so the top-1 bound is stated for the trained model only, as for q4.
import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { createEngine } from './engine.ts';
import { argmax, checkConformance, klDivergence, type Expected } from './conformance.ts';
import { openCheckpoint } from './checkpoint.ts';
import { openReader } from './sources/reader.ts';
import { loadReference } from './reference.ts';
import { dequantizeQ8Blocks, quantizeQ8BlockRows, quantizeQ8Rows, Q8_MAX } from './quantize.ts';
import { GraphBuilder } from './graph/onnx.ts';
import { linear } from './graph/linear.ts';
import { getOrt } from './ort.ts';
import { readMatrix } from './weights.ts';
import { memoryRowSource } from './testing/row-source.ts';
import { createPrng } from '../util/prng.ts';
import { precisionOf } from './graph/linear.ts';
import { buildLayerGraph } from './graph/layer.ts';
import { buildHeadGraph } from './graph/head.ts';
import { q4Layout, readHeadWeights, readLayerWeights } from './runtime/load.ts';
import { checkFits, dtypeRefusal, footprint } from './memory.ts';
import { parseConfig } from './config.ts';
import { arithText, generateArith } from '../audit/tasks/arith.ts';
import { TEST_EP } from './testing/test-ep.ts';

const fixture = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url).pathname;
const MICRO = new URL('../../public/hub/reachlab/micro-arith/resolve/main/', import.meta.url).pathname;
const { onnx } = onnxProto;

describe('8-bit rows', () => {
  it('keep each row within half a step of its scale, zero rows exact, values in ±127', () => {
    const k = 40;
    const w = Float32Array.from({ length: 3 * k }, (_, i) => (i < k ? 0 : Math.sin(i * 1.7) * (i < 2 * k ? 1e-3 : 50)));
    const q = new Int8Array(w.length);
    const s = new Float32Array(3);
    quantizeQ8Rows(w, 3, k, q, s);
    expect(Array.from(q.subarray(0, k)).every((v) => v === 0)).toBe(true);
    for (let r = 1; r < 3; r++) {
      const row = w.subarray(r * k, (r + 1) * k);
      expect(s[r]).toBeCloseTo(Math.max(...Array.from(row, Math.abs)) / Q8_MAX, 6);
      for (let i = 0; i < k; i++) {
        expect(Math.abs(q[r * k + i])).toBeLessThanOrEqual(Q8_MAX);
        expect(Math.abs(q[r * k + i] * s[r] - row[i])).toBeLessThanOrEqual(s[r] / 2 + 1e-7);
      }
    }
  });
});

describe('q8 graphs', () => {
  it('run every projection through MatMulInteger over int8 weights and keep the head f32', async () => {
    const ckpt = await openCheckpoint(openReader({ kind: 'fs', dir: fixture('tiny-qwen2') }));
    const target = { ep: 'wasm' as const, precision: precisionOf('q8'), maxSeqLen: 32, maxPartBytes: Infinity };
    const layer = onnx.ModelProto.decode(buildLayerGraph(ckpt.config, 0, await readLayerWeights(ckpt, 0, target), { precision: target.precision, maxPositions: 32 }).bytes).graph!;
    const ops = layer.node!.map((n) => n.opType);
    expect(ops.filter((o) => o === 'MatMulInteger')).toHaveLength(4); // qkv, o, gate_up, down
    expect(ops).not.toContain('MatMul');
    const int8 = layer.initializer!.filter((t) => t.dataType === onnx.TensorProto.DataType.INT8 && t.dims!.length === 2).map((t) => t.name!.split('.').slice(-2).join('.'));
    expect(int8.sort()).toEqual(['down_proj.q8', 'gate_up_proj.q8', 'o_proj.q8', 'qkv_proj.q8']);
    // activations are signed 8-bit rows with zero point 0 (graph/linear.ts quantizeRows)
    const zeroPoints = layer.initializer!.filter((t) => t.name!.endsWith('x_zero_point'));
    expect(zeroPoints.map((t) => [t.dataType, t.dims!.length])).toEqual(Array(4).fill([onnx.TensorProto.DataType.INT8, 0]));
    const head = onnx.ModelProto.decode(buildHeadGraph(ckpt.config, await readHeadWeights(ckpt, target), { precision: target.precision, q4Layout: q4Layout('wasm') }).bytes).graph!;
    expect(head.node!.map((n) => n.opType)).toContain('Gemm');
    expect(head.node!.map((n) => n.opType)).not.toContain('MatMulInteger');
  });

  it('q8b: every projection through 8-bit MatMulNBits at accuracy_level 4', async () => {
    const ckpt = await openCheckpoint(openReader({ kind: 'fs', dir: fixture('tiny-qwen2') }));
    const target = { ep: 'cpu' as const, precision: precisionOf('q8b'), maxSeqLen: 32, maxPartBytes: Infinity };
    const layer = onnx.ModelProto.decode(buildLayerGraph(ckpt.config, 0, await readLayerWeights(ckpt, 0, target), { precision: target.precision, maxPositions: 32 }).bytes).graph!;
    const nbits = layer.node!.filter((n) => n.opType === 'MatMulNBits');
    expect(nbits).toHaveLength(4); // qkv, o, gate_up, down
    const attr = (n: (typeof nbits)[0], name: string) => Number(n.attribute!.find((a) => a.name === name)!.i);
    expect(nbits.map((n) => [attr(n, 'bits'), attr(n, 'block_size'), attr(n, 'accuracy_level')])).toEqual(Array(4).fill([8, 32, 4]));
    expect(layer.node!.map((n) => n.opType)).not.toContain('MatMulInteger');
  });
});

// Only the native CPU EP builds 8-bit blocks (npm --prefix native run conformance runs this there).
describe.runIf(TEST_EP === 'cpu')('8-bit MatMulNBits on the native CPU EP', () => {
  it('reads the blocks as dequantizeQ8Blocks does (one-hot rows of x quantize exactly)', async () => {
    const [n, k] = [6, 80]; // k not a multiple of 32: the last block is padded
    const rng = createPrng(5);
    const w = Float32Array.from({ length: n * k }, () => rng.next() * 2 - 1);
    const x = new Float32Array(k * k); // [k, k] identity: each row's int8 form is exact, so y = Wqᵀ
    for (let i = 0; i < k; i++) x[i * k + i] = 1;
    const matrix = await readMatrix(memoryRowSource({ w: { data: w, shape: [n, k] } }), ['w'], { kind: 'q8-blocks', act: 'float32' }, Infinity);
    const g = new GraphBuilder('q8-blocks');
    g.input('x', 'float32', [k, k]);
    g.node('Identity', [linear(g, 'x', 'proj', matrix)], { outputs: ['y'] });
    g.output('y', 'float32', [k, n]);
    const built = g.build();
    const ort = await getOrt('cpu');
    const session = await ort.InferenceSession.create(built.bytes, { executionProviders: ['cpu'], externalData: built.externalData } as never);
    const y = (await session.run({ x: new ort.Tensor('float32', x, [k, k]) })).y.data as Float32Array; // [k, n]
    await session.release();
    const kBlocks = Math.ceil(k / 32);
    const packed = new Uint8Array(n * kBlocks * 32);
    const scales = new Float32Array(n * kBlocks);
    quantizeQ8BlockRows(w, n, k, packed, scales, 0);
    const wq = dequantizeQ8Blocks(packed, scales, n, k);
    for (let i = 0; i < k; i++) {
      for (let c = 0; c < n; c++) expect(Math.abs(y[i * n + c] - wq[c * k + i]), `y[${i}][${c}]`).toBeLessThan(1e-6);
    }
  });
});

/** The 8-bit dtypes TEST_EP runs: q8 everywhere on the CPU, q8b on the native CPU EP only. */
const EIGHT_BIT: ('q8' | 'q8b')[] = TEST_EP === 'cpu' ? ['q8', 'q8b'] : ['q8'];

describe.each(EIGHT_BIT.flatMap((dtype) => ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'].map((m) => [dtype, m] as const)))('%s on %s', (dtype, m) => {
  it('a row computes the same bits alone and in a batch; cached = recomputed; a different model than f32', async () => {
    const expected = JSON.parse(readFileSync(`${fixture(m)}expected.json`, 'utf8')) as Expected;
    const engine = createEngine();
    const info = await engine.load({ kind: 'fs', dir: fixture(m) }, { ep: TEST_EP, dtype, maxSeqLen: 64 });
    expect(info).toMatchObject({ dtype, ep: TEST_EP });
    const report = await checkConformance(engine, expected);
    await engine.dispose();
    expect(report.batchedEqualsSingle).toBe(true);
    const cachedDiffers = report.cases.filter((c) => !c.cachedEqualsRecomputed).map((c) => c.name);
    // WASM: bit for bit. The native CPU kernels' f32 products round differently for one row than for
    // many (decode vs prefill), and on these random 8-bit models that can move an activation across
    // a rounding step: measured, one case of the 27 (tiny-llama repeat-and-skip, from step 5)
    if (TEST_EP === 'wasm') expect(cachedDiffers).toEqual([]);
    else expect(cachedDiffers.length, cachedDiffers.join(', ')).toBeLessThanOrEqual(1);
    expect(Math.max(...report.cases.map((c) => c.maxAbsDiff))).toBeGreaterThan(expected.tolerance.abs);
  });
});

describe.each(EIGHT_BIT)('what %s costs the trained micro model', (dtype) => {
  it('≥ 99% of top-1 tokens and ≤ 0.01 nats of mean KL against the exact model on 50 held-out questions', async () => {
    const vocab = (JSON.parse(readFileSync(`${MICRO}tokenizer.json`, 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
    const L = (JSON.parse(readFileSync(`${MICRO}config.json`, 'utf8')) as { num_hidden_layers: number }).num_hidden_layers;
    const route = Array.from({ length: L }, (_, i) => i);
    const rows = generateArith('arith-2d', 'test', 50, 1).map((q) => ({ promptIds: Array.from(arithText(q), (ch) => vocab[ch]), route, silence: [] }));
    const ref = await loadReference(await openCheckpoint(openReader({ kind: 'fs', dir: MICRO })));
    const engine = createEngine();
    await engine.load({ kind: 'fs', dir: MICRO }, { ep: TEST_EP, dtype, maxSeqLen: 64 });
    let agree = 0;
    let kl = 0;
    let n = 0;
    for (const r of rows) {
      const got = await engine.logits(r, { allPositions: true });
      ref.logits(r.promptIds, r.route, r.silence).forEach((exact, i) => {
        if (argmax(exact) === argmax(got[i])) agree++;
        kl += klDivergence(exact, got[i]);
        n++;
      });
    }
    await engine.dispose();
    expect(n).toBe(rows.reduce((s, r) => s + r.promptIds.length, 0)); // every position of every question
    expect(agree / n).toBeGreaterThanOrEqual(0.99);
    expect(kl / n).toBeLessThanOrEqual(0.01);
  });
});

describe('where q8 runs and what it holds', () => {
  const c = parseConfig({
    model_type: 'qwen2', hidden_size: 1536, intermediate_size: 8960, num_hidden_layers: 28, num_attention_heads: 12,
    num_key_value_heads: 2, vocab_size: 151936, tie_word_embeddings: true, rope_theta: 1000000, rms_norm_eps: 1e-6,
  });

  it('engine Auto takes WASM for it', async () => {
    const engine = createEngine();
    const info = await engine.load({ kind: 'fs', dir: fixture('tiny-llama') }, { ep: 'auto', dtype: 'q8', maxSeqLen: 16 });
    await engine.dispose();
    expect(info).toMatchObject({ dtype: 'q8', ep: 'wasm', fallbackReason: 'dtype q8 runs on WebAssembly only' });
  });

  it('is refused on WebGPU by name, and runs on WASM', () => {
    expect(dtypeRefusal('q8', 'webgpu')).toMatch(/^dtype q8 runs on the WebAssembly engine only: .*MatMulInteger/);
    expect(dtypeRefusal('q8', 'wasm')).toBeNull();
    expect(dtypeRefusal('q4', 'webgpu')).toBeNull();
  });

  it('q8b is refused by name everywhere but the native CPU EP, and an engine load says so', async () => {
    for (const ep of ['wasm', 'webgpu', 'cuda'] as const) expect(dtypeRefusal('q8b', ep)).toMatch(new RegExp(`^dtype q8b runs on the native CPU engine only .*not on ${ep}: choose q8`));
    expect(dtypeRefusal('q8b', 'cpu')).toBeNull();
    await expect(createEngine().load({ kind: 'fs', dir: fixture('tiny-llama') }, { ep: 'wasm', dtype: 'q8b', maxSeqLen: 16 })).rejects.toMatchObject({ code: 'unsupported-dtype' });
  });

  it('q8b blocks take 36 bytes per 32 weights, against q8\'s one byte each plus a scale per row', () => {
    const q8b = footprint(c, precisionOf('q8b'), 'cpu', 512);
    const q8 = footprint(c, precisionOf('q8'), 'cpu', 512);
    const H = 1536;
    const q8bLayer = (q8b.weightBytes - q8b.headBytes) / 28;
    const q8Layer = (q8.weightBytes - q8.headBytes) / 28;
    // the same four projections per layer: (H/32)·36 bytes per output row against H + 4
    expect(q8bLayer / q8Layer).toBeCloseTo(((H / 32) * 36) / (H + 4), 1);
  });

  it('holds Qwen2.5-1.5B in the WASM heap (int8 projections, f32 head), where f32 does not fit', () => {
    const q8 = footprint(c, precisionOf('q8'), 'wasm', 512);
    expect(q8.headBytes / 1e9).toBeCloseTo((2 * 151936 * 1536 * 4 + 1536 * 4) / 1e9, 3); // the head and the kernel's packed copy
    expect(q8.weightBytes / 1e9).toBeCloseTo(3.19, 2);
    expect(() => checkFits('org/big', c, 'q8', 'wasm', 512)).not.toThrow();
  });
});

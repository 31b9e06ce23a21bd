// What a model holds: refused up front when it cannot fit, weights outside the protobuf, a tied
// embedding held once, WASM threads on every core.
import { availableParallelism } from 'node:os';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { checkFits, footprint, WEBGPU_MAX_WEIGHT_BYTES } from './memory.ts';
import { parseConfig } from './config.ts';
import { precisionOf } from './graph/linear.ts';
import { buildHeadGraph } from './graph/head.ts';
import { buildLayerGraph, buildSpanGraph, layerWeightInputs } from './graph/layer.ts';
import { GRAPH } from './graph/contract.ts';
import { openCheckpoint } from './checkpoint.ts';
import { openReader } from './sources/reader.ts';
import { MemoryReader } from './sources/memory.ts';
import { q4Layout, readHeadWeights, readLayerWeights } from './runtime/load.ts';
import { createEngine } from './engine.ts';

const fixture = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url).pathname;
const { onnx } = onnxProto;

/** config.json of Qwen2.5-1.5B (28 layers, hidden 1536, vocab 151,936, tied). */
const QWEN25_15B = {
  model_type: 'qwen2', hidden_size: 1536, intermediate_size: 8960, num_hidden_layers: 28, num_attention_heads: 12,
  num_key_value_heads: 2, vocab_size: 151936, tie_word_embeddings: true, rope_theta: 1000000, rms_norm_eps: 1e-6,
};

describe('fit check', () => {
  const c = parseConfig(QWEN25_15B);

  it('counts Qwen2.5-1.5B at 6.18 GB in f32 (7.12 with the WASM kernel’s head copy) and about 1.1 GB in q4', () => {
    expect(footprint(c, precisionOf('f32'), 'webgpu', 512).weightBytes / 1e9).toBeCloseTo(6.18, 2);
    expect(footprint(c, precisionOf('f32'), 'wasm', 512).weightBytes / 1e9).toBeCloseTo(7.12, 2);
    expect(footprint(c, precisionOf('q4'), 'wasm', 512).weightBytes / 1e9).toBeCloseTo(1.11, 2);
  });

  it('refuses f32 on the WASM heap naming both sizes and the dtypes that fit; q4 and WebGPU pass', () => {
    expect(() => checkFits('org/big', c, 'f32', 'wasm', 512)).toThrow(
      expect.objectContaining({
        code: 'out-of-memory',
        message: expect.stringMatching(/^org\/big in f32 needs 7\.12 GB of weights in the WebAssembly heap.*more than the 4\.29 GB.*fits as q4f16 \(1\.01 GB\) or q4 \(1\.11 GB\) or q8 \(3\.19 GB\) or f16 \(3\.56 GB\)$/),
      }),
    );
    expect(() => checkFits('org/big', c, 'q4', 'wasm', 512)).not.toThrow();
    expect(() => checkFits('org/big', c, 'f32', 'webgpu', 512)).not.toThrow();
  });

  it('happens before any weight is read: the engine refuses a checkpoint that has only its config', async () => {
    const reads: string[] = [];
    const engine = createEngine({ openReader: () => new MemoryReader('org/big', { 'config.json': JSON.stringify(QWEN25_15B) }, (f) => reads.push(f)) });
    await expect(engine.load({ kind: 'fs', dir: 'unused' }, { ep: 'wasm', dtype: 'f32' })).rejects.toMatchObject({ code: 'out-of-memory' });
    expect(reads).toEqual(['config.json']);
  });

  it('covers WebGPU from config.json: weights past WEBGPU_MAX_WEIGHT_BYTES are refused before any weight is read', async () => {
    // 80 layers of hidden 8192 / intermediate 28672 (a 70B-class model): about 280 GB in f32, 40 GB in q4.
    const huge = { ...QWEN25_15B, hidden_size: 8192, intermediate_size: 28672, num_hidden_layers: 80, num_attention_heads: 64, num_key_value_heads: 8 };
    const big = parseConfig(huge);
    expect(() => checkFits('org/huge', big, 'f32', 'webgpu', 512)).toThrow(
      expect.objectContaining({ code: 'out-of-memory', message: expect.stringMatching(/^org\/huge in f32 needs \d+\.\d\d GB of weights on WebGPU, more than the 34\.36 GB loaded there.*it does not fit in any engine dtype$/) }),
    );
    expect(footprint(big, precisionOf('q4'), 'webgpu', 512).weightBytes).toBeGreaterThan(WEBGPU_MAX_WEIGHT_BYTES);
    const reads: string[] = [];
    const engine = createEngine({ openReader: () => new MemoryReader('org/huge', { 'config.json': JSON.stringify(huge) }, (f) => reads.push(f)) });
    await expect(engine.load({ kind: 'fs', dir: 'unused' }, { ep: 'webgpu', dtype: 'q4' })).rejects.toMatchObject({ code: 'out-of-memory' });
    expect(reads).toEqual(['config.json']);
  });
});

describe('what sessions hold', () => {
  it('a layer protobuf names its weights; the bytes travel as external data', async () => {
    const ckpt = await openCheckpoint(openReader({ kind: 'fs', dir: fixture('tiny-qwen2') }));
    const target = { ep: 'wasm' as const, precision: precisionOf('f32'), maxSeqLen: 32, maxPartBytes: Infinity };
    const built = buildLayerGraph(ckpt.config, 0, await readLayerWeights(ckpt, 0, target), { precision: target.precision, maxPositions: 32 });
    const external = built.externalData.reduce((n, d) => n + d.data.length, 0);
    expect(built.externalData.map((d) => d.path)).toEqual(expect.arrayContaining(['s0.qkv_proj.weight', 's0.o_proj.weight', 's0.gate_up_proj.weight', 's0.down_proj.weight']));
    expect(built.bytes.length).toBeLessThan(external / 4);
  });

  it.each([
    ['wasm', 'FusedMatMul', [64, 176]], // as stored [out, in], multiplied transB: nothing transposed on load
    ['webgpu', 'MatMul', [176, 64]], // transposed [in, out]
  ] as const)('f32 projections on %s run as %s; the down projection is held as %j', async (ep, op, downDims) => {
    const ckpt = await openCheckpoint(openReader({ kind: 'fs', dir: fixture('tiny-qwen2') }));
    const target = { ep, precision: precisionOf('f32'), maxSeqLen: 32, maxPartBytes: Infinity };
    const graph = onnx.ModelProto.decode(buildLayerGraph(ckpt.config, 0, await readLayerWeights(ckpt, 0, target), { precision: target.precision, maxPositions: 32 }).bytes).graph!;
    const products = graph.node!.filter((n) => n.opType === op);
    expect(products).toHaveLength(4); // qkv, o, gate_up, down
    if (op === 'FusedMatMul') expect(products.every((n) => n.attribute!.some((a) => a.name === 'transB' && Number(a.i) === 1))).toBe(true);
    expect(graph.initializer!.find((t) => t.name === 's0.down_proj.weight')!.dims!.map(Number)).toEqual(downDims);
  });

  it('a span graph holds no weights: each slot takes the inputs a layer\'s weights are fed under', async () => {
    const ckpt = await openCheckpoint(openReader({ kind: 'fs', dir: fixture('tiny-qwen2') }));
    const target = { ep: 'wasm' as const, precision: precisionOf('q4'), maxSeqLen: 32, maxPartBytes: 4096 };
    const opts = { precision: target.precision, maxPositions: 32 };
    const w = await readLayerWeights(ckpt, 1, target);
    const fed = layerWeightInputs(ckpt.config, w, opts);
    expect(fed.map((x) => x.name)).toEqual(expect.arrayContaining(['input_layernorm.weight', 'qkv_proj.part0.q4', 'qkv_proj.bias', 'down_proj.part0.scales']));
    const graph = onnx.ModelProto.decode(buildSpanGraph(ckpt.config, w, 3, opts).bytes).graph!;
    const inputs = graph.input!.map((v) => v.name!);
    const slots = [0, 1, 2].map((k) => GRAPH.span.slot(k));
    slots.forEach((slot, k) => fed.forEach((x) => expect(inputs, `slot ${k} ${x.name}`).toContain(slot.prefix + x.name)));
    expect(graph.initializer!.map((t) => t.name)).toEqual(expect.not.arrayContaining([expect.stringMatching(/proj|layernorm/)]));
    expect(graph.output!.map((v) => v.name)).toEqual([...slots.flatMap((s) => [s.out.presentKey, s.out.presentValue, ...Object.values(s.out.points)]), GRAPH.span.out.hidden]);
  });

  it.each([
    ['f32', 'wasm', 'Gemm', 'Gather'],
    ['q4', 'webgpu', 'MatMulNBits', 'GatherBlockQuantized'],
  ] as const)('a tied %s head on %s: the head and the embedding read one initializer', async (dtype, ep, headOp, gatherOp) => {
    const ckpt = await openCheckpoint(openReader({ kind: 'fs', dir: fixture('tiny-qwen2') }));
    const c = ckpt.config;
    expect(c.tieWordEmbeddings).toBe(true);
    const target = { ep, precision: precisionOf(dtype), maxSeqLen: 32, maxPartBytes: Infinity };
    const graph = onnx.ModelProto.decode(buildHeadGraph(c, await readHeadWeights(ckpt, target), { precision: target.precision, q4Layout: q4Layout(ep) }).bytes).graph!;
    // one [V, H] matrix (f32), or one [V, kBlocks·16] block of 4-bit weights
    const weights = graph.initializer!.filter((t) => Number(t.dims![0]) === c.vocabSize && Number(t.dims![1]) === (dtype === 'f32' ? c.hiddenSize : Math.ceil(c.hiddenSize / 32) * 16));
    expect(weights).toHaveLength(1);
    const head = graph.node!.find((n) => n.opType === headOp)!;
    const gather = graph.node!.find((n) => n.opType === gatherOp)!;
    expect([gather.input![0], head.input![1]]).toEqual([weights[0].name, weights[0].name]);
  });

  it('runs the WASM kernels on every core', async () => {
    const engine = createEngine();
    const info = await engine.load({ kind: 'fs', dir: fixture('tiny-qwen3') }, { ep: 'wasm', maxSeqLen: 16 });
    await engine.dispose();
    expect(info.threads).toBe(availableParallelism());
  });
});

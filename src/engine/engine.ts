// The in-process Engine: loads a checkpoint into per-layer sessions (runtime/model.ts) and runs
// many (prompt, route, silence set, sampling) rows per call through the batching scheduler
// (runtime/scheduler.ts): generate and score share its token loop (decodeLoop), each with its own
// rule for the next token. What a forward pass computes is reference.ts. The same object runs in
// a worker behind comlink (workers/).
import { cpuThreads, defaultRuntime, exposesGpuDevice, getOrt, runtimeOf, runtimeRefusal, webGpu, type Ort } from './ort.ts';
import { adapterInfoOf, adapterLabel, type AdapterInfo } from './adapter.ts';
import { checkFits, dtypeRefusal, MAX_ARRAY_BUFFER_BYTES } from './memory.ts';
import { openReader } from './sources/reader.ts';
import { openCheckpoint } from './checkpoint.ts';
import { createTokenizer, type TextTokenizer } from './tokenizer.ts';
import type { TemplateRenderer } from './template-sandbox.ts';
import { RoutedModel, type HeadRow, type TokenChoice } from './runtime/model.ts';
import { precisionOf, withF32Activations } from './graph/linear.ts';
import { decodeLoop, prefill, readPoints, type RoutePlan, type RunControl } from './runtime/scheduler.ts';
import { runReadout, type ReadoutName, type ReadoutOf, type ReadoutRowOf } from './readouts.ts';
import { blockPoint } from './points.ts';
import { checkFinite, createSampler, logSoftmaxAt, validateSampling, type Sampler } from './sampling.ts';
import {
  EngineError,
  isEngineError,
  type ChatMessage,
  type CheckpointSource,
  type Engine,
  type EngineStats,
  type ExecutionProvider,
  type ForwardRow,
  type GenerateOptions,
  type GenerateResult,
  type GenerateRow,
  type LoadOptions,
  type LoadProgress,
  type LogitsOptions,
  type ModelInfo,
  type OrtRuntime,
  ENGINE_DTYPES,
  type ScoreRow,
  type TemplateVars,
} from './types.ts';
import { quote } from '../util/clip.ts';

const DEFAULT_MAX_SEQ_LEN = 512;
/** KV capacity per call is the needed length rounded up to this (bounded by maxSeqLen). */
const CAP_ROUND = 16;
const MAX_BATCH = 64;

interface Loaded {
  model: RoutedModel;
  tokenizer: TextTokenizer;
  info: ModelInfo;
}

export interface EngineOptions {
  /** How a source becomes a reader; the browser worker wraps Hub sources in the weight cache. */
  openReader?: typeof openReader;
  /** Where chat templates render (default: the thread's template sandbox). */
  templates?: TemplateRenderer;
}

export function createEngine(opts: EngineOptions = {}): LocalEngine {
  return new LocalEngine(opts);
}

export class LocalEngine implements Engine {
  constructor(private readonly opts: EngineOptions = {}) {}

  private loaded: Loaded | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Bumped by cancel(): calls issued before it reject at their next check. */
  private epoch = 0;
  private deviceLost: string | null = null;
  /** Loads not yet finished (queued or running): cancel() and dispose() abort them. */
  private readonly loads = new Set<AbortController>();

  /** session.run() calls so far (benchmarks). */
  get runs(): number {
    return this.loaded?.model.runs ?? 0;
  }

  async stats(): Promise<EngineStats> {
    const m = this.loaded?.model;
    return { runs: m?.runs ?? 0, layerTokens: m?.layerTokens ?? 0, uploadBytes: m?.transfer.upload ?? 0, downloadBytes: m?.transfer.download ?? 0 };
  }

  load(source: CheckpointSource, opts: LoadOptions = {}, onProgress?: (p: LoadProgress) => void): Promise<ModelInfo> {
    const abort = new AbortController();
    this.loads.add(abort);
    const stopped = () => {
      if (abort.signal.aborted) throw new EngineError('cancelled', `loading ${source.kind === 'hub' ? source.repo : 'the model'} was cancelled`);
    };
    return this.serial(async () => {
      stopped();
      const maxSeqLen = opts.maxSeqLen ?? DEFAULT_MAX_SEQ_LEN;
      if (!Number.isInteger(maxSeqLen) || maxSeqLen < 2 || maxSeqLen > 131072) {
        throw new EngineError('bad-input', `maxSeqLen must be an integer in [2, 131072], got ${maxSeqLen}`);
      }
      if (opts.maxWeightPartBytes !== undefined && !(Number.isInteger(opts.maxWeightPartBytes) && opts.maxWeightPartBytes >= 1024)) {
        throw new EngineError('bad-input', `maxWeightPartBytes must be an integer ≥ 1024, got ${opts.maxWeightPartBytes}`);
      }
      if (opts.layerGraphs !== undefined && opts.layerGraphs !== 'per-layer' && opts.layerGraphs !== 'spans') {
        throw new EngineError('bad-input', `layerGraphs must be 'per-layer' or 'spans', got ${quote(opts.layerGraphs)}`);
      }
      const wanted = opts.dtype ?? 'f32';
      if (!ENGINE_DTYPES.includes(wanted)) {
        throw new EngineError('unsupported-dtype', `engine dtype ${quote(wanted)} is unknown (supported: ${ENGINE_DTYPES.join(', ')})`);
      }
      // a dtype WebGPU cannot run: 'auto' takes WebAssembly for q8 and the native CPU EP for q8b;
      // an explicit EP that cannot run it is refused below
      const auto = (opts.ep ?? 'auto') === 'auto';
      const { ort, ...ep } = auto && wanted === 'q8b'
        ? await chooseEp('cpu', opts.runtime)
        : auto && dtypeRefusal(wanted, 'webgpu')
          ? { ort: await getOrt('wasm'), ep: 'wasm' as const, f16: true, fallbackReason: `dtype ${wanted} runs on WebAssembly only` }
          : await chooseEp(opts.ep ?? 'auto', opts.runtime);
      // f16 activations need shader-f16 on WebGPU; without it the same weights compute in f32
      const dtype = ep.f16 ? wanted : withF32Activations(wanted);
      const refusal = dtypeRefusal(dtype, ep.ep);
      if (refusal) throw new EngineError('unsupported-dtype', refusal);
      const reader = (this.opts.openReader ?? openReader)(source, (item, loadedBytes, totalBytes) => onProgress?.({ phase: 'download', item, loadedBytes, totalBytes }), { signal: abort.signal });
      const ckpt = await openCheckpoint(reader, onProgress, { checkConfig: (c) => checkFits(reader.label, c, dtype, ep.ep, maxSeqLen) });
      stopped();
      const tokenizer = createTokenizer(ckpt.tokenizerJson, ckpt.tokenizerConfig, ckpt.chatTemplateJinja, this.opts.templates);
      await this.unload();
      const maxPartBytes = Math.min(opts.maxWeightPartBytes ?? Infinity, ep.maxBufferBytes ?? Infinity, MAX_ARRAY_BUFFER_BYTES);
      // span graphs are fed GPU-resident weights: onnxruntime-web's WebGPU; everywhere else each
      // layer's session holds its weights
      const layerGraphs = opts.layerGraphs ?? (ep.ep === 'webgpu' && exposesGpuDevice(ort) ? 'spans' : 'per-layer');
      const model = await RoutedModel.create(ort, ckpt, { ep: ep.ep, layerGraphs, precision: precisionOf(dtype), maxSeqLen, maxPartBytes, onProgress });
      if (abort.signal.aborted) {
        await model.dispose();
        stopped();
      }
      if (ep.ep === 'webgpu' && exposesGpuDevice(ort)) await this.watchDevice(ort);
      const c = ckpt.config;
      const commit = (await reader.commit?.()) ?? null;
      const info: ModelInfo = {
        fingerprint: await ckpt.fingerprint(),
        ...(commit ? { commit } : {}),
        name: ckpt.name,
        modelType: c.modelType,
        numLayers: c.numLayers,
        vocabSize: c.vocabSize,
        config: c,
        ep: ep.ep,
        runtime: runtimeOf(ort),
        dtype,
        ...(ep.fallbackReason ? { fallbackReason: ep.fallbackReason } : {}),
        ...(dtype !== wanted ? { dtypeFallbackReason: `dtype ${wanted} needs the WebGPU feature shader-f16, which this adapter lacks, so it runs as ${dtype} (f32 activations)` } : {}),
        ...(ep.adapter ? { adapter: adapterLabel(ep.adapter), adapterInfo: ep.adapter } : {}),
        hasChatTemplate: tokenizer.hasChatTemplate,
        ...(tokenizer.chatTemplateFile ? { chatTemplateFile: tokenizer.chatTemplateFile } : {}),
        chatTemplateReads: tokenizer.chatTemplateReads,
        eosTokenIds: c.eosTokenIds,
        maxSeqLen,
        weightBytes: ckpt.weightBytes,
        threads: cpuThreads(ort),
        ...(reader.notices?.().length ? { notices: reader.notices() } : {}),
      };
      this.loaded = { model, tokenizer, info };
      return info;
    }).finally(() => this.loads.delete(abort));
  }

  async info(): Promise<ModelInfo | null> {
    return this.loaded?.info ?? null;
  }

  async encode(text: string): Promise<number[]> {
    return this.need().tokenizer.encode(text);
  }

  async decode(ids: number[]): Promise<string> {
    return this.need().tokenizer.decode(ids);
  }

  async applyChatTemplate(messages: ChatMessage[], vars: TemplateVars): Promise<string> {
    return this.need().tokenizer.applyChatTemplate(messages, vars);
  }

  logits(row: ForwardRow, opts: LogitsOptions = {}): Promise<Float32Array[]> {
    const ctl = this.control();
    return this.serial(async () => {
      const { model } = this.need();
      const plan = this.plan(row, 'row');
      const T = row.promptIds.length;
      const [res] = await prefill(model, [row.promptIds], [plan], this.capacity(T), ctl, LOGITS, opts.allPositions ?? false);
      const logits = res.head.logits!; // [positions, V]
      const V = model.config.vocabSize;
      const n = logits.length / V;
      return Array.from({ length: n }, (_, i) => {
        const l = logits.slice(i * V, (i + 1) * V);
        checkFinite(l, `row 0, position ${opts.allPositions ? i : T - 1}`);
        return l;
      });
    });
  }

  generate(rows: GenerateRow[], opts: GenerateOptions): Promise<GenerateResult[]> {
    const ctl = this.control();
    return this.serial(async () => {
      const { model, tokenizer, info } = this.need();
      checkRows(rows);
      const maxNew = opts.maxNewTokens;
      if (!Number.isInteger(maxNew) || maxNew < 1) throw new EngineError('bad-input', `maxNewTokens must be a positive integer, got ${maxNew}`);
      const stops = opts.stopStrings ?? [];
      if (stops.some((s) => typeof s !== 'string' || s === '')) throw new EngineError('bad-input', 'stopStrings must be non-empty strings');
      const eos = new Set(opts.eosTokenIds ?? info.eosTokenIds);
      const plans = rows.map((r, i) => {
        validateSampling(r.sampling, `row ${i}`);
        return this.plan(r, `row ${i}`);
      });
      const cap = this.capacity(Math.max(...rows.map((r) => r.promptIds.length)) + maxNew - 1);
      // greedy rows take the head graph's (id, log-prob); logits come back only for sampled rows
      const want = { logits: rows.some((r) => r.sampling.kind === 'sample'), greedy: rows.some((r) => r.sampling.kind === 'greedy') };
      const samplers = rows.map((r) => createSampler(r.sampling));
      const results: GenerateResult[] = rows.map(() => ({ tokens: [], text: '', tokenLogprobs: [], stop: 'max-tokens' }));
      // one stream per row; it goes on until eos, a stop string or maxNew tokens
      await this.diagnosed(rows, plans, ctl, decodeLoop(model, rows.map((r) => r.promptIds), plans, rows.map((_, i) => i), cap, ctl, want, (row, head, step) => {
        const { id, logprob } = choose(head, samplers[row], rows[row].sampling.kind === 'greedy', row, `step ${step}`);
        const res = results[row];
        res.tokens.push(id);
        res.tokenLogprobs.push(logprob);
        if (eos.has(id)) {
          res.stop = 'eos';
          return null;
        }
        if (stops.length > 0) {
          const text = tokenizer.decode(res.tokens, { skipSpecialTokens: true });
          const cut = firstStop(text, stops);
          if (cut >= 0) {
            res.stop = 'stop-string';
            res.text = text.slice(0, cut);
            return null;
          }
        }
        return res.tokens.length < maxNew ? id : null;
      }));
      for (const res of results) {
        if (res.stop !== 'stop-string') res.text = tokenizer.decode(res.tokens, { skipSpecialTokens: true });
      }
      return results;
    });
  }

  score(rows: ScoreRow[]): Promise<number[][]> {
    const ctl = this.control();
    return this.serial(async () => {
      const { model } = this.need();
      checkRows(rows);
      const plans = rows.map((r, i) => {
        if (!Array.isArray(r.continuations)) throw new EngineError('bad-input', `row ${i}: continuations must be an array of token-id arrays`);
        return this.plan(r, `row ${i}`);
      });
      const longest = Math.max(...rows.map((r) => r.promptIds.length + Math.max(1, ...r.continuations.map((c) => c.length)) - 1));
      const cap = this.capacity(longest);
      // one stream per (row, continuation), teacher-forced token by token, all in one batch
      const jobs = rows.flatMap((r, row) => r.continuations.map((ids, c) => ({ row, c, ids })));
      const totals = rows.map((r) => r.continuations.map(() => 0));
      const V = model.config.vocabSize;
      await this.diagnosed(rows, plans, ctl, decodeLoop(model, rows.map((r) => r.promptIds), plans, jobs.map((j) => j.row), cap, ctl, LOGITS, (k, head, t) => {
        const { row, c, ids } = jobs[k];
        const logits = head.logits!; // [1, V]
        checkFinite(logits, `row ${row}, continuation ${c}, token ${t}`, row);
        if (!Number.isInteger(ids[t]) || ids[t] < 0 || ids[t] >= V) {
          throw new EngineError('bad-input', `row ${row}, continuation ${c}: token id ${ids[t]} is outside the vocabulary [0, ${V})`);
        }
        totals[row][c] += logSoftmaxAt(logits, ids[t]);
        return t + 1 < ids.length ? ids[t] : null;
      }));
      return totals;
    });
  }

  /** Read-out `name` of one row (engine/readouts.ts): one prefill that reads the points it asks for,
   *  then one head run over the vectors it asks logits for. */
  readout<K extends ReadoutName>(name: K, row: ReadoutRowOf<K>): Promise<ReadoutOf<K>> {
    const ctl = this.control();
    return this.serial(async () => {
      const { model } = this.need();
      checkRows([row]);
      const plan = this.plan(row, 'readout');
      const cap = this.capacity(row.promptIds.length);
      const H = model.config.hiddenSize;
      const V = model.config.vocabSize;
      return runReadout(name, row, {
        config: model.config,
        points: (r) => readPoints(model, r, plan, cap, ctl),
        project: async (vectors) => {
          const fed = new Float32Array(vectors.length * H); // [n, H]
          vectors.forEach((x, i) => fed.set(x, i * H));
          ctl.check();
          const logits = await model.project(fed, vectors.length); // [n, V]
          return vectors.map((_, i) => logits.subarray(i * V, (i + 1) * V));
        },
      });
    });
  }

  async cancel(): Promise<void> {
    this.epoch++;
    this.abortLoads();
  }

  /** Ends a load in progress (it rejects with 'cancelled') and unloads the model. */
  dispose(): Promise<void> {
    this.abortLoads();
    return this.serial(() => this.unload());
  }

  // --- internals ---

  private abortLoads(): void {
    for (const a of this.loads) a.abort();
  }

  private async unload(): Promise<void> {
    const l = this.loaded;
    this.loaded = null;
    if (l) await l.model.dispose();
  }

  /** Runs calls one at a time, in order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.deviceLost) throw new EngineError('device-lost', `WebGPU device lost (${this.deviceLost}); create a fresh engine`);
      try {
        return await fn();
      } finally {
        this.loaded?.model.endCall(); // what the call allocated on the device goes
      }
    });
    this.queue = run.catch(() => undefined);
    return run.catch((e: unknown) => {
      throw isEngineError(e) ? e : new EngineError(this.deviceLost ? 'device-lost' : 'internal', e instanceof Error ? e.message : String(e));
    });
  }

  private control(): RunControl {
    const epoch = this.epoch;
    return {
      maxBatch: MAX_BATCH,
      check: () => {
        if (this.epoch !== epoch) throw new EngineError('cancelled', 'cancelled');
      },
    };
  }

  /** `work`, where NaN or Inf logits (nan-logits, naming a row) are named with the checkpoint and
   *  the layer where the row's hidden state first holds them: a diagnosis pass runs the row's prompt
   *  through its route, reading its residual stream after each position. */
  private async diagnosed(rows: ForwardRow[], plans: RoutePlan[], ctl: RunControl, work: Promise<void>): Promise<void> {
    try {
      await work;
    } catch (e) {
      if (!isEngineError(e) || e.code !== 'nan-logits' || e.row === undefined) throw e;
      let site: string;
      try {
        site = await this.nanSite(rows[e.row].promptIds, plans[e.row], ctl);
      } catch {
        site = 'the diagnosis pass that looks for the layer did not finish';
      }
      throw new EngineError('nan-logits', `${e.message} in ${this.need().info.name}: ${site}`, e.row);
    }
  }

  /** Where a prompt's hidden state (at its last position) first holds NaN or Inf along a route: its
   *  residual stream read at every route position in one pass. */
  private async nanSite(promptIds: number[], plan: RoutePlan, ctl: RunControl): Promise<string> {
    const { model } = this.need();
    const n = plan.route.length;
    const names = [blockPoint(0, 'resid_pre'), ...plan.route.map((_, p) => blockPoint(p, 'resid_post'))];
    const points = await readPoints(model, { promptIds, route: plan.route, silence: [], points: names, positions: 'last' }, plan, this.capacity(promptIds.length), ctl);
    for (let k = 0; k <= n; k++) {
      if (Array.prototype.every.call(points.get(names[k])![0], Number.isFinite)) continue;
      if (k === 0) return 'the token embedding already holds NaN or Inf (the embedding weights hold them)';
      const layer = plan.route[k - 1];
      return `the hidden state first holds NaN or Inf after layer ${layer} (blocks.${layer}, route position ${k - 1}${plan.keep[k - 1] ? '' : ', MLP silenced'}): its weights hold NaN or Inf, or its activations overflow`;
    }
    return "the prompt's hidden state is finite after every layer of the route, so the final norm or the head makes them (or a later decoded token)";
  }

  private need(): Loaded {
    if (!this.loaded) throw new EngineError('not-loaded', 'no model is loaded; call load() first');
    return this.loaded;
  }

  /** KV capacity for sequences of `len` tokens. */
  private capacity(len: number): number {
    const max = this.need().info.maxSeqLen;
    if (len > max) throw new EngineError('bad-input', `sequence of ${len} tokens (prompt + new tokens) exceeds maxSeqLen ${max}`);
    return Math.min(max, Math.ceil(len / CAP_ROUND) * CAP_ROUND);
  }

  private plan(row: ForwardRow, where: string): RoutePlan {
    const L = this.need().info.numLayers;
    const { route, silence } = row;
    if (!Array.isArray(route) || route.length === 0) throw new EngineError('bad-input', `${where}: route must be a non-empty list of layer indices in [0, ${L})`);
    route.forEach((l, p) => {
      if (!Number.isInteger(l) || l < 0 || l >= L) throw new EngineError('bad-input', `${where}: route[${p}] = ${l} is not a layer index in [0, ${L})`);
    });
    if (!Array.isArray(silence)) throw new EngineError('bad-input', `${where}: silence must be a list of layer indices`);
    silence.forEach((l, i) => {
      if (!Number.isInteger(l) || l < 0 || l >= L) throw new EngineError('bad-input', `${where}: silence[${i}] = ${l} is not a layer index in [0, ${L})`);
    });
    const silenced = new Set(silence);
    return { route: route.slice(), keep: route.map((l) => !silenced.has(l)) };
  }

  private async watchDevice(ort: Ort): Promise<void> {
    const device = (await ort.env.webgpu.device) as { lost?: Promise<{ message?: string; reason?: string }> } | undefined;
    device?.lost?.then((info) => {
      this.deviceLost = info?.message || info?.reason || 'unknown reason';
      this.epoch++;
    });
  }
}

const LOGITS = { logits: true, greedy: false };

/** The next token of a row and its log-prob: the graph's argmax for greedy rows, the sampler's draw
 *  over the logits otherwise; non-finite logits are an error either way. */
function choose(head: HeadRow, sampler: Sampler, greedy: boolean, row: number, at: string): TokenChoice {
  if (greedy) {
    const { id, logprob } = head.greedy!;
    if (!Number.isFinite(logprob)) throw new EngineError('nan-logits', `row ${row}, ${at}: the logits hold NaN or Inf (greedy token ${id})`, row);
    return { id, logprob };
  }
  const l = head.logits!;
  checkFinite(l, `row ${row}, ${at}`, row);
  const id = sampler(l);
  return { id, logprob: logSoftmaxAt(l, id) };
}

function checkRows(rows: ForwardRow[]): void {
  if (!Array.isArray(rows) || rows.length === 0) throw new EngineError('bad-input', 'rows must be a non-empty array');
  rows.forEach((r, i) => {
    if (!Array.isArray(r.promptIds) || r.promptIds.length === 0) throw new EngineError('bad-input', `row ${i}: promptIds must be a non-empty list of token ids`);
  });
}

function firstStop(text: string, stops: string[]): number {
  let cut = -1;
  for (const s of stops) {
    const at = text.indexOf(s);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut;
}

interface EpChoice {
  /** The onnxruntime-web build that runs it (in Node the WebGPU one differs from the WASM one). */
  ort: Ort;
  ep: ExecutionProvider;
  /** Whether f16 activations run: always on WASM, on WebGPU only with shader-f16. */
  f16: boolean;
  /** WebGPU: the largest buffer a weight may take (max buffer and storage binding size). */
  maxBufferBytes?: number;
  fallbackReason?: string;
  adapter?: AdapterInfo;
}

const EPS: readonly (ExecutionProvider | 'auto')[] = ['auto', 'webgpu', 'wasm', 'cpu', 'cuda'];

/** 'auto' (or 'webgpu' on onnxruntime-web) uses WebGPU when this build has it and navigator.gpu
 *  gives an adapter. In Node 'auto' stays on WebAssembly (the CLIs choose cpu where the native
 *  package is installed); cpu, cuda and a native webgpu run on onnxruntime-node, refused naming
 *  what to install where it (or the provider) is missing. */
async function chooseEp(wanted: ExecutionProvider | 'auto', runtime?: OrtRuntime): Promise<EpChoice> {
  if (!EPS.includes(wanted)) throw new EngineError('bad-input', `unknown execution provider ${quote(wanted)} (one of ${EPS.join(', ')})`);
  if (wanted !== 'auto') {
    const refusal = await runtimeRefusal(wanted, runtime);
    if (refusal) throw new EngineError('bad-input', refusal);
  }
  const onWasm = async (fallbackReason?: string): Promise<EpChoice> => ({ ort: await getOrt('wasm'), ep: 'wasm', f16: true, ...(fallbackReason ? { fallbackReason } : {}) });
  if (wanted === 'wasm') return onWasm();
  // the native providers: f16 kernels on CPU; onnxruntime-node's WebGPU provider runs the f16 ops
  // its device takes and places the rest on its CPU provider, so f16 activations always run
  if (wanted === 'cpu' || wanted === 'cuda' || (wanted === 'webgpu' && (runtime ?? (await defaultRuntime('webgpu'))) === 'onnxruntime-node')) {
    return { ort: await getOrt(wanted, 'onnxruntime-node'), ep: wanted, f16: true };
  }
  let ort: Ort;
  try {
    ort = await getOrt(wanted, 'onnxruntime-web');
  } catch (e) {
    return onWasm(`WebGPU unavailable: ${e instanceof Error ? e.message : String(e)}`);
  }
  const gpu = webGpu();
  if (!gpu) return onWasm('WebGPU unavailable in this environment');
  const adapter = (await gpu.requestAdapter().catch(() => null)) as (GPUAdapter & { info?: GPUAdapterInfo & { isFallbackAdapter?: boolean } }) | null;
  if (!adapter) return onWasm('WebGPU unavailable: navigator.gpu.requestAdapter() returned no adapter');
  (ort.env.webgpu as { adapter: unknown }).adapter = adapter;
  const info = adapterInfoOf(adapter.info);
  // A software adapter (SwiftShader) emulates the GPU on the CPU: WASM is faster, so 'auto' takes it.
  if (wanted === 'auto' && info.isFallbackAdapter) {
    return onWasm(`the WebGPU adapter is a software fallback (${adapterLabel(info)}); WebAssembly is faster here`);
  }
  // onnxruntime-web requests shader-f16, and the adapter's buffer limits, for its device
  const maxBufferBytes = Math.min(adapter.limits?.maxBufferSize ?? Infinity, adapter.limits?.maxStorageBufferBindingSize ?? Infinity);
  return { ort, ep: 'webgpu', f16: adapter.features?.has('shader-f16') ?? false, maxBufferBytes, adapter: info };
}

// The engine's public contract: the same TypeScript interface on both sides of the worker
// (workers/engine.worker.ts exposes an Engine over comlink; tests hold the real object).
// Everything here is plain data so it crosses postMessage unchanged.
import type { AdapterInfo } from './adapter.ts';
import type { ReadoutName, ReadoutOf, ReadoutRowOf } from './readouts.ts';

/** Where a checkpoint in Hugging Face layout comes from. */
export type CheckpointSource =
  /** `{endpoint}/{repo}/resolve/{revision}/{file}`; endpoint defaults to https://huggingface.co. */
  | { kind: 'hub'; repo: string; revision?: string; token?: string; endpoint?: string; /** the files' commit, when known without asking the Hub (the built-in models) */ commit?: string }
  /** Files the user picked (folder input, drag and drop, File System Access API). */
  | { kind: 'files'; files: File[] }
  /** A folder on disk (Node only: tests, benchmarks, CLIs). */
  | { kind: 'fs'; dir: string };

/** webgpu and wasm run everywhere (onnxruntime-web); cpu and cuda are onnxruntime-node's (Node
 *  with the native/ package), which also runs webgpu natively. */
export type ExecutionProvider = 'webgpu' | 'wasm' | 'cpu' | 'cuda';
/** The onnxruntime build an EP runs on (engine/ort.ts chooses it). */
export type OrtRuntime = 'onnxruntime-web' | 'onnxruntime-node';
export interface RuntimeInfo {
  name: OrtRuntime;
  version: string;
}
/** f32: weights and activations f32. f16: f16 weights and activations (on WebGPU only with
 *  shader-f16; without it f16 runs as f32 and q4f16 as q4, ModelInfo.dtypeFallbackReason says so).
 *  q4: 4-bit MatMulNBits weights (block 32) with f32 activations. q4f16: 4-bit weights, f16 activations.
 *  q8: int8 weights (one scale per output feature) times int8 activations (one scale per row) in
 *  MatMulInteger, f32 elsewhere; WASM only (the WebGPU EP has no integer matrix product).
 *  q8b: 8-bit weights in blocks of 32 (one scale per block) in MatMulNBits at accuracy_level 4,
 *  which quantizes activations to int8 block by block inside the kernel: another 8-bit model than
 *  q8 (its own records), for the native CPU EP only, where it is its fast int8 kernel. */
export const ENGINE_DTYPES = ['f32', 'f16', 'q4', 'q4f16', 'q8', 'q8b'] as const;
export type EngineDtype = (typeof ENGINE_DTYPES)[number];
export type ModelType = 'llama' | 'qwen2' | 'qwen3';

export interface LoadOptions {
  /** 'auto' picks webgpu when an adapter exists, else wasm (ModelInfo.ep and .fallbackReason say which). */
  ep?: ExecutionProvider | 'auto';
  /** Which onnxruntime runs `ep` (engine/ort.ts defaultRuntime when omitted: in Node, webgpu runs on
   *  onnxruntime-node where it is installed, else on onnxruntime-web over Dawn). */
  runtime?: OrtRuntime;
  dtype?: EngineDtype;
  /** KV-cache capacity per route position, in tokens (prompt + new tokens). Default 512. */
  maxSeqLen?: number;
  /** Weight matrices larger than this are cut into parts (≥ 1024). The engine always cuts at the
   *  WebGPU adapter's max buffer / binding size and at the browser's ArrayBuffer limit; a lower
   *  value serves GPUs whose real limit is lower than they report, and tests of the cutting. */
  maxWeightPartBytes?: number;
  /** 'spans' (default on WebGPU): graphs of 1, 2, 4, ... 16 layer slots fed each layer's weights,
   *  so one session run covers up to 16 route positions. 'per-layer' (default on WASM): a session
   *  per model layer with its weights inside; WASM copies graph inputs into its heap on every run,
   *  so spans there serve tests of the span graphs, not speed. */
  layerGraphs?: 'per-layer' | 'spans';
}

export type LoadPhase = 'config' | 'download' | 'weights' | 'graph' | 'session';
export interface LoadProgress {
  phase: LoadPhase;
  /** File or tensor being handled, when there is one. */
  item?: string;
  loadedBytes: number;
  totalBytes: number;
}

/** The normalized architecture of a checkpoint, parsed from config.json. */
export interface ModelConfig {
  modelType: ModelType;
  numLayers: number;
  hiddenSize: number;
  intermediateSize: number;
  numHeads: number;
  numKvHeads: number;
  /** config.head_dim, defaulting to hidden_size / num_attention_heads. */
  headDim: number;
  vocabSize: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: null | {
    type: 'llama3';
    factor: number;
    lowFreqFactor: number;
    highFreqFactor: number;
    originalMaxPositionEmbeddings: number;
  };
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  /** q/k/v projections carry a bias (qwen2). */
  attentionBias: boolean;
  /** per-head RMSNorm of q and k before rotary (qwen3). */
  qkNorm: boolean;
  bosTokenId: number | null;
  eosTokenIds: number[];
}

export interface ModelInfo {
  /** SHA-256 over config.json, the weight file names + sizes (+ hub repo@revision when known). */
  fingerprint: string;
  /** The Hub commit the files were read at, when the revision resolved to one. */
  commit?: string;
  /** Human label: hub repo id, folder name or built-in name. */
  name: string;
  modelType: ModelType;
  numLayers: number;
  vocabSize: number;
  config: ModelConfig;
  ep: ExecutionProvider;
  /** The onnxruntime build and version the EP ran on. */
  runtime?: RuntimeInfo;
  /** The dtype the model computes in (may differ from the requested one: dtypeFallbackReason). */
  dtype: EngineDtype;
  /** Why the requested dtype is not the one in use (f16 on a WebGPU adapter without shader-f16). */
  dtypeFallbackReason?: string;
  /** Where the weights came from, when a person should know (a damaged cached copy downloaded again, an offline copy), one sentence each. */
  notices?: string[];
  /** Why the requested EP is not the one in use (e.g. "WebGPU unavailable"). */
  fallbackReason?: string;
  /** WebGPU adapter in one line, e.g. "google swiftshader (SwiftShader driver) (fallback adapter)" (adapter.ts). */
  adapter?: string;
  /** The same adapter as GPUAdapterInfo reports it. */
  adapterInfo?: AdapterInfo;
  hasChatTemplate: boolean;
  /** The file the chat template came from (chat_template.jinja first, as transformers reads it). */
  chatTemplateFile?: ChatTemplateFile;
  /** The condition-set template variables this model's chat template reads (the Setup offers these). */
  chatTemplateReads?: TemplateVarName[];
  eosTokenIds: number[];
  maxSeqLen: number;
  weightBytes: number;
  /** Threads of the WebAssembly kernels (all cores in Node and cross-origin-isolated pages, else 1). */
  threads?: number;
}

/** Where a checkpoint's chat template is read, in this order (transformers' precedence). */
export const CHAT_TEMPLATE_FILES = ['chat_template.jinja', 'tokenizer_config.json'] as const;
export type ChatTemplateFile = (typeof CHAT_TEMPLATE_FILES)[number];

/** Every variable a chat-template render receives beyond the messages and the model's special
 *  tokens; a condition sets each (audit/condition.ts), so a render never depends on the clock. */
export interface TemplateVars {
  add_generation_prompt: boolean;
  /** "%d %b %Y" (e.g. "26 Jul 2024"): passed as date_string, and the date strftime_now() formats. */
  date_string: string;
  /** Passed only when set (Qwen3: false renders the empty think block, no thinking). */
  enable_thinking?: boolean;
}
export type TemplateVarName = keyof TemplateVars;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Seeded sampling: the PRNG is src/util/prng.ts (documented there), so one seed gives the same
 *  tokens on every execution provider up to logit ties. */
export type Sampling =
  | { kind: 'greedy' }
  | { kind: 'sample'; temperature: number; topP: number; seed: number };

/** One forward pass request: a prompt run through a route with an MLP silence set. */
export interface ForwardRow {
  promptIds: number[];
  /** Layer indices in order; non-empty; each in [0, numLayers). */
  route: number[];
  /** Layers whose MLP branch adds nothing wherever they run. */
  silence: number[];
}

/** The read-out points of one route position, as TransformerLens names its hook points
 *  (`blocks.{i}.hook_resid_pre`, ...): the residual stream entering it, the attention block's
 *  output, the residual stream between the blocks (resid_pre + attn_out), the MLP block's output
 *  (0 where silenced) and the residual stream leaving it. */
export const BLOCK_POINTS = ['resid_pre', 'attn_out', 'resid_mid', 'mlp_out', 'resid_post'] as const;
export type BlockPoint = (typeof BLOCK_POINTS)[number];

/** A named point of the forward pass: `blocks.{p}.{BlockPoint}` at route position p (on the default
 *  route, layer p; a repeated layer has a point per position it runs at), or `ln_final`, the final
 *  norm's output (what the LM head multiplies). Each holds one H-vector per prompt position. */
export type PointName = `blocks.${number}.${BlockPoint}` | 'ln_final';

/** A forward row that asks for read-out points, at its last prompt position or at every one. */
export interface PointsRow extends ForwardRow {
  points: PointName[];
  positions: 'last' | 'all';
}

/** The values of a PointsRow's points: per point one H-vector per position read. */
export type PointValues = Map<PointName, ArrayLike<number>[]>;

export interface GenerateRow extends ForwardRow {
  sampling: Sampling;
}

export interface GenerateOptions {
  maxNewTokens: number;
  /** Generation stops once the decoded text contains one of these; the text is cut before it. */
  stopStrings?: string[];
  /** Defaults to the model's eos ids (config + generation_config). */
  eosTokenIds?: number[];
}

export interface GenerateResult {
  tokens: number[];
  text: string;
  /** log-prob of each generated token under the (untempered) model distribution. */
  tokenLogprobs: number[];
  stop: 'eos' | 'stop-string' | 'max-tokens';
}

export interface ScoreRow extends ForwardRow {
  /** Candidate continuations as token ids; each is scored after promptIds. */
  continuations: number[][];
}

export interface LogitsOptions {
  /** Return logits at every prompt position, not just the last. */
  allPositions?: boolean;
}

/** A look inside one forward row at its last prompt position (an answer token; readout.ts
 *  attemptRow extends the prompt by the answer tokens gold and response share): `gold` is the gold
 *  answer's token there; `emitted` the token the attempt emitted there (default: the row's greedy
 *  choice). See engine/readout.ts for what is computed and how (read-out 'look-inside'). */
export interface ReadoutRow extends ForwardRow {
  gold: number;
  emitted?: number;
}

/** A token's standing in one logit vector. */
export interface TokenStanding {
  id: number;
  /** 1 + how many tokens have a strictly larger logit. */
  rank: number;
  prob: number;
  logit: number;
}

/** The logit lens after one route position (position −1: the embedding alone). */
export interface LensPoint {
  position: number;
  /** The layer at that route position; null for the embedding. */
  layer: number | null;
  gold: TokenStanding;
  emitted: TokenStanding;
}

/** One route position's direct attribution to the (gold − emitted) logit difference. */
export interface AttributionPoint {
  position: number;
  layer: number;
  attn: number;
  /** 0 where the layer's MLP is silenced. */
  mlp: number;
}

export interface Readout {
  route: number[];
  silence: number[];
  gold: number;
  emitted: number;
  /** The embedding, then one point after each route position. */
  lens: LensPoint[];
  /** The embedding's direct attribution. */
  embed: number;
  attribution: AttributionPoint[];
  /** The final (gold − emitted) logit difference, as the head computes it. */
  logitDiff: number;
  /** embed + Σ attn + Σ mlp: equals logitDiff up to rounding (`identityError` = |sum − logitDiff|). */
  sum: number;
  identityError: number;
}

export interface Engine {
  load(source: CheckpointSource, opts?: LoadOptions, onProgress?: (p: LoadProgress) => void): Promise<ModelInfo>;
  info(): Promise<ModelInfo | null>;
  encode(text: string): Promise<number[]>;
  decode(ids: number[]): Promise<string>;
  applyChatTemplate(messages: ChatMessage[], vars: TemplateVars): Promise<string>;
  /** Logits [positions][vocab] for one row (last position only unless allPositions). */
  logits(row: ForwardRow, opts?: LogitsOptions): Promise<Float32Array[]>;
  /** One result per row, in row order. Rows may differ in prompt, route, silence set and sampling. */
  generate(rows: GenerateRow[], opts: GenerateOptions): Promise<GenerateResult[]>;
  /** Total log-prob of each continuation, per row: result[row][continuation]. */
  score(rows: ScoreRow[]): Promise<number[][]>;
  /** A read-out of one row: the points its definition asks for, reduced (engine/readouts.ts). */
  readout?<K extends ReadoutName>(name: K, row: ReadoutRowOf<K>): Promise<ReadoutOf<K>>;
  /** Cancels the call in flight; it rejects with EngineError code 'cancelled'. */
  cancel(): Promise<void>;
  dispose(): Promise<void>;
  /** Counters since the model was loaded (benchmarks). */
  stats?(): Promise<EngineStats>;
}

export interface EngineStats {
  /** session.run() calls. */
  runs: number;
  /** Token positions computed by layers (row × new token × route position per run): what sharing a
   *  prompt's prefill across routes saves shows here. */
  layerTokens: number;
  /** Bytes of CPU tensors fed to runs (uploads to the GPU on WebGPU). */
  uploadBytes: number;
  /** Bytes of run outputs read back to the CPU (downloads from the GPU on WebGPU). */
  downloadBytes: number;
}

export type EngineErrorCode =
  | 'bad-checkpoint' // malformed safetensors, index, config or tokenizer; missing tensor; shape mismatch
  | 'unsupported-architecture' // model_type, MoE, sliding window, head_dim the kernels cannot take
  | 'unsupported-dtype' // tensor dtype or engine dtype not available
  | 'gated' // hub answered 401/403
  | 'not-found' // hub answered 404, or a picked folder lacks a file
  | 'network' // fetch failed / offline
  | 'timeout' // a Hub request got no answer, or its body stalled, within the stated time
  | 'integrity' // downloaded bytes do not match the hash the Hub or the cache states
  | 'bad-input' // route/silence/prompt/options invalid
  | 'not-loaded'
  | 'nan-logits' // NaN or Inf in logits
  | 'device-lost' // WebGPU device lost; create a fresh engine
  | 'worker-crashed' // the engine worker died; create a fresh engine
  | 'out-of-memory'
  | 'cancelled'
  | 'internal';

/** The one error type the engine throws. `code` survives the worker boundary (see workers/). */
export class EngineError extends Error {
  readonly code: EngineErrorCode;
  /** The row of the engine call it concerns (an index into that call's rows), when it is one row's. */
  readonly row?: number;
  constructor(code: EngineErrorCode, message: string, row?: number) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    if (row !== undefined) this.row = row;
  }
}

export function isEngineError(e: unknown): e is EngineError {
  return e instanceof Error && e.name === 'EngineError' && typeof (e as EngineError).code === 'string';
}

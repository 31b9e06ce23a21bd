// What the orchestrator (scripts/bench-peer.ts) hands each side, and what each side prints: one
// JSON object, the same fields from reachlab-side.ts and torch_side.py.

import type { OrtRuntime } from '../../src/engine/types.ts';

export type Side = 'reachlab' | 'pytorch';

export interface SideSpec {
  /** ReachLab: the execution provider (default wasm; native: cpu; bench:gpu: webgpu). PyTorch: the device (default cpu). */
  ep?: 'wasm' | 'webgpu' | 'cpu';
  /** ReachLab: the onnxruntime build that runs ep (engine/ort.ts defaultRuntime when omitted). */
  runtime?: OrtRuntime;
  device?: 'cpu' | 'cuda';
  /** The checkpoint folder (safetensors, Hugging Face layout). */
  dir: string;
  /** ReachLab: an engine dtype; PyTorch: 'f32', 'bf16' (CUDA) or 'int8' (dynamic, nn.Linear). */
  mode: string;
  threads: number;
  /** Token ids of each timed prompt; the first is also the decode and route prompt. */
  prompts: number[][];
  /** Timed prefills of each prompt after its untimed first one. */
  prefillReps: number;
  decodeTokens: number;
  /** Layer routes of the audit workload. */
  routes: number[][];
  routeTokens: number;
  maxSeqLen: number;
}

/** What ReachLab's batched route workload computed (PyTorch's loop computes `unshared`). */
export interface RouteWork {
  /** session.run() calls per route (attempt). */
  runs_per_attempt: number;
  /** Token positions through a layer per route (EngineStats.layerTokens). */
  layer_tokens_per_attempt: number;
  /** The same without sharing: each route's length × (prompt + tokens − 1). */
  unshared_layer_tokens_per_attempt: number;
}

export interface SideRun {
  side: Side;
  mode: string;
  threads: number | null;
  versions: Record<string, string | null>;
  /** From safetensors on disk (page cache warm) to ready to generate. */
  load_s: number;
  /** Prompt of `tokens` through the full model into a cache, and its first token: `s` the median
   *  of the timed runs, `first_s` the untimed first run of that length (after one 8-token warm-up:
   *  what the first prompt after load pays for buffers the runtime grows once). */
  prefill: { tokens: number; s: number; first_s: number }[];
  /** Greedy: generate(1) and generate(1 + tokens) after the first prompt; ids of the longer one. */
  decode: { tokens: number; one_s: number; many_s: number; ids: number[]; work?: DecodeWork };
  /** Every route's `tokens` greedy tokens after the first prompt (ReachLab one batch, PyTorch a loop). */
  routes: { count: number; tokens: number; s: number; ids: number[][]; work?: RouteWork };
  peak_rss_mb: number;
  /** The GPU the side ran on (ReachLab: the WebGPU adapter; PyTorch: the CUDA device name). */
  adapter?: string | null;
  peak_gpu_mb?: number | null;
}

/** What one decoded token of one row cost ReachLab (the decode's tokens after the first). */
export interface DecodeWork {
  runs_per_token: number;
  /** GPU compute dispatches (WebGPU: counted by wrapping Dawn's dispatch calls); null on WASM. */
  dispatches_per_token: number | null;
  upload_bytes_per_token: number;
  download_bytes_per_token: number;
}

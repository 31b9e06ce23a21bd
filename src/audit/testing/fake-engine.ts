// A scripted Engine for unit tests: the answer to each (prompt, route, silence set, sampling) is a
// function the test writes, so budgets, first-success indices, estimators and selectors can be
// checked against hand-computed values. Tokens are UTF-16 code units (encode/decode are exact).

import type {
  ChatMessage,
  CheckpointSource,
  LoadOptions,
  LoadProgress,
  Engine,
  ForwardRow,
  GenerateOptions,
  GenerateResult,
  GenerateRow,
  ModelInfo,
  Sampling,
  ScoreRow,
  TemplateVars,
} from '../../engine/types';

export interface FakeQuery {
  prompt: string;
  route: number[];
  silence: number[];
  sampling: Sampling;
}

/** A scripted response: the text, and optionally the log-prob given to each of its tokens. */
export type FakeAnswer = string | { text: string; logprob?: number };

export interface FakeEngineOptions {
  numLayers: number;
  answer: (q: FakeQuery) => FakeAnswer;
  /** Log-prob of `continuation` after the prompt (score); default: −1 per character. */
  score?: (q: Omit<FakeQuery, 'sampling'> & { continuation: string }) => number;
  fingerprint?: string;
  /** The model's name (default "fake"). */
  name?: string;
  dtype?: ModelInfo['dtype'];
  /** Milliseconds each generate or score call takes (paces a run, so it can be paused or cancelled). */
  delayMs?: number;
}

export interface FakeCall {
  method: 'generate' | 'score';
  rows: number;
  opts?: GenerateOptions;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const encode = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const decode = (ids: number[]) => String.fromCharCode(...ids);

export class FakeEngine implements Engine {
  readonly calls: FakeCall[] = [];
  /** Every generate row in call order, decoded, for tests that inspect what was asked. */
  readonly generated: FakeQuery[] = [];
  private readonly o: FakeEngineOptions;
  private readonly modelInfo: ModelInfo;

  constructor(o: FakeEngineOptions) {
    this.o = o;
    const L = o.numLayers;
    this.modelInfo = {
      fingerprint: o.fingerprint ?? `fake-${L}`,
      name: o.name ?? 'fake',
      modelType: 'llama',
      numLayers: L,
      vocabSize: 65536,
      config: {
        modelType: 'llama',
        numLayers: L,
        hiddenSize: 8,
        intermediateSize: 16,
        numHeads: 1,
        numKvHeads: 1,
        headDim: 8,
        vocabSize: 65536,
        rmsNormEps: 1e-6,
        ropeTheta: 10000,
        ropeScaling: null,
        maxPositionEmbeddings: 4096,
        tieWordEmbeddings: true,
        attentionBias: false,
        qkNorm: false,
        bosTokenId: null,
        eosTokenIds: [],
      },
      ep: 'wasm',
      dtype: o.dtype ?? 'f32',
      hasChatTemplate: true,
      eosTokenIds: [],
      maxSeqLen: 4096,
      weightBytes: 0,
    };
  }

  /** Loads nothing: the scripted model is there already (a test's subclass may load otherwise). */
  async load(_source?: CheckpointSource, _opts?: LoadOptions, _onProgress?: (p: LoadProgress) => void): Promise<ModelInfo> {
    return this.modelInfo;
  }
  async info(): Promise<ModelInfo> {
    return this.modelInfo;
  }
  async encode(text: string): Promise<number[]> {
    return encode(text);
  }
  async decode(ids: number[]): Promise<string> {
    return decode(ids);
  }
  async applyChatTemplate(messages: ChatMessage[], vars: TemplateVars): Promise<string> {
    return messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + (vars.add_generation_prompt ? '<|im_start|>assistant\n' : '');
  }
  async logits(): Promise<Float32Array[]> {
    throw new Error('FakeEngine.logits is not scripted');
  }

  private check(row: ForwardRow) {
    if (row.route.length === 0 || row.route.some((l) => !Number.isInteger(l) || l < 0 || l >= this.o.numLayers)) {
      throw new Error(`FakeEngine: bad route ${row.route.join(',')}`);
    }
  }

  async generate(rows: GenerateRow[], opts: GenerateOptions): Promise<GenerateResult[]> {
    this.calls.push({ method: 'generate', rows: rows.length, opts });
    if (this.o.delayMs) await sleep(this.o.delayMs);
    return rows.map((row) => {
      this.check(row);
      const q: FakeQuery = { prompt: decode(row.promptIds), route: row.route.slice(), silence: row.silence.slice(), sampling: row.sampling };
      this.generated.push(q);
      const a = this.o.answer(q);
      let text = typeof a === 'string' ? a : a.text;
      const lp = typeof a === 'string' ? -0.5 : (a.logprob ?? -0.5);
      let stop: GenerateResult['stop'] = 'eos';
      for (const s of opts.stopStrings ?? []) {
        const at = text.indexOf(s);
        if (at >= 0) [text, stop] = [text.slice(0, at), 'stop-string'];
      }
      if (text.length > opts.maxNewTokens) [text, stop] = [text.slice(0, opts.maxNewTokens), 'max-tokens'];
      const tokens = encode(text);
      return { tokens, text, tokenLogprobs: tokens.map(() => lp), stop };
    });
  }

  async score(rows: ScoreRow[]): Promise<number[][]> {
    this.calls.push({ method: 'score', rows: rows.length });
    if (this.o.delayMs) await sleep(this.o.delayMs);
    return rows.map((row) => {
      this.check(row);
      const prompt = decode(row.promptIds);
      return row.continuations.map((c) => {
        const continuation = decode(c);
        return this.o.score ? this.o.score({ prompt, route: row.route.slice(), silence: row.silence.slice(), continuation }) : -continuation.length;
      });
    });
  }

  async cancel(): Promise<void> {}
  async dispose(): Promise<void> {}

  /** Attempts (rows) requested so far. */
  get rowsRequested(): number {
    return this.calls.reduce((s, c) => s + c.rows, 0);
  }
}

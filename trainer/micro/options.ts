// Training options of the micro model: defaults (the shipped model) and `--name=value` overrides.

export interface TrainOptions {
  seed: number;
  level: string;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  steps: number;
  batchSize: number;
  lr: number;
  warmupSteps: number;
  /** Final learning rate as a share of the peak (cosine decay). */
  minLrRatio: number;
  weightDecay: number;
  gradClip: number;
  /** Probability that a step trains on a random one-edit blocks route instead of the default
   *  (LayerDrop-style route augmentation). 0 for the shipped model: it trains on the default route only. */
  routeProb: number;
  /** Largest skipped/repeated block, as in the blocks route space. */
  maxBlock: number;
  /** Train-split problems held back from training, for the stopping rule. */
  validationQuestions: number;
  /** Stop at the first eval step whose validation greedy accuracy reaches this (0: run all steps). */
  stopAtAccuracy: number;
  logEvery: number;
  evalEvery: number;
  /** Held-out questions for the curve printed during training. */
  evalCurveQuestions: number;
  /** Held-out questions decoded under every route for the reachability estimate (all of test when ≥ its size). */
  reachQuestions: number;
  budget: number;
  backend: 'wasm' | 'cpu';
  /** Output folder, relative to the repository root. */
  out: string;
}

export const DEFAULT_OPTIONS: TrainOptions = {
  seed: 20241,
  level: 'arith-2d',
  hiddenSize: 64,
  intermediateSize: 128,
  numLayers: 6,
  numHeads: 4,
  numKvHeads: 2,
  steps: 4000,
  batchSize: 64,
  lr: 5e-3,
  warmupSteps: 50,
  minLrRatio: 0.1,
  weightDecay: 0.1,
  gradClip: 1,
  routeProb: 0,
  maxBlock: 4,
  validationQuestions: 512,
  stopAtAccuracy: 0.65,
  logEvery: 25,
  evalEvery: 100,
  evalCurveQuestions: 256,
  reachQuestions: 600,
  budget: 32,
  backend: 'wasm',
  out: 'public/hub/reachlab/micro-arith/resolve/main',
};

/** Applies `--name=value` arguments; unknown names and unparsable values are errors. */
export function parseOptions(argv: readonly string[]): TrainOptions {
  const opts: TrainOptions = { ...DEFAULT_OPTIONS };
  const record = opts as unknown as Record<string, unknown>;
  for (const arg of argv) {
    const m = /^--([A-Za-z]+)=(.*)$/.exec(arg);
    if (!m) throw new Error(`train-micro: expected --name=value, got "${arg}"`);
    const [, name, raw] = m;
    if (!(name in DEFAULT_OPTIONS)) throw new Error(`train-micro: unknown option --${name} (known: ${Object.keys(DEFAULT_OPTIONS).join(', ')})`);
    if (typeof record[name] === 'number') {
      const v = Number(raw);
      if (!Number.isFinite(v)) throw new Error(`train-micro: --${name} needs a number, got "${raw}"`);
      record[name] = v;
    } else record[name] = raw;
  }
  if (opts.backend !== 'wasm' && opts.backend !== 'cpu') throw new Error(`train-micro: --backend must be wasm or cpu, got "${opts.backend}"`);
  if (!(opts.stopAtAccuracy >= 0 && opts.stopAtAccuracy <= 1)) throw new Error(`train-micro: --stopAtAccuracy must be in [0, 1], got ${opts.stopAtAccuracy}`);
  if (!(opts.routeProb >= 0 && opts.routeProb <= 1)) throw new Error(`train-micro: --routeProb must be in [0, 1], got ${opts.routeProb}`);
  return opts;
}

// The shipped built-in micro model (public/hub/reachlab/micro-arith/resolve/main): files, sizes,
// config and tensor shapes, tokenizer, and — through the real engine, loaded like a Hub
// checkpoint — the greedy answers the training script's own tfjs evaluation recorded.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksSpace, defaultCondition, loadTask, randomRoutes, runAudit } from '../src/audit/index';
import { generateArith, arithText } from '../src/audit/tasks/arith';
import { createEngine } from '../src/engine/engine';
import type { Engine, GenerateRow } from '../src/engine/types';

const DIR = join(__dirname, '../public/hub/reachlab/micro-arith/resolve/main');
const FILES = ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'README.md', 'eval_results.json'];
const readJson = (f: string) => JSON.parse(readFileSync(join(DIR, f), 'utf8'));

interface Sample {
  question: string;
  target: string;
  output: string;
  correct: boolean;
  margin: number;
}
interface AuditNumbers {
  run_key: string;
  n: number;
  realized: number;
  reachable: number;
  ceiling: number;
  counts: { realized: number; reachable: number; ceiling: number };
}
interface EvalResults {
  realized: { n: number; accuracy: number };
  random_routes: { budget: number; realized: number; reachable: number; ceiling: number };
  /** The training script's audit of the exported checkpoint by ReachLab's engine (quoted on the card). */
  audit: { questions: number; question_seed: number; budget: number; seed: number; random_routes: AuditNumbers; sampling: AuditNumbers };
  greedy_samples: Sample[];
  route_samples: { route: number[]; samples: Sample[] }[];
}

/** A greedy step closer than this to a tie could flip between float implementations. */
const SAFE_MARGIN = 0.05;

describe('shipped micro model files', () => {
  it('are all there and total at most 5 MB', () => {
    const total = FILES.reduce((n, f) => n + statSync(join(DIR, f)).size, 0);
    expect(total).toBeLessThanOrEqual(5 * 1024 * 1024);
  });

  it('config.json is a bias-free llama whose tensors match it name for name and shape for shape', () => {
    const cfg = readJson('config.json');
    expect(cfg.model_type).toBe('llama');
    expect(cfg.architectures).toEqual(['LlamaForCausalLM']);
    expect(cfg.attention_bias).toBe(false);
    expect(cfg.mlp_bias).toBe(false);
    expect(cfg.head_dim % 16).toBe(0);
    expect(cfg.num_attention_heads * cfg.head_dim).toBe(cfg.hidden_size);
    const bytes = readFileSync(join(DIR, 'model.safetensors'));
    const n = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
    const H = cfg.hidden_size;
    const I = cfg.intermediate_size;
    const q = cfg.num_attention_heads * cfg.head_dim;
    const kv = cfg.num_key_value_heads * cfg.head_dim;
    const want: Record<string, number[]> = { 'model.embed_tokens.weight': [cfg.vocab_size, H], 'model.norm.weight': [H] };
    if (!cfg.tie_word_embeddings) want['lm_head.weight'] = [cfg.vocab_size, H];
    for (let i = 0; i < cfg.num_hidden_layers; i++) {
      const p = `model.layers.${i}`;
      Object.assign(want, {
        [`${p}.input_layernorm.weight`]: [H],
        [`${p}.post_attention_layernorm.weight`]: [H],
        [`${p}.self_attn.q_proj.weight`]: [q, H],
        [`${p}.self_attn.k_proj.weight`]: [kv, H],
        [`${p}.self_attn.v_proj.weight`]: [kv, H],
        [`${p}.self_attn.o_proj.weight`]: [H, q],
        [`${p}.mlp.gate_proj.weight`]: [I, H],
        [`${p}.mlp.up_proj.weight`]: [I, H],
        [`${p}.mlp.down_proj.weight`]: [H, I],
      });
    }
    const { __metadata__: _meta, ...tensors } = header;
    expect(Object.keys(tensors).sort()).toEqual(Object.keys(want).sort());
    let end = 0;
    for (const [name, t] of Object.entries(tensors) as [string, { dtype: string; shape: number[]; data_offsets: [number, number] }][]) {
      expect(t.dtype, name).toBe('F16');
      expect(t.shape, name).toEqual(want[name]);
      expect(t.data_offsets[1] - t.data_offsets[0], name).toBe(2 * t.shape.reduce((a, b) => a * b, 1));
      end = Math.max(end, t.data_offsets[1]);
    }
    expect(bytes.length).toBe(8 + n + end);
  });

  it('tokenizer.json loads with @huggingface/tokenizers: one token per character, eos as in the config', () => {
    const cfg = readJson('config.json');
    const tok = new Tokenizer(readJson('tokenizer.json'), readJson('tokenizer_config.json'));
    const questions = generateArith('arith-2d', 'test', 50, 7).map(arithText);
    for (const text of [...questions, '12-34=-22', '7 * 8 = 56\n']) {
      const enc = tok.encode(text, { add_special_tokens: false });
      expect(enc.tokens.length, text).toBe(text.length);
      expect(tok.decode(enc.ids), text).toBe(text);
      expect(Math.max(...enc.ids)).toBeLessThan(cfg.vocab_size);
    }
    const eos = readJson('tokenizer_config.json').eos_token;
    expect(tok.encode(eos, { add_special_tokens: false }).ids).toEqual([cfg.eos_token_id]);
    expect(readJson('generation_config.json').eos_token_id).toBe(cfg.eos_token_id);
  });

  it('the model card states the license and the numbers of eval_results.json', () => {
    const card = readFileSync(join(DIR, 'README.md'), 'utf8');
    const ev = readJson('eval_results.json') as EvalResults;
    expect(card).toMatch(/^---\nlicense: mit\n/);
    expect(card).toContain(`${(100 * ev.realized.accuracy).toFixed(1)}%`);
    expect(card).toContain(`${(100 * ev.random_routes.reachable).toFixed(1)}%`);
    // the audit of the exported checkpoint (ReachLab's engine), with its counts (bold markers aside)
    const plain = card.replaceAll('**', '');
    const { budget } = ev.audit;
    for (const a of [ev.audit.random_routes, ev.audit.sampling]) {
      expect(plain).toContain(`reachable@${budget} ${(100 * a.reachable).toFixed(1)}% (${a.counts.reachable} of ${a.n})`);
      expect(plain).toContain(`ceiling@${budget} ${(100 * a.ceiling).toFixed(1)}% (${a.counts.ceiling} of ${a.n})`);
    }
    expect(plain).toContain(`realized ${(100 * ev.audit.random_routes.realized).toFixed(1)}% (${ev.audit.random_routes.counts.realized} of ${ev.audit.random_routes.n})`);
    // trained without route augmentation: the card says so and says nothing else about training routes
    expect(card).toContain('No route augmentation: every training step runs the default route');
    // the stopping rule's target: failures to study
    expect(ev.realized.accuracy).toBeGreaterThanOrEqual(0.4);
    expect(ev.realized.accuracy).toBeLessThanOrEqual(0.85);
    // some failures are reached by a route: ceiling above realized (the tfjs estimate over all 36
    // one-edit routes); reachable@32 alone is below realized for this model (70.6% vs 76.3%)
    expect(ev.random_routes.ceiling - ev.random_routes.realized).toBeGreaterThanOrEqual(0.1);
  });
});

describe('shipped micro model through the engine', () => {
  let engine: Engine;
  const ev = readJson('eval_results.json') as EvalResults;
  beforeAll(async () => {
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: DIR }, { ep: 'wasm', dtype: 'f32', maxSeqLen: 32 });
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  const greedy = async (questions: string[], route: number[]) => {
    const rows: GenerateRow[] = [];
    for (const q of questions) rows.push({ promptIds: await engine.encode(q), route, silence: [], sampling: { kind: 'greedy' } });
    return engine.generate(rows, { maxNewTokens: 5 });
  };

  // 17-53= is a test-split question the tfjs evaluation answers correctly by the widest margin of its
  // first 100 (1.8 logits).
  it('answers a known held-out question correctly, stopping at eos', async () => {
    const [r] = await greedy(['17-53='], [0, 1, 2, 3, 4, 5]);
    expect(r.text).toBe('-36');
    expect(r.stop).toBe('eos');
  });

  it('gives the greedy outputs the tfjs evaluation recorded, on the default route and on skip/repeat routes', async () => {
    const info = await engine.info();
    const L = info!.numLayers;
    const sets = [{ route: Array.from({ length: L }, (_, i) => i), samples: ev.greedy_samples }, ...ev.route_samples];
    for (const { route, samples } of sets) {
      const safe = samples.filter((s) => s.margin > SAFE_MARGIN);
      expect(safe.length, `route ${route}`).toBeGreaterThanOrEqual(samples.length / 2);
      const results = await greedy(safe.map((s) => s.question), route);
      const got = results.map((r) => r.text);
      expect(got, `route ${route}`).toEqual(safe.map((s) => s.output));
    }
  });
});

// The card's audit, rerun as the headless audit runner measures it:
// `npm run -s audit -- --model public/hub/reachlab/micro-arith/resolve/main --task builtin:arith-2d
//  --questions 200 --probe random-routes --space blocks --budget 32 --seed 1`
// Issue 6 also asked for reachable@32 ≥ realized + 10 points; the model trained without route
// augmentation (issue 18) does not have that (reachable@32 54.0% < realized 75.0%): what it has is
// 27 of the 50 failures reached by a random route (ceiling@32 88.5%).
describe('shipped micro model under the audit core', () => {
  it('gives the counts the card quotes: realized 40–85%, and random routes reach failures the deployment misses', async () => {
    const engine = createEngine();
    const ev = readJson('eval_results.json') as EvalResults;
    try {
      const info = await engine.load({ kind: 'fs', dir: DIR }, { ep: 'wasm', dtype: 'f32' });
      const task = await loadTask('builtin:arith-2d', { questions: 200 });
      const res = await runAudit(engine, {
        task,
        condition: defaultCondition(task.spec, 'f32'),
        probes: [{ probe: 'deployment' }, randomRoutes(blocksSpace(info.numLayers, { maxBlock: 4 }), 32, 1, false)],
        questions: 200,
      });
      const routes = res.summary.probes.find((p) => p.probe === 'random-routes')!;
      expect(res.summary.n).toBe(200);
      expect({ realized: res.summary.realized_count, reachable: routes.counts.reachable, ceiling: routes.counts.ceiling }).toEqual(ev.audit.random_routes.counts);
      expect(res.summary.realized).toBeGreaterThanOrEqual(0.4);
      expect(res.summary.realized).toBeLessThanOrEqual(0.85);
      expect((routes.ceiling as number) - res.summary.realized).toBeGreaterThanOrEqual(0.1);
    } finally {
      await engine.dispose();
    }
  });
});

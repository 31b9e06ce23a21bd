// The model families the app and studies/*.json name, as their Hub repos are laid out: each real
// config.json and generation_config.json (test/fixtures/model-families/configs.json, written from
// the Hub's values) parses to the architecture it states; configs the engine cannot run are refused
// from config.json alone, naming the field, before a tokenizer or weight byte is asked for; and
// two-layer copies of four families (the real config with smaller widths, generated BF16 weights,
// the real tokenizer files) load, audit with their chat template and agree with the float64
// reference forward pass as the engine self-test checks it.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../../scripts/lib/make-checkpoint.ts';
import { startHubServer } from '../../test/hub-server.ts';
import { realTokenizerDir } from '../../test/real-tokenizers.ts';
import { defaultCondition } from '../audit/condition.ts';
import { buildPrompt } from '../audit/prompt.ts';
import { runAudit } from '../audit/run.ts';
import type { TaskSpec } from '../audit/types.ts';
import { openCheckpoint } from './checkpoint.ts';
import { maxAbsDiff } from './conformance.ts';
import { parseConfig } from './config.ts';
import { createEngine } from './engine.ts';
import { loadReference } from './reference.ts';
import { openReader } from './sources/reader.ts';
import type { ModelType } from './types.ts';
import { sha256Hex } from '../util/hash.ts';

type Json = Record<string, unknown>;
interface Family { config: Json; generation_config: Json; tokenizer: 'qwen2_5' | 'qwen3' | 'llama3_2' | null }
const fixture = JSON.parse(readFileSync(new URL('../../test/fixtures/model-families/configs.json', import.meta.url), 'utf8')) as {
  loads: Record<string, Family>;
  refused: Record<string, { config: Json; field: string }>;
};
const ids = (v: unknown): number[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]) as number[];

const tmp = mkdtempSync(join(tmpdir(), 'reachlab-families-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('real configs of the named model families', () => {
  it.each(Object.entries(fixture.loads))('%s parses to the architecture its config states', (_, f) => {
    const c = f.config;
    const m = parseConfig(c, f.generation_config);
    expect(m).toMatchObject({
      modelType: c.model_type,
      numLayers: c.num_hidden_layers,
      hiddenSize: c.hidden_size,
      numKvHeads: c.num_key_value_heads,
      headDim: (c.head_dim as number | undefined) ?? (c.hidden_size as number) / (c.num_attention_heads as number),
      vocabSize: c.vocab_size,
      tieWordEmbeddings: c.tie_word_embeddings,
      attentionBias: c.model_type === 'qwen2',
      qkNorm: c.model_type === 'qwen3',
      maxPositionEmbeddings: c.max_position_embeddings,
    });
    expect(new Set(m.eosTokenIds)).toEqual(new Set([...ids(c.eos_token_id), ...ids(f.generation_config.eos_token_id)]));
    expect(m.ropeScaling?.type ?? null).toBe((c.rope_scaling as Json | null | undefined)?.rope_type === 'llama3' ? 'llama3' : null);
  });

  it.each(Object.entries(fixture.refused))('%s is refused from config.json, naming the field, before anything else is read', async (name, r) => {
    const dir = join(tmp, `refused-${name.replace(/[^a-z0-9]+/gi, '-')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify(r.config));
    // the rest of a repo, so nothing but the config can be why it is refused
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'model.safetensors']) writeFileSync(join(dir, f), '{}');
    const hub = await startHubServer({ repos: { 'org/model': dir } });
    try {
      const err = await openCheckpoint(openReader({ kind: 'hub', repo: 'org/model', endpoint: hub.url })).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'unsupported-architecture', message: expect.stringContaining(r.field) });
      const files = hub.requests.map((q) => decodeURIComponent(q.path)).filter((p) => p.includes('/resolve/'));
      expect(files.every((p) => /\/(config|generation_config)\.json$/.test(p)), files.join(', ')).toBe(true);
    } finally {
      await hub.close();
    }
  });
});

/** The four two-layer copies: one per architecture the families use (DeepSeek-R1-Distill's own
 *  tokenizer is not packaged: the Qwen2.5 files stand in for it, its untied head is what is tested). */
const REDUCED: { repo: string; tokenizer: 'qwen2_5' | 'qwen3' | 'llama3_2'; thinking?: boolean }[] = [
  { repo: 'Qwen/Qwen2.5-0.5B-Instruct', tokenizer: 'qwen2_5' },
  { repo: 'Qwen/Qwen3-0.6B', tokenizer: 'qwen3', thinking: false },
  { repo: 'meta-llama/Llama-3.2-1B-Instruct', tokenizer: 'llama3_2' },
  { repo: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B', tokenizer: 'qwen2_5' },
];
const NARROW = { num_hidden_layers: 2, hidden_size: 64, intermediate_size: 128, num_attention_heads: 4, num_key_value_heads: 2 };

const task: TaskSpec = { id: 'hub:gsm8k', name: 'GSM8K', answerFormat: 'numeric', promptTemplate: 'Question: {{question}}\nAnswer:', metadata: { version: 1 }, numTest: 1, numTrain: 0 };

describe('two-layer copies load, audit with the chat template and pass the self-test comparison', () => {
  it.each(REDUCED)('$repo', async ({ repo, tokenizer, thinking }) => {
    const f = fixture.loads[repo];
    const c = f.config;
    const dir = join(tmp, repo.replace('/', '--'));
    const headDim = c.head_dim === undefined ? {} : { head_dim: 16 };
    writeCheckpoint(dir, realTokenizerDir(tokenizer), {
      modelType: c.model_type as ModelType, layers: 2, hidden: 64, heads: 4, kvHeads: 2, headDim: 16, intermediate: 128,
      vocab: c.vocab_size as number, dtype: 'BF16', tied: c.tie_word_embeddings as boolean,
    });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...c, ...NARROW, ...headDim }));
    writeFileSync(join(dir, 'generation_config.json'), JSON.stringify(f.generation_config));
    cpSync(join(realTokenizerDir(tokenizer), 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));

    const engine = createEngine();
    try {
      const info = await engine.load({ kind: 'fs', dir }, { ep: 'wasm', maxSeqLen: 256 });
      expect(info.chatTemplateFile).toBe('tokenizer_config.json');
      expect(new Set(info.eosTokenIds)).toEqual(new Set([...ids(c.eos_token_id), ...ids(f.generation_config.eos_token_id)]));

      const condition = defaultCondition(task, 'f32', {
        chatTemplate: true, maxNewTokens: 3,
        templateVars: { add_generation_prompt: true, date_string: '26 Jul 2024', ...(thinking === undefined ? {} : { enable_thinking: thinking }) },
      });
      const doc = { id: 'q1', text: 'What is 2 + 3?', target: '5' };
      const prompt = await buildPrompt(engine, condition, doc, []);
      if (thinking === false) expect(prompt.endsWith('<think>\n\n</think>\n\n')).toBe(true);
      const res = await runAudit(engine, { task: { spec: task, test: [doc], train: [] }, condition, probes: [{ probe: 'deployment' }] });
      expect(res.records).toHaveLength(1);
      expect(res.records[0].prompt_hash).toBe(await sha256Hex(prompt));
      expect(res.records[0].resps[0]).toBe(res.records[0].attempts[0].response);

      // the self-test's comparison: the engine's logits against the float64 forward pass
      const promptIds = await engine.encode(prompt);
      const ref = await loadReference(await openCheckpoint(openReader({ kind: 'fs', dir })));
      const route = [0, 1];
      const [got] = await engine.logits({ promptIds, route, silence: [] });
      const want = ref.logits(promptIds, route, []).at(-1)!;
      expect(maxAbsDiff(got, want)).toBeLessThan(0.002);
    } finally {
      await engine.dispose();
    }
  }, 120_000);
});

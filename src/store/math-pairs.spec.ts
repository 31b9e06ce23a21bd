// studies/math-pairs.json end to end on stand-ins: each of its four checkpoints a two-layer Qwen2
// generated here with the real Qwen2.5 tokenizer, served under its own repo id by the local Hub
// server, MATH-500 rows from the local rows-API server; the app's study runner and the study CLI
// report the same numbers. The plan runs as written but smaller (questions, budget, new tokens,
// dtype): those are the GPU's.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../../scripts/lib/make-checkpoint.ts';
import { runStudy } from '../../scripts/study-cli.ts';
import { math500Rows } from '../../test/fixtures/math-rows.ts';
import { startHubServer, type HubServer } from '../../test/hub-server.ts';
import { realTokenizerDir } from '../../test/real-tokenizers.ts';
import { startRowsServer, type RowsServer } from '../../test/rows-server.ts';
import { loadTask } from '../audit/index.ts';
import { normalizePlan, studyModels } from '../audit/study-plan.ts';
import { createEngine } from '../engine/engine.ts';
import type { Engine } from '../engine/types.ts';
import { coreAudit, type CoreAuditInput } from './core-audit.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import { studyTaskOptions } from './study.ts';
import { StudyRunner } from './study-runner.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';

const PLAN = JSON.parse(readFileSync(join(__dirname, '../../studies/math-pairs.json'), 'utf8'));
const SMALL = { ...PLAN, questions: 3, budget: 2, max_new_tokens: 3, dtype: 'f32' };
const plan = normalizePlan(SMALL);
let tmp: string;
let hub: HubServer;
let rows: RowsServer;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'reachlab-math-pairs-'));
  const repos: Record<string, string> = {};
  for (const [i, repo] of studyModels(plan).entries()) {
    const dir = join(tmp, repo.replace('/', '--'));
    writeCheckpoint(dir, realTokenizerDir('qwen2_5'), { modelType: 'qwen2', layers: 2, hidden: 64, heads: 4, kvHeads: 2, headDim: 16, intermediate: 128, vocab: 151936, dtype: 'BF16', tied: true }, 11 + i);
    cpSync(join(realTokenizerDir('qwen2_5'), 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
    writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: 151643 }));
    repos[repo] = dir;
  }
  hub = await startHubServer({ repos });
  rows = await startRowsServer({ 'HuggingFaceH4/MATH-500/default/test': math500Rows() });
}, 120_000);
afterAll(async () => {
  await hub?.close();
  await rows?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function openEngine(ref: string): Promise<Engine> {
  const engine = createEngine();
  await engine.load({ kind: 'hub', repo: ref, revision: 'main', endpoint: hub.url }, { ep: 'wasm', dtype: plan.dtype, maxSeqLen: 512 });
  return engine;
}
const task = (spec: string) => loadTask(spec, { ...studyTaskOptions(plan), rowsEndpoint: rows.endpoint });

describe('studies/math-pairs.json', () => {
  it('names the two zero-RL pairs on MATH-500 under a recipe, with random routes, sampling and the scan at one budget', () => {
    const full = normalizePlan(PLAN);
    expect(full.pairs).toEqual([
      { base: 'Qwen/Qwen2.5-0.5B', trained: 'hkust-nlp/Qwen-2.5-0.5B-SimpleRL-Zoo' },
      { base: 'Qwen/Qwen2.5-Math-1.5B', trained: 'sail/Qwen2.5-Math-1.5B-Oat-Zero' },
    ]);
    expect(full).toMatchObject({ tasks: ['hub:math-500'], scan: true, questions: 500, budget: 32, recipe: 'qwen2.5-math-cot' });
    expect(full.probes.map((p) => p.probe)).toEqual(['random-routes', 'sampling']);
  });

  it('runs on the stand-ins in the app and in the CLI with identical reports', async () => {
    const engines: Engine[] = [];
    const open = async (ref: string) => {
      const e = await openEngine(ref);
      engines.push(e);
      return e;
    };
    try {
      const first = await open(plan.models[0]);
      const controller = new RunController<CoreAuditInput>({ store: new MemoryRunStore(), engine: first, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
      const runner = new StudyRunner(controller, {
        useModel: async (ref) => {
          const engine = ref === plan.models[0] ? first : await open(ref);
          controller.setEngine(engine);
          return { engine, info: (await engine.info())!, source: `hub:${ref}` };
        },
        loadTask: (spec) => task(spec),
        appVersion: 'test',
      });
      const app = await runner.run(SMALL);
      const cli = await runStudy(plan, null, { openEngine: open, loadTask: (spec) => task(spec), readRun: () => null, writeRun: () => {}, log: () => {}, appVersion: 'test' });
      const { computed, reused: _r, ...cliReport } = cli;
      expect(app).toEqual(cliReport);
      expect(app.missing).toEqual([]);
      expect(computed).toBe(studyModels(plan).length * 3);
      expect(app.settings).toHaveLength(4);
      expect(app.f3.pairs.map((p) => [p.base, p.trained])).toEqual(plan.pairs.map((p) => [p.base, p.trained]));
      for (const s of app.settings) expect(s.questions).toBe(3);
    } finally {
      for (const e of engines) await e.dispose();
    }
  }, 600_000);
});

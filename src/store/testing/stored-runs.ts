// Runs of the numeric, mc-letter and exact formats made with the audit core on the scripted engine
// and exported as run files. The files in test/fixtures/stored-runs/ were written by this module at
// commit 93e0a85 (before answer formats had versions of their own):
//   tsx src/store/testing/stored-runs.ts OUT_DIR
// src/audit/formats/stored-runs.spec.ts makes the same runs now and checks that their condition
// keys, run keys, record keys and decoys are the stored ones.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultCondition } from '../../audit/condition.ts';
import { FakeEngine, type FakeQuery } from '../../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask, ProbeSpec, TaskSpec } from '../../audit/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from '../core-audit.ts';
import { exportRunJson } from '../export.ts';
import { MemoryRunStore } from '../memory-store.ts';
import { RunController } from '../run-controller.ts';
import { InProcessLocks, TabLocks } from '../tab-lock.ts';

interface StoredRunSetup {
  name: string;
  spec: TaskSpec;
  docs: Doc[];
  /** The scripted model: what it answers to a question under a route or sample. */
  answer: (q: FakeQuery) => string;
}

const spec = (id: string, answerFormat: TaskSpec['answerFormat'], promptTemplate: string, mcMode?: 'generate'): TaskSpec => ({
  id,
  name: id,
  answerFormat,
  ...(mcMode ? { mcMode } : {}),
  promptTemplate,
  metadata: { version: 1 },
  numTest: 4,
  numTrain: 0,
});

/** A different answer per route and sample, so that probes reach some golds and some decoys. */
const varied = (q: FakeQuery, answers: string[]) => answers[(q.route.reduce((s, x, i) => s + x * (i + 1), 0) + (q.sampling.kind === 'sample' ? q.sampling.seed : 0)) % answers.length];

export const STORED_RUN_SETUPS: StoredRunSetup[] = [
  {
    name: 'numeric',
    spec: spec('test:stored-numeric', 'numeric', 'Question: {{question}}\nAnswer:'),
    docs: [
      { id: 'n1', text: 'What is 6 * 7?', target: '42' },
      { id: 'n2', text: 'What is 1 / 4?', target: '1/4' },
      { id: 'n3', text: 'What is 3 - 10?', target: '-7' },
      { id: 'n4', text: 'What is 2.5 * 2?', target: '5' },
    ],
    answer: (q) => varied(q, ['The answer is 42.', 'so 0.25', '\\boxed{-7}', 'It is 7.', '#### 45', 'answer: 9/4', '-5']),
  },
  {
    name: 'mc-letter',
    spec: spec('test:stored-mc', 'mc-letter', '{{question}}\n{{choices}}\nAnswer:', 'generate'),
    docs: [
      { id: 'm1', text: 'Capital of France?', target: 'B', choices: ['Rome', 'Paris', 'Oslo', 'Bern'] },
      { id: 'm2', text: 'Largest planet?', target: 'D', choices: ['Mars', 'Venus', 'Earth', 'Jupiter'] },
      { id: 'm3', text: 'H2O is?', target: 'A', choices: ['water', 'salt', 'sand'] },
      { id: 'm4', text: '2 + 2?', target: 'C', choices: ['3', '5', '4', '22'] },
    ],
    answer: (q) => varied(q, ['The answer is (B)', 'D.', 'A', 'answer: C', 'Option E', '(A) is correct']),
  },
  {
    name: 'exact',
    spec: spec('test:stored-exact', 'exact', '{{question}}'),
    docs: [
      { id: 'e1', text: 'Say Paris.', target: 'Paris' },
      { id: 'e2', text: 'Say New York.', target: 'New York' },
      { id: 'e3', text: 'Say blue.', target: 'blue' },
      { id: 'e4', text: 'Say 7 dwarfs.', target: '7 dwarfs' },
    ],
    answer: (q) => varied(q, ['The answer is Paris.', 'new york', 'Blue!', 'red', '7 Dwarfs']),
  },
];

const PROBES: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'sampling', budget: 6, temperature: 0.8, topP: 0.9, seed: 4 }];

/** The setup's task, its default condition (question seed 5) and the audit's input. */
export function storedRunInput(s: StoredRunSetup): CoreAuditInput {
  const task: LoadedTask = { spec: s.spec, test: s.docs, train: [] };
  const base = defaultCondition(s.spec, 'f32');
  return { task, condition: { ...base, fewShot: { ...base.fewShot, seed: 5 } }, probes: PROBES, selectors: ['majority'] };
}

/** The setup audited on the scripted engine (3 layers), exported as a run file's JSON text. */
export async function storedRunJson(s: StoredRunSetup): Promise<string> {
  const store = new MemoryRunStore();
  const engine = new FakeEngine({ numLayers: 3, fingerprint: `fake-${s.name}`, answer: s.answer });
  const c = new RunController<CoreAuditInput>({ store, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
  await c.start(await coreRunRequest(engine, await engine.info(), storedRunInput(s), { appVersion: 'stored-runs', source: 'fake', id: `stored-${s.name}` }));
  await c.idle();
  return exportRunJson(store, `stored-${s.name}`);
}

async function main(dir: string) {
  for (const s of STORED_RUN_SETUPS) await writeFile(path.join(dir, `${s.name}.json`), (await storedRunJson(s)) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main(process.argv[2] ?? '.');

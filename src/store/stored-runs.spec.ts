// Runs stored before answer formats had versions of their own (test/fixtures/stored-runs/, written
// at commit 93e0a85 by testing/stored-runs.ts) keep their condition keys, run keys, record keys and
// decoys: a format's version enters only the conditions of that format.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { conditionKey, recordKey } from '../audit/condition.ts';
import { decoyOf } from '../audit/decoy.ts';
import { graderVersionOf } from '../audit/formats/registry.ts';
import type { QuestionRecord } from '../audit/types.ts';
import { verifyRunFile } from './import.ts';
import { checkAnyRunFile, recordsOf, type RunFile } from './run-file.ts';
import { STORED_RUN_SETUPS, storedRunInput, storedRunJson } from './testing/stored-runs.ts';

const FIXTURES = path.resolve(__dirname, '../../test/fixtures/stored-runs');
const stored = (name: string) => checkAnyRunFile(JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')), '') as RunFile;

describe.each(STORED_RUN_SETUPS.map((s) => [s.name, s] as const))('a %s run stored at 93e0a85', (name, setup) => {
  const file = stored(name);

  it('keeps grader version 3 and its condition key: the condition made now is the stored one', async () => {
    const now = storedRunInput(setup).condition;
    expect(graderVersionOf(setup.spec.answerFormat)).toBe(3);
    expect(now).toEqual(file.manifest.condition);
    expect(await conditionKey(now)).toBe(file.manifest.condition_key);
  });

  it('imports with every record regraded: keys, grades and decoys recomputed equal the stored ones', async () => {
    const v = await verifyRunFile(file, `${name}.json`);
    expect(v.regraded).toBe(true);
    expect(v.items).toHaveLength(file.records.length);
  });

  it('is the run the audit makes now: same run key, record keys, attempts and decoys', async () => {
    const again = JSON.parse(await storedRunJson(setup)) as RunFile;
    expect(again.run_key).toBe(file.run_key);
    expect(again.questions).toEqual(file.questions);
    const essentials = (r: QuestionRecord) => ({ key: recordKey(r), attempts: r.attempts, decoy: r.decoy, decoy_first_success: r.decoy_first_success, realized_decoy: r.realized_decoy, reachable_decoy: r.reachable_decoy, selectors: r.selectors });
    expect(recordsOf(again).map(essentials)).toEqual(recordsOf(file).map(essentials));
    for (const r of recordsOf(file)) expect(decoyOf(r.doc, setup.spec.answerFormat, 5)).toBe(r.decoy);
  });

  it('holds the decoy hits it was made to hold (numeric and letters), so the decoys compared are graded ones', () => {
    const records = recordsOf(file);
    const hits = records.filter((r) => r.decoy_first_success !== null).length;
    if (setup.spec.answerFormat === 'exact') expect(records.every((r) => r.decoy === null)).toBe(true);
    else expect(hits).toBeGreaterThan(0);
  });
});

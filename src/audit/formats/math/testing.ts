// Spec helper: the conformance fixture's cases (test/fixtures/math-verify/cases.jsonl).

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FixtureCase {
  gold: string;
  response: string;
  expected: boolean;
  source: string;
}

export function fixtureCases(): FixtureCase[] {
  const file = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/math-verify/cases.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as FixtureCase);
}

// The shipped study plans are valid plans, and their tasks and probes exist.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubPreset } from '../src/audit/index.ts';
import { normalizePlan, plannedRuns, studyModels } from '../src/audit/study-plan.ts';

const DIR = join(__dirname, '../studies');

describe('shipped study plans', () => {
  it.each(readdirSync(DIR).filter((f) => f.endsWith('.json')))('%s is a valid plan over known tasks', (file) => {
    const plan = normalizePlan(JSON.parse(readFileSync(join(DIR, file), 'utf8')));
    for (const t of plan.tasks) {
      if (t.startsWith('hub:')) expect(() => hubPreset(t.slice(4))).not.toThrow();
      else expect(t).toMatch(/^builtin:arith-/);
    }
    expect(plannedRuns(plan).length).toBe(studyModels(plan).length * plan.tasks.length * (plan.probes.length + (plan.scan ? 1 : 0)));
  });

  it('the built-in study is offline: built-in models and tasks only, with its base/trained pair', () => {
    const plan = normalizePlan(JSON.parse(readFileSync(join(DIR, 'builtin.json'), 'utf8')));
    expect(studyModels(plan)).toEqual(['builtin:micro-arith', 'builtin:micro-arith-rl']);
    expect(plan.tasks.every((t) => t.startsWith('builtin:'))).toBe(true);
    expect(plan.scan).toBe(true);
  });
});

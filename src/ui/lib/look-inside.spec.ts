// Which attempts a question offers to look inside, the store that fetches read-outs side by side,
// and the two figures built from a read-out.
import { describe, expect, it } from 'vitest';
import { JSDOM } from 'jsdom';
import { groupByQuestion } from './analysis';
import { lookTargets, nothingToCompare, suggestedTargets, type LookTarget } from './look-inside';
import { auditedRun } from '../testing/test-backend';
import { LookInsideState } from '../stores/look-inside.svelte';
import type { AppBackend } from '../backend';
import type { AttemptLook, AttemptReadout } from '../../engine/readout';
import { attributionSpec, lensSpec } from '../figures/look-inside';
import { renderFigure } from '../figures/figure';
import { EngineError } from '../../engine/types';

const run = await auditedRun();
const q = groupByQuestion(run.records)[0];

function readoutOf(look: AttemptLook): AttemptReadout {
  const point = (position: number, layer: number | null) => ({ position, layer, gold: { id: 4, rank: 2, prob: 0.3, logit: 1 }, emitted: { id: 9, rank: 1, prob: 0.6, logit: 2 } });
  return {
    kind: 'readout', versus: 'own', route: look.route, silence: look.silence, gold: 4, emitted: 9, goldToken: '4', emittedToken: '9', position: 0, prefix: '',
    lens: [point(-1, null), ...look.route.map((l, p) => point(p, l))],
    embed: 0, attribution: look.route.map((layer, position) => ({ position, layer, attn: 0.5, mlp: -0.5 })), logitDiff: -1, sum: -1, identityError: 0,
  };
}

describe('look-inside targets', () => {
  it('lists every attempt with a route, deployment first, each with its prompt, route, silence set, gold and response', () => {
    const targets = lookTargets(q);
    const attempts = q.records.flatMap((r) => r.attempts.filter((a) => a.route !== null));
    expect(targets).toHaveLength(attempts.length);
    expect(targets[0]).toMatchObject({ deployment: true, label: 'deployment attempt' });
    expect(targets.filter((t) => t.deployment)).toHaveLength(1);
    const dep = q.records.find((r) => r.probe === 'deployment')!;
    expect(targets[0].look).toEqual({ prompt: dep.arguments.prompt, route: dep.attempts[0].route, silence: dep.attempts[0].silence, gold: q.target, response: dep.attempts[0].response });
    expect(new Set(targets.map((t) => t.key)).size).toBe(targets.length);
  });

  it('reads every other attempt beside the deployment\'s answer, so both compare the same two tokens', () => {
    const dep = q.records.find((r) => r.probe === 'deployment')!;
    const others = lookTargets(q).filter((t) => !t.deployment);
    expect(others.length).toBeGreaterThan(0);
    for (const t of others) expect(t.look.deployed).toBe(dep.attempts[0].response);
    expect(lookTargets(q)[0].look).not.toHaveProperty('deployed');
  });

  it('says in one sentence, in place of figures, when there is no other token to compare with the gold\'s', () => {
    expect(nothingToCompare({ kind: 'matches', response: ' 9', longer: false })).toBe('This attempt answers "9", the gold answer token for token, so there is no token where it departs from the gold and nothing to compare.');
    expect(nothingToCompare({ kind: 'matches', response: '9 apples', longer: true })).toMatch(/^This attempt's answer "9 apples" starts with every token of the gold answer, [^.]*\.$/);
    const r = readoutOf(targets0());
    expect(nothingToCompare(r)).toBeNull();
    expect(nothingToCompare({ ...r, emitted: r.gold, emittedToken: r.goldToken, position: 1 })).toBe('At answer token 2 this attempt\'s first choice is the gold token "4" itself, so there is no other token to compare it with.');
  });

  it('suggests the deployment attempt and each probe\'s first correct attempt', () => {
    const targets = lookTargets(q);
    const suggested = suggestedTargets(targets);
    expect(suggested[0].deployment).toBe(true);
    for (const t of suggested.slice(1)) {
      expect(t.correct).toBe(true);
      const probe = t.key.slice(0, t.key.lastIndexOf('#'));
      expect(targets.find((x) => x.key.startsWith(`${probe}#`) && x.correct)).toBe(t);
    }
  });
});

describe('LookInsideState', () => {
  const targets = lookTargets(q);
  const backend = (calls: AttemptLook[], fail = false) =>
    ({ lookInside: async (_m: unknown, look: AttemptLook) => { calls.push(look); if (fail) throw new EngineError('not-loaded', 'the run\'s model m is not the one loaded'); return readoutOf(look); } }) as unknown as AppBackend;

  it('keeps two read-outs side by side, the oldest giving way, each computed once', async () => {
    const calls: AttemptLook[] = [];
    const s = new LookInsideState(backend(calls), run);
    const [a, b, c] = targets as [LookTarget, LookTarget, LookTarget];
    await s.open(a);
    await s.open(b);
    await s.open(a);
    expect(s.shown.map((t) => t.key)).toEqual([a.key, b.key]);
    expect(calls).toHaveLength(2);
    await s.open(c);
    expect(s.shown.map((t) => t.key)).toEqual([b.key, c.key]);
    expect(s.results[c.key]).toEqual({ status: 'done', readout: readoutOf(c.look) });
    s.close(b.key);
    expect(s.shown.map((t) => t.key)).toEqual([c.key]);
  });

  it('says why a read-out failed, and tries again when asked', async () => {
    const calls: AttemptLook[] = [];
    const s = new LookInsideState(backend(calls, true), run);
    await s.open(targets[0]);
    expect(s.results[targets[0].key]).toMatchObject({ status: 'failed', message: expect.stringMatching(/^The look inside failed: the run's model m is not the one loaded\. /) });
    await s.open(targets[0]);
    expect(calls).toHaveLength(2);
  });

  it('is unavailable without an engine', () => {
    expect(new LookInsideState({} as AppBackend, run).available).toBe(false);
  });
});

describe('look-inside figures', () => {
  it('draw the lens and the attribution as one SVG each, with readable text and an alternative', () => {
    const r = readoutOf(targets0());
    const { document } = new JSDOM('<!doctype html><body></body>').window;
    for (const spec of [lensSpec(r, { large: false }, 'deployment'), attributionSpec(r, { large: false }, 'deployment')]) {
      const svg = renderFigure(spec, document as unknown as Document);
      expect(svg.querySelector('title')!.textContent).toContain(spec.alt);
      expect(svg.textContent).toContain('1:L0');
    }
    expect(lensSpec(r, { large: false }, 'x').alt).toMatch(/rank 2 \(p = 0\.30\)/);
    expect(attributionSpec(r, { large: false }, 'x').alt).toMatch(/logit difference gold − emitted \(-1\.00\)/);
  });
});

function targets0(): AttemptLook {
  return lookTargets(q)[0].look;
}

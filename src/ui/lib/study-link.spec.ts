import { describe, expect, it } from 'vitest';
import { normalizePlan } from '../../audit/study-plan';
import { base64UrlEncode, parsePermalink } from './permalink';
import { encodeStudyLink, MAX_STUDY_LINK, parseStudyLink } from './study-link';

const PLAN = {
  name: 'Étude → ✓',
  models: ['builtin:micro-arith', 'Qwen/Qwen2.5-0.5B@main'],
  tasks: ['builtin:arith-2d', 'hub:mmlu:abstract_algebra'],
  probes: [{ probe: 'random-routes', space: 'neighborhood' }, { probe: 'sampling' }],
  budget: 8,
  scan: true,
  pairs: [{ base: 'builtin:micro-arith', trained: 'builtin:micro-arith-rl' }],
};

describe('study link', () => {
  it('round-trips the plan as written, unicode included, in a URL-safe hash', () => {
    const hash = encodeStudyLink(PLAN);
    expect(hash).toMatch(/^#study=[A-Za-z0-9_-]+$/);
    const link = parseStudyLink(hash);
    expect(link).toEqual({ planText: JSON.stringify(PLAN, null, 2) });
    expect(normalizePlan(JSON.parse((link as { planText: string }).planText))).toEqual(normalizePlan(PLAN));
  });

  it('is no study link when the hash has no study=, and a run permalink ignores a study link', () => {
    expect(parseStudyLink('')).toBeNull();
    expect(parseStudyLink('#model=builtin&task=builtin:arith-2d:20')).toBeNull();
    expect(parseStudyLink('#mystudy=abc')).toBeNull();
    expect(parsePermalink(encodeStudyLink(PLAN)).errors).toEqual([]);
  });

  it('refuses an oversized link before decoding it', () => {
    const link = parseStudyLink(`#study=${'A'.repeat(MAX_STUDY_LINK + 100)}`);
    expect(link).toEqual({ problem: expect.stringMatching(/^The study link is too long \(\d+ characters; at most 16384\)/) });
  });

  it('names what is wrong with a corrupt link, and never evaluates it', () => {
    expect(parseStudyLink('#study=')).toEqual({ problem: 'The study link holds no plan (nothing after "study=").' });
    expect(parseStudyLink('#study=%%%<script>')).toEqual({ problem: expect.stringMatching(/not base64url-encoded UTF-8 text/) });
    expect(parseStudyLink(`#study=${base64UrlEncode('{"models": [')}`)).toEqual({ problem: expect.stringMatching(/not valid JSON/) });
    // cut off mid-way: the base64 or the JSON breaks, either way it says so
    const cut = encodeStudyLink(PLAN).slice(0, 41);
    expect(parseStudyLink(cut)).toEqual({ problem: expect.stringMatching(/^The study link is corrupt/) });
    expect(parseStudyLink(`#study=${base64UrlEncode('[1,2]')}`)).toEqual({ problem: 'The study link is corrupt: its plan is not a JSON object.' });
    expect(parseStudyLink(`#study=${base64UrlEncode('alert(1)')}`)).toEqual({ problem: expect.stringMatching(/not valid JSON/) });
  });

  it('refuses a plan with a repeated key or nesting past the bound, naming it', () => {
    expect(parseStudyLink(`#study=${base64UrlEncode('{"models":["a/b"],"models":["c/d"],"tasks":["x"]}')}`)).toEqual({
      problem: 'The study link\'s plan is refused: duplicate key "models" at the top level (line 1).',
    });
    const deep = `{"models":["a/b"],"tasks":["x"],"note":${'['.repeat(70)}${']'.repeat(70)}}`;
    expect(parseStudyLink(`#study=${base64UrlEncode(deep)}`)).toEqual({ problem: expect.stringMatching(/^The study link's plan is refused: nested deeper than 64 levels/) });
  });

  it('puts JSON that is not a valid plan in the editor, naming the field; markup stays data', () => {
    const evil = { models: ['<img src=x onerror=alert(1)>'], tasks: [], budget: 0 };
    const link = parseStudyLink(encodeStudyLink(evil));
    expect(link).toEqual({ planText: JSON.stringify(evil, null, 2), problem: expect.stringMatching(/tasks: expected at least 1 entry, got none.*it is in the editor to fix/) });
  });
});

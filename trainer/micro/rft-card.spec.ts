import { describe, expect, it } from 'vitest';
import type { PairAudit } from './audit-pair';
import { DEFAULT_RFT, PREVIOUS_RFT, type RoundLog } from './rft';
import { rftCard, type RftCardFacts, type SweepEntry } from './rft-card';

const side = (realized: number, ceiling: number) => ({ realized, reachable: ceiling - realized, ceiling });
const diff = (d: number) => ({ diff: d, ci: { lo: d - 0.05, hi: d + 0.05 }, mcnemar: { exactP: 0.01 } });
const state = { realized: 1, 'reachable-only': 0, unreachable: 0 };
const comparison = (a: number, b: number) => ({
  a: side(a, 0.9),
  b: side(b, 0.9),
  deployed: diff(b - a),
  ceiling: diff(0),
  transitions: { realized: state, 'reachable-only': state, unreachable: state },
});
const audit = { questions: 200, budget: 32, routes: comparison(0.75, 0.9), sampling: comparison(0.75, 0.9) } as unknown as PairAudit;
const round = (validation: number): RoundLog => ({ round: 1, problems: 1024, sampleAccuracy: 0.5, solved: 0.97, kept: 998, loss: 0.2, validation, elapsedS: 60 });
const entry = (options: SweepEntry['options'], first: number, validation: number): SweepEntry => ({
  options,
  validation,
  base_validation: 0.758,
  validation_problems: 512,
  rounds: [round(first)],
  wall_s: 100,
  cpu_s: 130,
});

function facts(sweep: SweepEntry[]): RftCardFacts {
  return {
    options: DEFAULT_RFT,
    rounds: [round(0.9)],
    trainProblems: 12469,
    validation: { problems: 512, base: 0.758, trained: 0.949 },
    sweep,
    wallS: 100,
    cpuS: 130,
    audit,
    fileBytes: { 'model.safetensors': 454352 },
    command: 'npm run train:micro-rl',
  };
}

describe('the RL model card', () => {
  it('lists every configuration tried with its validation accuracy and marks the shipped one', () => {
    const card = rftCard(facts([entry(PREVIOUS_RFT, 0.496, 0.582), entry(DEFAULT_RFT, 0.883, 0.949), entry({ ...DEFAULT_RFT, replay: 0 }, 0.922, 0.93)]));
    expect(card).toContain('| 1 | 4 × 100 | 1024 × 8, 1 | 0.001 (0, 1) | 0 | 58.2% | -17.6 | 130 |');
    expect(card).toContain('| 2 **shipped** | 4 × 100 | 1024 × 8, 1 | 0.0001 (20, 0.1) | 0.5 | 94.9% | +19.1 | 130 |');
    expect(card).toContain('| 3 | 4 × 100 | 1024 × 8, 1 | 0.0001 (20, 0.1) | 0 | 93.0% | +17.2 | 130 |');
    expect(card.match(/\*\*shipped\*\*/g)).toHaveLength(1);
    // 94.9% on 512 problems: one standard error is 1.0 point, so 93.0% is not tied
    expect(card).toContain('Configuration 2 scored highest (94.9%); one standard error of that score on 512 problems is\n1.0 points, and configurations 2 lie within it');
    expect(card).toContain('the base scores 75.8%, this model 94.9%\n(+19.1 points)');
    // the earlier recipe is named with its numbers from the sweep
    expect(card).toContain('Configuration 1 is the recipe this model was trained with before');
    expect(card).toContain('its first round took validation accuracy from 75.8% to 49.6%');
    expect(card).toContain('and it ended at 58.2%.');
  });

  it('ships the anchored configuration with the smallest learning rate among those tied with the best', () => {
    const faster = { ...DEFAULT_RFT, lr: 3e-4 };
    const card = rftCard(facts([entry(DEFAULT_RFT, 0.883, 0.949), entry({ ...DEFAULT_RFT, replay: 0 }, 0.922, 0.945), entry(faster, 0.82, 0.951)]));
    expect(card).toContain('Configuration 3 scored highest (95.1%)');
    expect(card).toContain('configurations 1, 2, 3 lie within it');
    expect(card).toContain('Among them the shipped one (configuration 1) is the most conservative change to the base');
    expect(() => rftCard({ ...facts([entry(DEFAULT_RFT, 0.883, 0.949), entry(faster, 0.82, 0.951)]), options: faster })).toThrow(/not the anchored configuration with the smallest learning rate/);
    expect(() => rftCard(facts([]))).toThrow(/the sweep is empty/);
  });

  it('says nothing of the earlier recipe when the sweep did not run it', () => {
    expect(rftCard(facts([entry(DEFAULT_RFT, 0.883, 0.949)]))).not.toContain('trained with before');
  });
});

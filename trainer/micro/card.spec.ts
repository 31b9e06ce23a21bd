import { describe, expect, it } from 'vitest';
import type { AuditSummary } from '../../src/audit/index';
import type { ModelAudit } from './audit-pair';
import { modelCard, type CardFacts } from './card';
import { DEFAULT_OPTIONS } from './options';

const probe = (name: string, reachable: number, ceiling: number) => ({
  probe: name,
  probe_key: `${name}:x`,
  n: 200,
  budget: 32,
  reachable: reachable / 200,
  ceiling: ceiling / 200,
  realized: 0.75,
  joined: 200,
  counts: { reachable, realized: 150, ceiling },
});
const summary = (p: ReturnType<typeof probe>) => ({ condition_key: 'c', n: 200, realized: 0.75, realized_count: 150, invalid: 0, probes: [p] }) as unknown as AuditSummary;
const audit = { questions: 200, budget: 32, routes: { summary: summary(probe('random-routes', 108, 177)) }, sampling: { summary: summary(probe('sampling', 196, 196)) } } as unknown as ModelAudit;

function facts(routeProb: number): CardFacts {
  return {
    config: { vocabSize: 17, hiddenSize: 64, intermediateSize: 128, numLayers: 6, numHeads: 4, numKvHeads: 2, headDim: 16, ropeTheta: 10000, ropeScaling: null, rmsNormEps: 1e-5, maxPositionEmbeddings: 512, tieWordEmbeddings: false, eosTokenId: 16, padTokenId: 16 },
    options: { ...DEFAULT_OPTIONS, routeProb },
    parameters: 224192,
    stepsRun: 100,
    trainProblems: 10,
    validationProblems: 5,
    testProblems: 20,
    trainWallS: 1,
    trainCpuS: 1,
    realized: 0.7,
    reach: { routes: 36, budget: 32, n: 20, realized: 0.7, reachable: 0.6, ceiling: 0.9, perRoute: [{ route: [0, 1, 2, 3, 4, 5, 5], accuracy: 0.2 }] },
    curve: [{ step: 100, loss: 1, lr: 1e-3, elapsedS: 1, validation: 0.7, heldOut: 0.7 }],
    audit,
    fileBytes: { 'model.safetensors': 1 },
    command: 'npm run train:micro',
  };
}

describe('modelCard', () => {
  it('says the shipped model was trained without route augmentation, and says nothing else about training routes', () => {
    const card = modelCard(facts(DEFAULT_OPTIONS.routeProb));
    expect(card).toContain('No route augmentation: every training step runs the default route');
    expect(card).not.toMatch(/LayerDrop|with probability/);
  });

  it('states route augmentation and its probability when a run uses it', () => {
    expect(modelCard(facts(0.25))).toContain('Route augmentation: with probability 0.25 a step runs a uniformly drawn route');
  });

  it('quotes the audit of the exported checkpoint with its counts', () => {
    const card = modelCard(facts(0));
    expect(card).toContain('prints realized **75.0%** (150 of 200), reachable@32 **54.0%** (108 of 200), ceiling@32 88.5% (177 of 200)');
    expect(card).toContain('reachable@32 98.0% (196 of 200), ceiling@32 98.0% (196 of 200)');
    expect(card).toContain(`--model ${DEFAULT_OPTIONS.out} --task builtin:arith-2d --questions 200 --probe random-routes --space blocks --budget 32 --seed 1`);
  });
});

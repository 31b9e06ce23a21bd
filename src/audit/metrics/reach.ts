// Reachable@B and ceiling@B, each also against the decoy answer (decoy.ts), and gold − decoy.

import { ceilingDecoy, decoyCount, goldMinusDecoy } from '../decoy';
import { pairedDelta } from '../stats';
import type { Metric, MetricInput } from './metric';

const share = (k: number | null, n: number) => (k === null ? null : n ? k / n : 0);
const realizedOf = (x: MetricInput, docId: string) => x.deployment.get(docId)?.realized === true;

export const REACHABLE: Metric = {
  id: 'reachable',
  term: 'reachable@B',
  label: (b) => `reachable@${b}`,
  definition: 'Share of questions on which some attempt among a probe\'s first B distinct attempts is correct; the deployment attempt is never charged (summary.ts).',
  compute: (x) => {
    const k = x.records.filter((r) => r.reachable).length;
    return { value: share(k, x.records.length), count: k };
  },
  column: '',
  show: 'share',
  over: 'records',
};

export const REACHABLE_DECOY: Metric = {
  id: 'reachable_decoy',
  term: 'reachable@B (decoy)',
  label: (b) => `reachable@${b} (decoy)`,
  definition: 'reachable@B against the decoy answer, over the same questions; none when a question has no decoy (decoy.ts).',
  compute: (x) => {
    const k = decoyCount(x.records.map((r) => r.reachable_decoy));
    return { value: share(k, x.records.length), count: k };
  },
  column: ' (decoy)',
  show: 'share',
  over: 'records',
};

export const GOLD_MINUS_DECOY: Metric = {
  id: 'gold_minus_decoy',
  term: 'gold − decoy',
  label: () => 'gold − decoy',
  definition:
    'A probe\'s reachable@B minus its reachable@B against the decoy, paired over the same questions, with Newcombe\'s interval (decoy.ts goldMinusDecoy). A probe reaches only when this interval lies above 0; ' +
    'otherwise it is "indistinguishable from producing many answers" and counts as reaching nowhere in the verdicts (decoy.ts reachesBeyondDecoy, verdict.ts).',
  compute: (x) => {
    const gap = goldMinusDecoy(x.records.map((r) => ({ gold: r.reachable === true, decoy: r.reachable_decoy })));
    return { value: gap && pairedDelta(gap) };
  },
  column: ' gold − decoy',
  show: 'paired',
};

export const CEILING: Metric = {
  id: 'ceiling',
  term: 'ceiling@B',
  label: (b) => `ceiling@${b}`,
  definition: 'Share of questions realized or reachable@B (summary.ts).',
  compute: (x) => {
    const k = x.joined.filter((r) => r.reachable || realizedOf(x, r.doc_id)).length;
    return { value: share(k, x.joined.length), count: k };
  },
  show: 'share',
  over: 'joined',
};

export const CEILING_DECOY: Metric = {
  id: 'ceiling_decoy',
  term: 'ceiling@B (decoy)',
  label: (b) => `ceiling@${b} (decoy)`,
  definition: 'ceiling@B against the decoy: the deployment attempt or a probe attempt is the decoy, over the same questions as ceiling@B; none when a question has no decoy (decoy.ts ceilingDecoy).',
  compute: (x) => {
    const k = decoyCount(x.joined.map((r) => ceilingDecoy(x.deployment.get(r.doc_id)!, r)));
    return { value: share(k, x.joined.length), count: k };
  },
  show: 'share',
  over: 'joined',
};

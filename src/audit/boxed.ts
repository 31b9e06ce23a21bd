// CoLa's condition over a task's own: greedy, 50 new tokens, no stop sequences, the answer asked
// for and required in \boxed{} (a response without a box is wrong, as in CoLa's released scoring).
// The CLI's --boxed, presets.ts colaCondition and the Setup screen's CoLa preset all take it from
// here (a module of its own, so the condition builders need not load the probe registry).

import type { Condition } from './types';

export function colaOverrides(promptTemplate: string): Pick<Condition, 'promptTemplate' | 'requireBoxed' | 'decoding' | 'maxNewTokens' | 'stopSequences'> {
  return { promptTemplate: `${promptTemplate}\nPut the final answer in \\boxed{}.`, requireBoxed: true, decoding: { kind: 'greedy' }, maxNewTokens: 50, stopSequences: [] };
}

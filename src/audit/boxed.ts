// The condition fields that ask for the answer in \boxed{} and grade only what is boxed: the CLI's
// --boxed, CoLa's condition and the Setup screen's CoLa preset all take them from here (a module
// of its own, so the condition builders need not load the probe registry).

import type { Condition } from './types';

export function boxedOverrides(promptTemplate: string): Pick<Condition, 'promptTemplate' | 'requireBoxed'> {
  return { promptTemplate: `${promptTemplate}\nPut the final answer in \\boxed{}.`, requireBoxed: true };
}

import { describe, expect, it } from 'vitest';
import { MAX_BUDGET } from '../../audit';
import { budgetProblem } from './validate';

describe('budgetProblem', () => {
  it('names a budget past the core bound before anything runs', () => {
    expect(budgetProblem('Sampling ceiling', 1e11, null)).toMatch(/^Sampling ceiling: the budget can be at most 10,?000 attempts per question/);
    expect(budgetProblem('Sampling ceiling', MAX_BUDGET, null)).toBeNull();
    expect(budgetProblem('Sampling ceiling', 0, null)).toMatch(/1 or more/);
  });
});

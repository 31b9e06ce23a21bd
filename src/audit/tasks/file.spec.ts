// Which column of a task file holds what, from the column names alone.

import { describe, expect, it } from 'vitest';
import { FIELD_NAMES, guessMapping, parseCsv } from './file';

describe('guessMapping', () => {
  it('takes a CSV column named gold as the answer column', () => {
    const columns = Object.keys(parseCsv('question,gold\n12+30=,42\n')[0]);
    expect(guessMapping(columns)).toEqual({ question: 'question', answer: 'gold' });
    expect(FIELD_NAMES.answer).toContain('gold');
  });

  it('prefers the names in their order, whatever the case, and leaves a field no column is named like empty', () => {
    expect(guessMapping(['Target', 'Answer', 'Problem', 'options'])).toEqual({ question: 'Problem', answer: 'Answer', choices: 'options' });
    expect(guessMapping(['x', 'y'])).toEqual({ question: '', answer: '' });
  });

  it('maps a column named like an id, so questions keep the file\'s own ids', () => {
    expect(guessMapping(['ID', 'question', 'answer'])).toEqual({ question: 'question', answer: 'answer', id: 'ID' });
    expect(guessMapping(['unique_id', 'problem', 'solution'])).toEqual({ question: 'problem', answer: 'solution', id: 'unique_id' });
  });
});

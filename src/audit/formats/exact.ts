// exact: a short text answer, compared after normalization (normalizeText). It has no decoy: no
// wrong answer of the same kind can be made. Its version is part of every exact condition:
// v2: GradeOptions.requireBoxed. v3: unchanged rules (the version the three first formats shared).

import { quote } from '../../util/clip';
import { INVALID, type Format } from './format';
import { lastBoxed, normalizeText, unwrapTex } from './text';

/** The text after the last "answer is"/"answer:" if any, else the first non-empty line; normalized. */
export function extractExact(response: string): string {
  let text = response;
  let last = -1;
  for (const m of response.matchAll(/answer\s*(?:is|:)/gi)) last = m.index + m[0].length;
  if (last >= 0) text = response.slice(last);
  const line = text.split(/\r?\n/).find((l) => normalizeText(l) !== '') ?? '';
  const n = normalizeText(line);
  return n === '' ? INVALID : n;
}

export const exactFormat: Format<'exact'> = {
  name: 'exact',
  label: 'exact text',
  version: 3,
  normalizeGold(gold) {
    const g = normalizeText(gold);
    if (g === '') throw new Error(`exact-match gold answer ${quote(gold)} is empty after normalization`);
    return g;
  },
  extract: (response) => extractExact(response),
  extractBoxed(response) {
    const b = lastBoxed(response);
    return b === null ? INVALID : normalizeText(unwrapTex(b)) || INVALID;
  },
  equal: (gold, extracted) => extracted === gold,
  key: (extracted) => extracted,
  decoy: () => null,
  promptTemplate: '{{question}}',
  maxNewTokens: 32,
  stopSequences: ['\n\n', 'Question:'],
  scoring: 'generate',
};

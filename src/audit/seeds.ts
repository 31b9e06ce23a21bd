// Per-question seeds: derived from the probe's seed and the question's id (not its position), so
// auditing a subset, a superset or a resumed run draws the same routes, samples and shots per question.

/** 32-bit FNV-1a over the parts joined by U+001F. */
export function seedFor(...parts: (string | number)[]): number {
  let h = 2166136261;
  for (const ch of parts.join('\u001f')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h >>> 0;
}

// Text helpers the formats share: the last \boxed{}, LaTeX text wrappers, normalized words.

/** Content of the last \boxed{...}, braces balanced; null when absent. */
export function lastBoxed(s: string): string | null {
  const at = s.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at + 6; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return s.slice(at + 7, i);
  }
  return null;
}

/** \text{x}, \textbf{x}, \mathrm{x}, \mbox{x} → x. */
export function unwrapTex(s: string): string {
  return s.replace(/\\(?:text(?:bf)?|math(?:rm|bf)|mbox)\s*\{([^{}]*)\}/g, '$1');
}

/** NFKC, lower case, punctuation removed, whitespace collapsed. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

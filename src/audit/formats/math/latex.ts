// Small scanners over LaTeX text: balanced groups and top-level splitting. Hand-written because
// the library parses whole expressions only, and extraction must find answer spans first.

const OPEN: Record<string, string> = { '{': '}', '(': ')', '[': ']' };

/** For each "{" in `s`, the index just past its matching "}" (-1 when it never closes), in one
 *  pass; backslash-escaped braces are skipped. */
export function braceEnds(s: string): Int32Array {
  const ends = new Int32Array(s.length).fill(-1);
  const open: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '{') open.push(i);
    else if (c === '}' && open.length) ends[open.pop() as number] = i + 1;
  }
  return ends;
}

/** Deepest nesting of {}, () and [] in `s` (unbalanced closers ignored). */
export function nestingDepth(s: string): number {
  let depth = 0;
  let max = 0;
  for (const c of s) {
    if (c === '{' || c === '(' || c === '[') max = Math.max(max, ++depth);
    else if ((c === '}' || c === ')' || c === ']') && depth > 0) depth--;
  }
  return max;
}

/** Split `s` at `sep` (a regex matched at each position) where no {} () [] group is open;
 *  "\{", "\}" count as braces. Interval brackets like "[0,1)" close with the other kind, so any
 *  closer closes any opener. */
export function splitTop(s: string, sep: RegExp): { parts: string[]; seps: string[] } {
  const parts: string[] = [];
  const seps: string[] = [];
  const re = new RegExp(sep.source, 'y');
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && /[a-zA-Z]/.test(s[i + 1] ?? '')) {
      // a command: match separators like \cup, \leq here, else skip its name
      if (depth === 0) {
        re.lastIndex = i;
        const m = re.exec(s);
        if (m) {
          parts.push(s.slice(start, i));
          seps.push(m[0]);
          start = i + m[0].length;
          i = start - 1;
          continue;
        }
      }
      let j = i + 1;
      while (j < s.length && /[a-zA-Z]/.test(s[j])) j++;
      i = j - 1;
      continue;
    }
    if (c === '\\') {
      i++;
      if (s[i] === '{') depth++;
      else if (s[i] === '}') depth = Math.max(0, depth - 1);
      continue;
    }
    if (c in OPEN) depth++;
    else if (c === '}' || c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0) {
      re.lastIndex = i;
      const m = re.exec(s);
      if (m && m[0].length > 0) {
        parts.push(s.slice(start, i));
        seps.push(m[0]);
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  parts.push(s.slice(start));
  return { parts, seps };
}

/** Whether `s` is wholly one group: opened at 0 (by a bracket, or by a two-character "\\{" when
 *  openLen is 2) and closed by its last character (by any closer). */
export function wrapsWhole(s: string, openLen = 1): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      if (s[i + 1] === '{') depth++;
      else if (s[i + 1] === '}') depth--;
      i++;
      if (depth === 0 && i < s.length - 1) return false;
      continue;
    }
    if (c in OPEN) depth++;
    else if (c === '}' || c === ')' || c === ']') {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
    if (i === openLen - 1 && depth === 0) return false;
  }
  return depth === 0;
}

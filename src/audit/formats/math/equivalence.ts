// Equivalence of two answer shapes by math-verify's rules: numbers equal exactly, or rounded to
// FLOAT_DECIMALS places when either is written as a decimal; expressions with variables equal at
// sampled points; tuples in order, sets and unions in any order; intervals by endpoints and
// closedness; equations and inequalities up to a constant factor (positive for inequalities).

import { canonical, leafOf, matrixValue, valueAt, type Leaf } from './engine';
import { plainText, type Node } from './structure';

/** Decimal places that decimals are rounded to before comparing (math-verify's float_rounding = 6). */
export const FLOAT_DECIMALS = 6;
/** Relative tolerance between two exact values computed in floating point. */
const EXACT_TOLERANCE = 1e-12;
/** Relative tolerance between two expressions evaluated at a sample point. */
const SAMPLE_TOLERANCE = 1e-9;
/** Points where expressions in variables are compared: irregular values away from common poles. */
const SAMPLES = [0.5377, 1.8339, -2.2588, 0.8622, 3.3187];

export function nodesEqual(a: Node, b: Node): boolean {
  if (a.kind === 'text' || b.kind === 'text') return textOf(a) !== null && textOf(a) === textOf(b);
  if (a.kind === 'expr' && b.kind === 'expr') return leavesEqual(a.tex, b.tex);
  // an open interval (a, b) is written like a pair
  if (a.kind === 'interval' && b.kind === 'tuple') return b.items.length === 2 && !a.loClosed && !a.hiClosed && nodesEqual(a.lo, b.items[0]) && nodesEqual(a.hi, b.items[1]);
  if (a.kind === 'tuple' && b.kind === 'interval') return nodesEqual(b, a);
  // a tuple against a set (or bare list): the set's elements in increasing order, so (1,3) is {1,3}
  if (a.kind === 'tuple' && b.kind === 'set') return tupleVsSet(a.items, b.items);
  if (a.kind === 'set' && b.kind === 'tuple') return tupleVsSet(b.items, a.items);
  if (a.kind === 'union' || b.kind === 'union') return unordered(asUnion(a), asUnion(b));
  // matrix arithmetic ("A + B") against a matrix: the library evaluates it
  if (a.kind === 'matrix' && b.kind === 'expr') return matrixVsExpr(a, b.tex);
  if (a.kind === 'expr' && b.kind === 'matrix') return matrixVsExpr(b, a.tex);
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'tuple':
      return ordered(a.items, (b as typeof a).items);
    case 'set':
      return unordered(a.items, (b as typeof a).items);
    case 'interval': {
      const o = b as typeof a;
      return a.loClosed === o.loClosed && a.hiClosed === o.hiClosed && nodesEqual(a.lo, o.lo) && nodesEqual(a.hi, o.hi);
    }
    case 'matrix': {
      const o = b as typeof a;
      return a.rows.length === o.rows.length && a.rows.every((r, i) => ordered(r, o.rows[i]));
    }
    case 'relation':
      return relationsEqual(a, b as typeof a);
  }
  return false;
}

function textOf(n: Node): string | null {
  if (n.kind === 'text') return n.text;
  if (n.kind === 'expr' && /^[A-Za-z]+$/.test(n.tex)) return plainText(n.tex);
  return null;
}

const asUnion = (n: Node): Node[] => (n.kind === 'union' ? n.items : [n]);

function ordered(a: Node[], b: Node[]): boolean {
  return a.length === b.length && a.every((x, i) => nodesEqual(x, b[i]));
}

/** Multiset equality by matching each element to an unused equal one. */
function unordered(a: Node[], b: Node[]): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  return a.every((x) => {
    const j = b.findIndex((y, k) => !used[k] && nodesEqual(x, y));
    if (j < 0) return false;
    used[j] = true;
    return true;
  });
}

function matrixVsExpr(m: Extract<Node, { kind: 'matrix' }>, tex: string): boolean {
  const leaf = /\\begin\{/.test(tex) ? leafOf(tex) : null;
  const value = leaf && matrixValue(leaf);
  if (!value || value.length !== m.rows.length) return false;
  return m.rows.every((row, i) => row.length === value[i].length && row.every((cell, j) => {
    const c = cell.kind === 'expr' ? leafOf(cell.tex) : null;
    return c !== null && c.value !== null && numbersEqual(c.value, value[i][j], c.float);
  }));
}

function tupleVsSet(tuple: Node[], set: Node[]): boolean {
  if (tuple.length !== set.length) return false;
  const values = set.map((n) => (n.kind === 'expr' ? leafOf(n.tex)?.value ?? null : null));
  if (values.some((v) => v === null)) return false;
  const sorted = set.map((n, i) => [n, values[i] as number] as const).sort((x, y) => x[1] - y[1]).map((x) => x[0]);
  return ordered(tuple, sorted);
}

// ---------------------------------------------------------------- leaves

function leavesEqual(x: string, y: string): boolean {
  if (x === y) return true;
  const a = leafOf(x);
  const b = leafOf(y);
  if (!a || !b) return false;
  return valuesEqual(a, b);
}

const round = (v: number) => Math.round(v * 10 ** FLOAT_DECIMALS);

function numbersEqual(a: number, b: number, float: boolean): boolean {
  if (float) return Math.abs(a) < 1e9 && Math.abs(b) < 1e9 ? round(a) === round(b) : Math.abs(a - b) <= 1e-15 * Math.max(Math.abs(a), Math.abs(b));
  return Math.abs(a - b) <= EXACT_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Exact p/q rounded to FLOAT_DECIMALS places, half away from zero. */
function roundExact([p, q]: [bigint, bigint]): bigint {
  const scaled = p * 10n ** BigInt(FLOAT_DECIMALS) * 2n;
  const r = (scaled < 0n ? -scaled + q : scaled + q) / (2n * q);
  return scaled < 0n ? -r : r;
}

function valuesEqual(a: Leaf, b: Leaf): boolean {
  if (a.iterative || b.iterative) return canonical(a) === canonical(b);
  const float = a.float || b.float;
  if (a.exact && b.exact) return float ? roundExact(a.exact) === roundExact(b.exact) : a.exact[0] * b.exact[1] === b.exact[0] * a.exact[1];
  if (a.vars.length === 0 && b.vars.length === 0) {
    const [ra, rb] = [a.rational, b.rational];
    if (ra && rb) return float ? roundExact(ra) === roundExact(rb) : ra[0] * rb[1] === rb[0] * ra[1];
    if (a.value !== null && b.value !== null) return numbersEqual(a.value, b.value, float);
    return a.value === null && b.value === null && canonical(a) === canonical(b);
  }
  return sampledEqual(a, b, (u, v) => numbersEqual(u, v, false) || Math.abs(u - v) <= SAMPLE_TOLERANCE * Math.max(1, Math.abs(u), Math.abs(v)));
}

/** Whether two expressions in variables agree at every sample point where both have a value
 *  (and at least at two); structurally equal when no point decides. */
function sampledEqual(a: Leaf, b: Leaf, same: (u: number, v: number) => boolean): boolean {
  const pairs = samplePairs(a, b);
  if (pairs === null) return canonical(a) === canonical(b);
  return pairs.every(([u, v]) => same(u, v));
}

function samplePairs(a: Leaf, b: Leaf): [number, number][] | null {
  const vars = [...new Set([...a.vars, ...b.vars])];
  if (vars.length > 6 || a.iterative || b.iterative) return null;
  const pairs: [number, number][] = [];
  for (let k = 0; k < SAMPLES.length; k++) {
    const at = Object.fromEntries(vars.map((v, i) => [v, SAMPLES[(k + i * 2) % SAMPLES.length] + i * 0.1]));
    const u = at && valueOf(a, at);
    const v = valueOf(b, at);
    if (u !== null && v !== null) pairs.push([u, v]);
  }
  return pairs.length >= 2 ? pairs : null;
}

function valueOf(l: Leaf, at: Record<string, number>): number | null {
  if (l.vars.length === 0) return l.value;
  return l.expr ? valueAt(l.expr, at) : null;
}

// ---------------------------------------------------------------- relations

const FLIP: Record<string, string> = { '<': '>', '>': '<', '\\leq': '\\geq', '\\geq': '\\leq', '=': '=', '\\neq': '\\neq' };

function relationsEqual(a: Extract<Node, { kind: 'relation' }>, b: Extract<Node, { kind: 'relation' }>): boolean {
  if (a.sides.length !== b.sides.length) return false;
  if (a.sides.length === 2) return differenceProportional(a, b);
  // chains: the same relations between equal parts, read either way
  const same = a.ops.every((o, i) => o === b.ops[i]) && ordered(a.sides, b.sides);
  const rev = [...b.sides].reverse();
  const revOps = [...b.ops].reverse().map((o) => FLIP[o] ?? o);
  return same || (a.ops.every((o, i) => o === revOps[i]) && ordered(a.sides, rev));
}

/** l op r ⇔ l' op' r' when l − r = k (l' − r') with k > 0 for the same op (k < 0 for the
 *  flipped op), any k ≠ 0 for = and ≠. */
function differenceProportional(a: Extract<Node, { kind: 'relation' }>, b: Extract<Node, { kind: 'relation' }>): boolean {
  const opA = a.ops[0];
  const opB = b.ops[0];
  const symmetric = opA === '=' || opA === '\\neq';
  if (symmetric ? opA !== opB : opB !== opA && opB !== FLIP[opA]) return false;
  const [la, ra, lb, rb] = [a.sides[0], a.sides[1], b.sides[0], b.sides[1]];
  if (nodesEqual(la, lb) && nodesEqual(ra, rb) && opA === opB) return true;
  if (nodesEqual(la, rb) && nodesEqual(ra, lb) && (symmetric || opB === FLIP[opA])) return true;
  if (![la, ra, lb, rb].every((n) => n.kind === 'expr')) return false;
  const da = difference(la, ra);
  const db = difference(lb, rb);
  if (!da || !db) return false;
  const pairs = samplePairs(da, db);
  if (pairs === null) return false;
  const ratios = pairs.map(([u, v]) => (v === 0 ? (u === 0 ? null : NaN) : u / v)).filter((r) => r !== null) as number[];
  if (ratios.length < 2 || ratios.some((r) => !Number.isFinite(r) || r === 0)) return false;
  const k = ratios[0];
  if (!ratios.every((r) => Math.abs(r - k) <= SAMPLE_TOLERANCE * Math.max(1, Math.abs(k)))) return false;
  if (symmetric) return true;
  return opB === opA ? k > 0 : k < 0;
}

function difference(l: Node, r: Node): Leaf | null {
  if (l.kind !== 'expr' || r.kind !== 'expr') return null;
  return leafOf(`(${l.tex})-(${r.tex})`);
}

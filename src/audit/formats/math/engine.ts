// Leaf expressions: exact rationals read here (most answers are numbers, and this is ~1000×
// faster than the library), everything else parsed and evaluated by @cortex-js/compute-engine
// through one shared instance.

import { ComputeEngine, isFunction } from '@cortex-js/compute-engine';
import { ITERATIVE_COMMANDS } from './limits';

type Expr = NonNullable<ReturnType<ComputeEngine['parse']>>;

export interface Leaf {
  /** Exact value p/q (q > 0) when the leaf is a plain number or fraction. */
  exact: [bigint, bigint] | null;
  /** Exact value p/q when the library evaluates the leaf to a rational ("2^{100}+1", "\frac{6}{4}"
   *  ); computed on first use. Doubles cannot tell 2^{100} from 2^{100}+1. */
  readonly rational: [bigint, bigint] | null;
  /** Whether it is written with a decimal point: then values compare rounded (see FLOAT_DECIMALS). */
  float: boolean;
  /** Its real value when it has one and no free variables; computed on first use (evaluation
   *  costs more than parsing, and identical answers never need it). */
  readonly value: number | null;
  /** Free variables, sorted. */
  vars: string[];
  /** Whether it holds a sum, product, integral or limit: then it is never evaluated. */
  iterative: boolean;
  /** The library's expression; null on the exact fast path. */
  expr: Expr | null;
}

let engine: ComputeEngine | null = null;
/** The one engine instance (its construction costs ~100 ms). */
function ce(): ComputeEngine {
  engine ??= new ComputeEngine();
  return engine;
}

const EXACT_RE = /^(-?)(?:(\d+)(?:\.(\d+))?|\.(\d+))$/;
const FRACTION_RE = /^(-?)\s*(?:\\frac\{\s*(-?\d+)\s*\}\{\s*(\d+)\s*\}|(\d+)\s*\/\s*(\d+))$/;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function rational(p: bigint, q: bigint): [bigint, bigint] | null {
  if (q === 0n) return null;
  if (q < 0n) [p, q] = [-p, -q];
  const g = gcd(p, q) || 1n;
  return [p / g, q / g];
}

/** A plain number ("-12", "0.5", ".5", "3/4", "\frac{3}{4}") as an exact rational, or null. */
export function exactNumber(tex: string): { value: [bigint, bigint]; float: boolean } | null {
  const s = tex.replace(/\s+/g, '');
  const m = EXACT_RE.exec(s);
  if (m) {
    const int = m[2] ?? '0';
    const frac = m[3] ?? m[4] ?? '';
    const v = rational(BigInt(int + frac) * (m[1] ? -1n : 1n), 10n ** BigInt(frac.length));
    return v && { value: v, float: frac !== '' || s.includes('.') };
  }
  const f = FRACTION_RE.exec(s);
  if (f) {
    const v = rational(BigInt(f[2] ?? f[4]) * (f[1] ? -1n : 1n), BigInt(f[3] ?? f[5]));
    return v && { value: v, float: false };
  }
  return null;
}

const cache = new Map<string, Leaf | null>();
/** Leaves kept; the cache is dropped when it grows past this. */
const LEAF_CACHE_SIZE = 20_000;

/** A leaf read from normalised LaTeX; null when the library cannot parse it. Cached. */
export function leafOf(tex: string): Leaf | null {
  const hit = cache.get(tex);
  if (hit !== undefined) return hit;
  const leaf = readLeaf(tex);
  if (cache.size >= LEAF_CACHE_SIZE) cache.clear();
  cache.set(tex, leaf);
  return leaf;
}

export function clearLeafCache(): void {
  cache.clear();
}

function readLeaf(tex: string): Leaf | null {
  const n = exactNumber(tex);
  if (n) return { exact: n.value, float: n.float, value: Number(n.value[0]) / Number(n.value[1]), rational: n.value, vars: [], iterative: false, expr: null };
  let expr: Expr;
  try {
    const parsed = ce().parse(tex);
    if (parsed === null || !parsed.isValid) return null;
    expr = parsed;
  } catch {
    return null;
  }
  const vars = [...expr.unknowns].sort();
  const iterative = ITERATIVE_COMMANDS.test(tex);
  let value: number | null | undefined = vars.length || iterative ? null : undefined;
  let exactValue: [bigint, bigint] | null | undefined = vars.length || iterative ? null : undefined;
  return {
    exact: null,
    get rational() {
      if (exactValue === undefined) exactValue = evaluatedRational(expr);
      return exactValue;
    },
    float: /\d\.\d|(?<!\d)\.\d/.test(tex),
    get value() {
      if (value === undefined) value = realValue(expr);
      return value;
    },
    vars,
    iterative,
    expr,
  };
}

/** Digits of an integer the library hands back that are read exactly; longer ones are not. */
const MAX_EXACT_DIGITS = 2_000;

function integerOf(json: unknown): bigint | null {
  if (typeof json === 'number') return Number.isSafeInteger(json) ? BigInt(json) : null;
  const num = (json as { num?: unknown } | null)?.num;
  return typeof num === 'string' && num.length <= MAX_EXACT_DIGITS && /^-?\d+$/.test(num) ? BigInt(num) : null;
}

/** The exact rational a closed expression evaluates to, or null (irrational, not a number). */
function evaluatedRational(expr: Expr): [bigint, bigint] | null {
  try {
    const json = expr.evaluate().json;
    if (Array.isArray(json) && json[0] === 'Rational' && json.length === 3) {
      const p = integerOf(json[1]);
      const q = integerOf(json[2]);
      return p !== null && q !== null ? rational(p, q) : null;
    }
    const i = integerOf(json);
    return i === null ? null : [i, 1n];
  } catch {
    return null;
  }
}

/** The real value of a closed expression; null when it has none (complex, infinite, not a number). */
function realValue(expr: Expr): number | null {
  try {
    const n = expr.N();
    const re = n.re;
    const im = n.im;
    return typeof re === 'number' && Number.isFinite(re) && (im === 0 || im === undefined || Number.isNaN(im)) && n.isNumber === true ? re : null;
  } catch {
    return null;
  }
}

/** The numeric matrix a closed expression evaluates to ("A + B", "2A"); null when it is not one. */
export function matrixValue(leaf: Leaf): number[][] | null {
  if (!leaf.expr || leaf.vars.length || leaf.iterative) return null;
  try {
    let n: Expr = leaf.expr.N();
    if (isFunction(n, 'Matrix')) n = n.ops[0];
    if (!isFunction(n, 'List')) return null;
    const m = n.ops.map((r) => (isFunction(r, 'List') ? r.ops.map((c) => realValue(c)) : [null]));
    return m.length && m.every((r) => r.length && r.every((v) => v !== null)) ? (m as number[][]) : null;
  } catch {
    return null;
  }
}

/** The value of `expr` with its free variables set to `at`; null when it has no real value. */
export function valueAt(expr: Expr, at: Record<string, number>): number | null {
  try {
    return realValue(expr.subs(at));
  } catch {
    return null;
  }
}

/** The library's canonical form as text, for structural comparison when values cannot decide. */
export function canonical(leaf: Leaf): string {
  if (leaf.exact) return `${leaf.exact[0]}/${leaf.exact[1]}`;
  try {
    return JSON.stringify(leaf.expr?.json);
  } catch {
    return '';
  }
}

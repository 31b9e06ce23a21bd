// A small schema checker for untrusted JSON: each check returns a fresh value built from the
// known fields only (unknown fields are dropped, nothing is evaluated) or throws the first
// problem as "path: expected …, got …".

import { quote } from './clip';

export class CheckError extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly got: string,
  ) {
    super(`${path ? `${path}: ` : ''}expected ${expected}, got ${got}`);
    this.name = 'CheckError';
  }
}

export type Check<T> = (v: unknown, path: string) => T;

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

const fail = (path: string, expected: string, v: unknown): never => {
  throw new CheckError(path, expected, describe(v));
};

/** Path of a field: "records[3].attempts", or just the key at the top level. */
const at = (p: string, k: string) => (p ? `${p}.${k}` : k);

/** A string; `max` bounds its length. */
export const str =
  (o: { nonEmpty?: boolean; max?: number } = {}): Check<string> =>
  (v, p) =>
    typeof v === 'string' && (!o.nonEmpty || v.length > 0) && (o.max === undefined || v.length <= o.max)
      ? v
      : fail(p, `${o.nonEmpty ? 'a non-empty string' : 'a string'}${o.max !== undefined ? ` of at most ${o.max} characters` : ''}`, v);

/** A finite number: `min`/`max` inclusive bounds, `above` an exclusive lower bound. */
export const num =
  (o: { int?: boolean; min?: number; above?: number; max?: number } = {}): Check<number> =>
  (v, p) => {
    const what = `${o.int ? 'an integer' : 'a number'}${o.min !== undefined ? ` ≥ ${o.min}` : ''}${o.above !== undefined ? ` > ${o.above}` : ''}${o.max !== undefined ? ` ≤ ${o.max}` : ''}`;
    if (typeof v !== 'number' || !Number.isFinite(v) || (o.int && !Number.isInteger(v))) return fail(p, what, v);
    if ((o.min !== undefined && v < o.min) || (o.above !== undefined && v <= o.above) || (o.max !== undefined && v > o.max)) return fail(p, what, v);
    return v;
  };

/** A checked value that must also satisfy `ok`, else refused as `expected`. */
export const where =
  <T>(c: Check<T>, ok: (v: T) => boolean, expected: string): Check<T> =>
  (v, p) => {
    const x = c(v, p);
    return ok(x) ? x : fail(p, expected, v);
  };

export const bool: Check<boolean> = (v, p) => (typeof v === 'boolean' ? v : fail(p, 'true or false', v));

export const oneOf =
  <const T extends readonly (string | number)[]>(...values: T): Check<T[number]> =>
  (v, p) =>
    values.includes(v as T[number]) ? (v as T[number]) : fail(p, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`, v);

export const arr =
  <T>(item: Check<T>): Check<T[]> =>
  (v, p) =>
    Array.isArray(v) ? v.map((x, i) => item(x, `${p}[${i}]`)) : fail(p, 'an array', v);

export const nullable =
  <T>(c: Check<T>): Check<T | null> =>
  (v, p) =>
    v === null ? null : c(v, p);

/** Marks an object field optional: absent (or undefined) stays absent. */
export interface Optional<T> {
  optional: Check<T>;
}
export const opt = <T>(c: Check<T>): Optional<T> => ({ optional: c });

export type Fields = Record<string, Check<unknown> | Optional<unknown>>;
type Out<F extends Fields> = { [K in keyof F as F[K] extends Optional<unknown> ? never : K]: F[K] extends Check<infer T> ? T : never } & {
  [K in keyof F as F[K] extends Optional<unknown> ? K : never]?: F[K] extends Optional<infer T> ? T : never;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object of these fields; with `strict`, a field outside them is refused (a person's file,
 *  where a misspelt field must not pass unnoticed), else dropped. */
export const obj =
  <F extends Fields>(fields: F, o: { strict?: boolean } = {}): Check<Out<F>> =>
  (v, p) => {
    if (!isPlainObject(v)) return fail(p, 'an object', v);
    if (o.strict) {
      const unknown = Object.keys(v).find((k) => !Object.prototype.hasOwnProperty.call(fields, k));
      if (unknown !== undefined) throw new CheckError(at(p, unknown), `a known field (${Object.keys(fields).join(', ')})`, 'an unknown field');
    }
    const out: Record<string, unknown> = {};
    for (const [k, c] of Object.entries(fields)) {
      const x = Object.prototype.hasOwnProperty.call(v, k) ? v[k] : undefined;
      if ('optional' in c) {
        if (x !== undefined) out[k] = c.optional(x, at(p, k));
      } else {
        if (x === undefined) throw new CheckError(at(p, k), 'a value (the field is missing)', 'nothing');
        out[k] = c(x, at(p, k));
      }
    }
    return out as Out<F>;
  };

/** Like `obj`, but a key outside `fields` is refused by name instead of dropped (`noun`: what a
 *  field is called in the message). */
export const exact =
  <F extends Fields>(fields: F, noun = 'field'): Check<Out<F>> => {
    const check = obj(fields);
    return (v, p) => {
      const out = check(v, p);
      for (const k of Object.keys(v as object)) {
        if (!Object.hasOwn(fields, k)) throw new CheckError(p, `one of the ${noun}s ${Object.keys(fields).join(', ')}`, `an unknown ${noun} ${quote(k)}`);
      }
      return out;
    };
  };

/** The first problem of each field of `fields` in `v`, in the fields' order (a form or a link
 *  lists every problem at once); empty when `obj(fields)` accepts `v`. */
export function fieldProblems(fields: Fields, v: unknown, p = ''): string[] {
  if (!isPlainObject(v)) return [new CheckError(p, 'an object', describe(v)).message];
  const out: string[] = [];
  for (const [k, c] of Object.entries(fields)) {
    try {
      obj({ [k]: c })(v, p);
    } catch (e) {
      if (!(e instanceof CheckError)) throw e;
      out.push(e.message);
    }
  }
  return out;
}

/** An object chosen by a string tag, e.g. the `probe` of a ProbeSpec. */
export const tagged =
  <T>(tag: string, variants: Record<string, Check<T>>): Check<T> =>
  (v, p) => {
    if (!isPlainObject(v)) return fail(p, 'an object', v);
    const t = v[tag];
    const c = typeof t === 'string' && Object.prototype.hasOwnProperty.call(variants, t) ? variants[t] : undefined;
    if (!c) return fail(at(p, tag), `one of ${Object.keys(variants).map((x) => JSON.stringify(x)).join(', ')}`, t);
    return c(v, p);
  };

/** A string-keyed map of checked values (keys kept as data in a null-prototype object); with
 *  `keys`, a key outside them is refused. */
export const dict =
  <T>(value: Check<T>, keys?: readonly string[]): Check<Record<string, T>> =>
  (v, p) => {
    if (!isPlainObject(v)) return fail(p, 'an object', v);
    const out: Record<string, T> = Object.create(null);
    for (const [k, x] of Object.entries(v)) {
      if (keys && !keys.includes(k)) fail(`${p}[${quote(k)}]`, `a key among ${keys.map((n) => JSON.stringify(n)).join(', ')}`, k);
      out[k] = value(x, `${p}[${quote(k)}]`);
    }
    return out;
  };

/** Any JSON value, copied (null-prototype objects, so keys like "__proto__" stay plain data). */
export const json: Check<unknown> = (v, p) => {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : fail(p, 'a finite number', v);
  if (Array.isArray(v)) return v.map((x, i) => json(x, `${p}[${i}]`));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, x] of Object.entries(v)) out[k] = json(x, `${p}[${quote(k)}]`);
    return out;
  }
  return fail(p, 'a JSON value', v);
};

// A probe's settings: what a setup choice (the audit CLI's flags, a study plan, the app's forms) may
// set for a probe, each with its default and bounds. A probe lists the settings it reads beside its
// spec (probe.ts `settings`); the registry's ProbeChoice, the CLI's flags and help, and the forms'
// bounds are made from those lists (choice.ts), never restated.

import { CheckError, describe, type Check } from '../../util/check';

export type Setting =
  | { kind: 'int'; min: number; max?: number; default?: number; help: string }
  | { kind: 'number'; min: number; /** min itself excluded */ above?: boolean; max?: number; default: number; help: string }
  | { kind: 'flag'; default: boolean; help: string }
  | { kind: 'choice'; options: readonly string[]; default: string; help: string };

export type Settings = Readonly<Record<string, Setting>>;

type ValueOf<S> = S extends { kind: 'flag' } ? boolean : S extends { kind: 'choice'; options: readonly (infer O)[] } ? O : number;
type WithDefault<Ss> = { [K in keyof Ss]: Ss[K] extends { default: number | string | boolean } ? K : never }[keyof Ss];
/** The values a choice holds for these settings: one with a default always, the others when set. */
export type ChoiceOf<Ss> = { -readonly [K in WithDefault<Ss>]: ValueOf<Ss[K]> } & { -readonly [K in Exclude<keyof Ss, WithDefault<Ss>>]?: ValueOf<Ss[K]> };

export const int = <const O extends { min: number; max?: number; default?: number; help: string }>(o: O) => ({ kind: 'int' as const, ...o });
export const number = <const O extends { min: number; above?: boolean; max?: number; default: number; help: string }>(o: O) => ({ kind: 'number' as const, ...o });
export const flag = (help: string) => ({ kind: 'flag' as const, default: false as boolean, help });
export const choice = <const O extends string>(options: readonly O[], dflt: NoInfer<O>, help: string) => ({ kind: 'choice' as const, options, default: dflt, help });

/** A setting's bounds in words: "an integer ≥ 1", "a number in (0, 1]", "one of blocks, cola". */
export function boundsText(s: Setting): string {
  switch (s.kind) {
    case 'int':
      return s.max === undefined ? `an integer ≥ ${s.min}` : `an integer from ${s.min} to ${s.max}`;
    case 'number':
      return s.max === undefined ? `a number ${s.above ? '>' : '≥'} ${s.min}` : `a number in ${s.above ? '(' : '['}${s.min}, ${s.max}]`;
    case 'flag':
      return 'true or false';
    case 'choice':
      return `one of ${s.options.join(', ')}`;
  }
}

/** A setting's value in untrusted JSON (a study plan's probe entry), refused with its bounds. */
export const settingSchema =
  (s: Setting): Check<unknown> =>
  (v, p) => {
    if (!fits(s, v)) throw new CheckError(p, boundsText(s), describe(v));
    return v;
  };

/** Whether a value is one the setting takes. */
export function fits(s: Setting, v: unknown): boolean {
  switch (s.kind) {
    case 'int':
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= s.min && (s.max === undefined || v <= s.max);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) && (s.above ? v > s.min : v >= s.min) && (s.max === undefined || v <= s.max);
    case 'flag':
      return typeof v === 'boolean';
    case 'choice':
      return typeof v === 'string' && s.options.includes(v);
  }
}

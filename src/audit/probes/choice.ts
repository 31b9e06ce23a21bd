// A setup choice across every probe: the settings each probe declares (settings.ts), merged. Its
// type, its defaults and its checks are made from the probes' own lists; the audit CLI's flags and
// help, study plans and the app's forms read them here.

import { AuditError } from '../errors';
import { PROBES, PROBE_NAMES } from './registry';
import type { Probe } from './probe';
import { boundsText, fits, type ChoiceOf, type Setting, type Settings } from './settings';

type SettingsOf<P> = P extends Probe<infer _S, infer Ss> ? Ss : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every probe's settings in one choice (a probe reads its own). */
export type ProbeChoice = ChoiceOf<Intersection<SettingsOf<(typeof PROBES)[number]>>>;
export type SettingName = keyof ProbeChoice & string;

/** Each setting once, with the probes that read it; a name two probes declare differently throws. */
function merged(): Map<string, { setting: Setting; probes: string[] }> {
  const out = new Map<string, { setting: Setting; probes: string[] }>();
  for (const p of PROBES as readonly { name: string; settings?: Settings }[]) {
    for (const [name, setting] of Object.entries(p.settings ?? {})) {
      const seen = out.get(name);
      if (seen && JSON.stringify(seen.setting) !== JSON.stringify(setting)) throw new Error(`internal: probes ${seen.probes[0]} and ${p.name} declare the setting ${name} differently`);
      if (seen) seen.probes.push(p.name);
      else out.set(name, { setting, probes: [p.name] });
    }
  }
  return out;
}

export const PROBE_SETTINGS: ReadonlyMap<string, { setting: Setting; probes: string[] }> = merged();

/** A setting by name. */
export const settingOf = (name: SettingName): Setting => PROBE_SETTINGS.get(name)!.setting;

/** An integer setting's bounds, for a form's number field. */
export function intBounds(name: SettingName): { min: number; max?: number } {
  const s = settingOf(name);
  if (s.kind !== 'int') throw new Error(`internal: the ${name} setting is not an integer`);
  return s.max === undefined ? { min: s.min } : { min: s.min, max: s.max };
}

/** Each setting's default (a setting without one is left out). */
export const DEFAULT_PROBE_CHOICE = Object.fromEntries(
  [...PROBE_SETTINGS].flatMap(([name, { setting }]) => (setting.default === undefined ? [] : [[name, setting.default]])),
) as ProbeChoice;

/** The choice with the defaults filled in, each value checked against its setting; throws naming
 *  the first that does not fit (`where` names where it was set: "study plan", "--budget"). */
export function probeChoice(given: Partial<Record<SettingName, unknown>>, where: (name: SettingName) => string = (n) => n): ProbeChoice {
  for (const [name, v] of Object.entries(given)) {
    const s = PROBE_SETTINGS.get(name);
    if (!s) throw new AuditError('bad-input', `unknown probe setting ${JSON.stringify(name)} (known: ${[...PROBE_SETTINGS.keys()].join(', ')})`);
    if (v !== undefined && !fits(s.setting, v)) throw new AuditError('bad-input', `${where(name as SettingName)} must be ${boundsText(s.setting)}, got ${JSON.stringify(v)}`);
  }
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_PROBE_CHOICE, ...set } as ProbeChoice;
}

/** "--max-edits": a setting's flag on the command line. */
export const flagOf = (name: string): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The settings as the audit CLI's help lists them: flag, bounds, default, and who reads it. */
export function settingsUsage(): string {
  const all = PROBE_NAMES.length;
  return [...PROBE_SETTINGS]
    .map(([name, { setting, probes }]) => {
      const arg = setting.kind === 'flag' ? '' : setting.kind === 'choice' ? ` ${setting.options.join('|')}` : ' N';
      const dflt = setting.kind === 'flag' || setting.default === undefined ? '' : ` (default ${setting.default})`;
      const bounds = setting.kind === 'flag' || setting.kind === 'choice' ? '' : `; ${boundsText(setting)}`;
      return `  ${flagOf(name)}${arg}: ${setting.help}${bounds}${dflt}. Read by ${probes.length === all ? 'every probe' : probes.join(', ')}.`;
    })
    .join('\n');
}

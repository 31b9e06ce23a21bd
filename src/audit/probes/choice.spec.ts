import { describe, expect, it } from 'vitest';
import { DEFAULT_PROBE_CHOICE, flagOf, PROBE_SETTINGS, probeChoice, settingsUsage } from './choice';
import { PROBES } from './registry';

describe('the setup choice made from the probes’ settings', () => {
  it('takes each default from the probe that declares it', () => {
    expect(DEFAULT_PROBE_CHOICE).toEqual({ budget: 16, seed: 1, space: 'blocks', radius: 2, maxBlock: 4, shared: false, temperature: 0.6, topP: 0.95 });
  });

  it('lists a setting once with the probes that read it', () => {
    expect(PROBE_SETTINGS.get('temperature')!.probes).toEqual(['sampling']);
    expect(PROBE_SETTINGS.get('budget')!.probes).toEqual(PROBES.filter((p) => p.settings && 'budget' in p.settings).map((p) => p.name));
    expect(PROBE_SETTINGS.get('maxBlock')!.probes).toEqual(['random-routes']);
  });

  it('checks each value against its bounds, naming the setting', () => {
    expect(probeChoice({ budget: 8, space: 'cola' })).toEqual({ ...DEFAULT_PROBE_CHOICE, budget: 8, space: 'cola' });
    expect(() => probeChoice({ budget: 0 })).toThrow('budget must be an integer from 1 to 10000, got 0');
    expect(() => probeChoice({ topP: 1.5 })).toThrow('topP must be a number in (0, 1], got 1.5');
    expect(() => probeChoice({ space: 'ring' }, flagOf)).toThrow('--space must be one of blocks, neighborhood, cola, got "ring"');
    expect(() => probeChoice({ width: 3 } as never)).toThrow(/unknown probe setting "width"/);
  });

  it('writes the CLI help from the settings', () => {
    expect(flagOf('maxEdits')).toBe('--max-edits');
    expect(settingsUsage()).toContain('  --top-p N: sampling top-p (nucleus) mass; a number in (0, 1] (default 0.95). Read by sampling.');
  });
});

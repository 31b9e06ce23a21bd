import { describe, expect, it } from 'vitest';
import { DEFAULT_DATE_STRING, parseDateString, strftime } from './template-date.ts';

describe('the date a chat template sees', () => {
  it('parses a real "%d %b %Y" day and refuses anything else', () => {
    expect(parseDateString(DEFAULT_DATE_STRING)?.toISOString()).toBe('2024-07-26T00:00:00.000Z');
    expect(parseDateString('29 Feb 2024')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    for (const bad of ['29 Feb 2023', '6 Dec 2026', '06 dec 2026', '2026-12-06', '06 Dec 2026 ', '31 Apr 2025']) expect(parseDateString(bad)).toBeNull();
  });

  it('formats as Python strftime in the C locale, at 00:00 UTC', () => {
    const d = parseDateString('06 Dec 2026')!;
    expect(strftime(d, '%d %b %Y')).toBe('06 Dec 2026');
    expect(strftime(d, '%Y-%m-%d %A %a %B %y %j %H:%M:%S %I %p %e %%')).toBe('2026-12-06 Sunday Sun December 26 340 00:00:00 12 AM  6 %');
    expect(() => strftime(d, '%Z')).toThrow('strftime_now: the directive %Z is not supported');
  });
});

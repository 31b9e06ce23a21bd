import { describe, expect, it } from 'vitest';
import { clip, quote, QUOTE_CHARS } from './clip';

describe('clip and quote', () => {
  it('keeps short input whole and cuts long input, saying how long it was', () => {
    expect(clip('abc')).toBe('abc');
    expect(clip('x'.repeat(50_000_000))).toBe(`${'x'.repeat(QUOTE_CHARS)}… (50,000,000 characters in all)`);
    expect(quote('a"b')).toBe('"a\\"b"');
    expect(quote([1, 2])).toBe('[1,2]');
    expect(quote(Array.from({ length: 100_000 }, () => 1)).length).toBeLessThan(QUOTE_CHARS + 40);
    expect(quote(undefined)).toBe('undefined');
  });
});

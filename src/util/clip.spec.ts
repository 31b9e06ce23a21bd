import { describe, expect, it } from 'vitest';
import { clip, quote, QUOTE_CHARS, terminalLine } from './clip';

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

describe('terminalLine', () => {
  it('writes control characters as escapes, so input cannot colour, move or forge terminal lines', () => {
    expect(terminalLine('plan \u001b[31mred\u001b[0m\r\nstudy ok: forged')).toBe('plan \\u001b[31mred\\u001b[0m\\r\\nstudy ok: forged');
    expect(terminalLine('a\u0000b\u007fc\u009bd\u202ee\tf')).toBe('a\\u0000b\\u007fc\\u009bd\\u202ee\\tf');
    expect(terminalLine('plain text, "quoted" and ünïcödé')).toBe('plain text, "quoted" and ünïcödé');
  });
});

import { describe, expect, it } from 'vitest';
import { formatStops, parseStops } from './stops';

describe('stop sequences as text', () => {
  it('round-trips newlines, tabs and backslashes', () => {
    const stops = ['\n', '\n\nQuestion:', 'a\\nb', '\t'];
    expect(formatStops(stops)).toBe('\\n\n\\n\\nQuestion:\na\\\\nb\n\\t');
    expect(parseStops(formatStops(stops))).toEqual(stops);
  });
  it('drops empty lines', () => {
    expect(parseStops('\n</s>\n\n')).toEqual(['</s>']);
  });
});

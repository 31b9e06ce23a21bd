import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { safeFilename, serializeSvg } from './download';

describe('serializeSvg', () => {
  it('writes a standalone document with the SVG namespace and escaped text', () => {
    const { document } = new JSDOM('').window;
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg') as unknown as SVGSVGElement;
    const text = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    text.textContent = '<script>alert(1)</script> & more';
    svg.append(text);
    const out = serializeSvg(svg);
    expect(out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more');
    expect(svg.getAttribute('xmlns')).toBeNull(); // the original is untouched
  });
});

describe('safeFilename', () => {
  it('keeps safe characters and collapses the rest', () => {
    expect(safeFilename('Qwen/Qwen2.5-0.5B reach@k')).toBe('Qwen-Qwen2.5-0.5B-reach-k');
    expect(safeFilename('../..')).toBe('..-..');
    expect(safeFilename('///')).toBe('reachlab');
  });
});

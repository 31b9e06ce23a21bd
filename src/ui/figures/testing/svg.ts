// A figure's SVG as its snapshot holds it: rendered in a jsdom document, every decimal rounded to one
// place so a layout change of a hundredth of a pixel is not a change of the figure.
import { JSDOM } from 'jsdom';
import { renderFigure, type FigureSpec } from '../figure';

const { document } = new JSDOM('').window;

export function svgSnapshot(spec: FigureSpec): string {
  return renderFigure(spec, document).outerHTML.replace(/-?\d+\.\d+/g, (x) => String(Math.round(Number(x) * 10) / 10));
}

/** The widths every figure is checked at: a 390 px phone's content box (16 px padding each side)
 *  and a 1280 px desktop (the spec's own width, narrower than the page). Large text (projector
 *  mode) is checked at 1280 only. */
export const FIT_WIDTHS = [358, 1280] as const;

/** Width of a character as a share of the font size: a generous sans-serif average. */
const CHAR_EM = 0.6;

const translate = (el: Element): [number, number] => {
  const m = /translate\(\s*(-?[\d.]+)(?:[ ,]+(-?[\d.]+))?\s*\)/.exec(el.getAttribute('transform') ?? '');
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : [0, 0];
};
const rotated = (el: Element) => /rotate\(/.test(el.getAttribute('transform') ?? '');
const inherited = (el: Element, attr: string): string | null => {
  for (let a: Element | null = el; a; a = a.parentElement) {
    const v = a.getAttribute(attr);
    if (v !== null) return v;
  }
  return null;
};
/** The font size in px: a font-size attribute or a style's font-size, nearest first. */
function fontSize(el: Element): number {
  for (let a: Element | null = el; a; a = a.parentElement) {
    const style = /font-size:\s*([\d.]+)px/.exec(a.getAttribute('style') ?? '');
    if (style) return Number(style[1]);
    const attr = a.getAttribute('font-size');
    if (attr !== null && /^[\d.]+$/.test(attr)) return Number(attr);
  }
  return 10;
}

interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Where a text element's lines lie, estimated from its position, anchor and font size. */
function boxOf(t: Element, outer: Element): Box | null {
  let x = Number(t.getAttribute('x') ?? 0) || 0;
  let y = Number(t.getAttribute('y')?.replace(/em$/, '') ?? 0) || 0;
  if (t.getAttribute('y')?.endsWith('em')) y *= fontSize(t);
  for (let a: Element | null = t; a && a !== outer; a = a.parentElement) {
    if (rotated(a)) return null; // rotated tick labels: checked by count, not by box
    const [dx, dy] = translate(a);
    x += dx;
    y += dy;
    if (a !== t && a.tagName.toLowerCase() === 'svg') {
      x += Number(a.getAttribute('x') ?? 0);
      y += Number(a.getAttribute('y') ?? 0);
    }
  }
  const size = fontSize(t);
  const lines = t.querySelectorAll('tspan').length ? [...t.querySelectorAll('tspan')].map((s) => s.textContent ?? '') : [t.textContent ?? ''];
  const w = Math.max(...lines.map((l) => l.length)) * size * CHAR_EM;
  const anchor = inherited(t, 'text-anchor') ?? 'start';
  const left = anchor === 'middle' ? x - w / 2 : anchor === 'end' ? x - w : x;
  // glyphs reach about 0.75 em above the baseline and 0.15 em below it
  return { text: lines.join(' / '), left, right: left + w, top: y - 0.75 * size, bottom: y + size * (lines.length - 1) + 0.15 * size };
}

/** What does not fit a figure drawn at `fitWidth`: text reaching outside the drawing (clipped),
 *  an axis label over other text, axis tick labels overlapping their neighbours or repeating (a
 *  collapsed axis). */
export function fitProblems(spec: FigureSpec, fitWidth: number): string[] {
  const svg = renderFigure(spec, document, { fitWidth });
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  const problems: string[] = [];
  for (const t of svg.querySelectorAll('text')) {
    if (!(t.textContent ?? '').trim()) continue;
    const b = boxOf(t, svg);
    if (!b) continue;
    if (b.left < -1 || b.right > width + 1) problems.push(`"${b.text}" reaches ${Math.round(b.left)}–${Math.round(b.right)} px, outside 0–${width}`);
    if (b.top < -1 || b.bottom > height + 1) problems.push(`"${b.text}" reaches ${Math.round(b.top)}–${Math.round(b.bottom)} px, outside the height 0–${height}`);
  }
  for (const axis of ['x-axis', 'fx-axis'] as const) {
    for (const g of svg.querySelectorAll(`g[aria-label="${axis} tick label"]`)) {
      const boxes = [...g.querySelectorAll('text')].map((t) => boxOf(t, svg)).filter((b): b is Box => b !== null).sort((a, b) => a.left - b.left);
      for (let i = 1; i < boxes.length; i++) {
        if (boxes[i].left < boxes[i - 1].right - 1) problems.push(`${axis} labels "${boxes[i - 1].text}" and "${boxes[i].text}" overlap`);
      }
    }
  }
  // an axis label under other text, tick labels aside (the F3 key was drawn over "↑ share of questions")
  const texts: Element[] = [...svg.querySelectorAll('text')].filter((t) => (t.textContent ?? '').trim() && !t.closest('g[aria-label$="tick label"]'));
  // and a key (text of several lines) over another key
  const keys = texts.filter((t) => t.querySelectorAll('tspan').length > 1);
  for (const label of [...svg.querySelectorAll('g[aria-label$="axis label"] text'), ...keys]) {
    const b = boxOf(label, svg);
    if (!b) continue;
    for (const t of texts) {
      // each pair of keys once
      const o = t === label || (keys.includes(label) && (!keys.includes(t) || keys.indexOf(t) < keys.indexOf(label))) ? null : boxOf(t, svg);
      if (o && o.left < b.right && b.left < o.right && o.top < b.bottom && b.top < o.bottom) problems.push(`"${b.text}" overlaps "${o.text}"`);
    }
  }
  for (const g of svg.querySelectorAll('g[aria-label="y-axis tick label"]')) {
    // neighbours with one label ("0", "0", "0"): ticks finer than the format (mirrored labels such as 20% up and 20% down are apart)
    const labels = [...g.querySelectorAll('text')].map((t) => t.textContent ?? '');
    if (labels.some((l, i) => i > 0 && l === labels[i - 1])) problems.push(`y-axis repeats its tick labels (${labels.join(', ')}): a collapsed axis`);
  }
  return problems;
}

// A figure's SVG as its snapshot holds it: rendered in a jsdom document, every decimal rounded to one
// place so a layout change of a hundredth of a pixel is not a change of the figure.
import { JSDOM } from 'jsdom';
import { renderFigure, type FigureSpec } from '../figure';

const { document } = new JSDOM('').window;

export function svgSnapshot(spec: FigureSpec): string {
  return renderFigure(spec, document).outerHTML.replace(/-?\d+\.\d+/g, (x) => String(Math.round(Number(x) * 10) / 10));
}

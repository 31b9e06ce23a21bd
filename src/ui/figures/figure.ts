// Figures as pure spec builders: data → Plot options (+ an optional colour legend). renderFigure
// turns a spec into ONE self-contained <svg> (legend stacked above the plot), which Figure.svelte
// shows and exports and which tests snapshot in jsdom.

import * as Plot from '@observablehq/plot';

export interface FigureStyle {
  /** Projector mode: larger text and a wider canvas. */
  large: boolean;
}

export interface FigureSpec {
  /** Short name, used as the export file name stem. */
  id: string;
  title: string;
  /** Text alternative describing what the figure shows. */
  alt: string;
  plot: Plot.PlotOptions;
  /** A colour legend (quantized scales only: they render as SVG rects, not a canvas ramp). */
  legend?: Plot.LegendScales;
}

export function baseOptions(style: FigureStyle): Pick<Plot.PlotOptions, 'width' | 'style' | 'marginLeft' | 'marginBottom'> {
  return {
    width: style.large ? 960 : 640,
    marginLeft: style.large ? 70 : 50,
    marginBottom: style.large ? 56 : 40,
    style: { fontSize: style.large ? '18px' : '12px', background: 'white', color: 'black', overflow: 'visible' },
  };
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Narrowest width a figure is laid out at on screen; below it the SVG scales down instead. */
export const MIN_FIT_WIDTH = 300;

/** fitWidth: lay the plot out at this width (px) when it is narrower than the spec's, so its text
 *  keeps its size on a phone instead of the whole drawing shrinking; exports omit it. */
export function renderFigure(spec: FigureSpec, document: Document, opts: { fitWidth?: number } = {}): SVGSVGElement {
  const specWidth = spec.plot.width ?? 640;
  const width = opts.fitWidth !== undefined && opts.fitWidth < specWidth ? Math.max(MIN_FIT_WIDTH, Math.floor(opts.fitWidth)) : specWidth;
  const plot = Plot.plot({ ...spec.plot, width, document });
  if (!(plot instanceof document.defaultView!.SVGSVGElement)) {
    throw new Error(`figure "${spec.id}": Plot returned <${plot.tagName.toLowerCase()}>, expected <svg> (put titles and legends in the spec, not in Plot options)`);
  }
  const plotHeight = Number(plot.getAttribute('height'));
  const outer = document.createElementNS(SVG_NS, 'svg') as SVGSVGElement;
  outer.setAttribute('xmlns', SVG_NS);
  outer.setAttribute('role', 'img');
  const title = document.createElementNS(SVG_NS, 'title');
  title.textContent = `${spec.title}. ${spec.alt}`;
  outer.append(title);
  let y = 0;
  if (spec.legend) {
    // Plot.legend takes `document` like Plot.plot does; its typings omit it.
    const legend = Plot.legend({ ...spec.legend, document } as Plot.LegendScales);
    if (!(legend instanceof document.defaultView!.SVGSVGElement)) throw new Error(`figure "${spec.id}": legend must render as SVG (use a quantized colour scale)`);
    legend.setAttribute('x', '0');
    legend.setAttribute('y', '0');
    outer.append(legend);
    y = Number(legend.getAttribute('height'));
  }
  plot.setAttribute('x', '0');
  plot.setAttribute('y', String(y));
  outer.append(plot);
  outer.setAttribute('width', String(width));
  outer.setAttribute('height', String(y + plotHeight));
  outer.setAttribute('viewBox', `0 0 ${width} ${y + plotHeight}`);
  outer.setAttribute('style', 'background: white; max-width: 100%; height: auto;');
  return outer;
}

import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { FIT_WIDTHS, fitProblems } from './testing/svg';
import { renderFigure } from './figure';
import { routePathSpec } from './route-path';
import { svgSnapshot } from './testing/svg';

const { document } = new JSDOM('').window;

describe('route path figure', () => {
  it('draws a route as a path through the layers beside the dashed default route', async () => {
    const spec = routePathSpec([0, 1, 1, 3], 4, { large: false });
    expect(spec.alt).toBe('The route runs layers 0, 1, 1, 3 at positions 0 to 3; the default route runs layers 0 to 3 in order (dashed).');
    const svg = renderFigure(spec, document);
    const lines = svg.querySelectorAll('g[aria-label="line"] path');
    expect(lines.length).toBe(2);
    expect(svg.querySelector('g[aria-label="line"]')?.getAttribute('stroke-dasharray')).toBe('4 4');
    expect([...svg.querySelectorAll('g[aria-label="text"] text')].map((t) => t.textContent)).toEqual(['0', '1', '1', '3']);
    await expect(svgSnapshot(spec)).toMatchFileSnapshot('__snapshots__/route-path.svg');
  });

  it('draws the default route alone when the route is the default', () => {
    const spec = routePathSpec([0, 1, 2], 3, { large: false });
    expect(spec.title).toBe('The default route through the layers');
    const svg = renderFigure(spec, document);
    expect(svg.querySelectorAll('g[aria-label="line"] path').length).toBe(1);
    expect(svg.querySelectorAll('g[aria-label="dot"] circle').length).toBe(3);
  });

  it('fits 390 and 1280 px: no clipped label, no collapsed axis', () => {
    for (const spec of [routePathSpec([0, 1, 1, 3], 4, { large: false }), routePathSpec(Array.from({ length: 28 }, (_, i) => i), 28, { large: false }), routePathSpec([0, 1, 2], 3, { large: false })]) {
      for (const w of FIT_WIDTHS) expect(fitProblems(spec, w), `${spec.id} at ${w} px`).toEqual([]);
    }
  });
});

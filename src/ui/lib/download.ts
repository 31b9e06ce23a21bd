// Saving figures and tables: SVG serialization, PNG through an offscreen canvas, file downloads.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A standalone SVG document for an <svg> element (namespace and XML declaration included). */
export function serializeSvg(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  if (!copy.getAttribute('xmlns')) copy.setAttribute('xmlns', SVG_NS);
  const xml = new (svg.ownerDocument.defaultView ?? window).XMLSerializer().serializeToString(copy);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
}

/** Rasterizes an SVG at `scale` × its size on a white background. */
export async function svgToPng(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  if (!(width > 0 && height > 0)) throw new Error('figure has no width/height to rasterize');
  const url = URL.createObjectURL(new Blob([serializeSvg(svg)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'async';
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('this browser cannot draw on a canvas');
    ctx.fillStyle = 'white';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name stem safe on every OS: letters, digits, dot, dash, underscore. */
export function safeFilename(stem: string): string {
  return stem.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 120) || 'reachlab';
}

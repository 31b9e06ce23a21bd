// Stop sequences edited as text: one per line, with \n, \t and \\ written as escapes.

export function formatStops(stops: readonly string[]): string {
  return stops.map((s) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t')).join('\n');
}

export function parseStops(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/\\(\\|n|t)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\')));
}

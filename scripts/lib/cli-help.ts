// --help for every CLI, from one place: a CLI's usage is the comment block that opens its file (so
// the text a person reads in the source and at the terminal is the same), printed on stdout.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The leading `//` comment lines of a source file, without the `// ` marks. */
export function usageOf(source: string): string {
  const lines: string[] = [];
  for (const line of source.split(/\r?\n/)) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join('\n').trim();
}

/** Whether the arguments ask for help. */
const asksForHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');

/** When `argv` asks for help, prints the usage of the CLI at `moduleUrl` (its import.meta.url) on
 *  stdout, then `more` (text made from what the code declares, e.g. the probes' settings), and
 *  exits 0; otherwise returns. */
export function answerHelp(argv: readonly string[], moduleUrl: string, more?: string): void {
  if (!asksForHelp(argv)) return;
  process.stdout.write(`${usageOf(readFileSync(fileURLToPath(moduleUrl), 'utf8'))}\n${more === undefined ? '' : `\n${more}\n`}`);
  process.exit(0);
}

// What a CLI prints on stderr, one line at a time: control characters escaped (src/util/clip.ts
// terminalLine), so a plan, a model reference or an error quoting input cannot colour the
// terminal, move its cursor or forge a line. Results on stdout are JSON, which escapes them itself.
import { terminalLine } from '../../src/util/clip.ts';

export function printErr(text: string): void {
  process.stderr.write(`${terminalLine(text)}\n`);
}

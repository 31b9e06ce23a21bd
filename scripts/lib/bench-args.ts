// A benchmark's positive-integer flag: its default when absent; a bad value exits 2 naming the bench and flag.
export function intArg(bench: string, name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1) {
    process.stderr.write(`${bench}: --${name} must be a positive integer, got "${v}"\n`);
    process.exit(2);
  }
  return Number(v);
}

// Peak resident memory of a process tree, sampled from /proc (Linux): the browser's processes
// during a bench:scale row. Each sample sums VmRSS over the descendants of `root`, minus the
// subtrees of `exclude` (servers the benchmark started).
import { readdirSync, readFileSync } from 'node:fs';

function children(): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(ppid, [...(out.get(ppid) ?? []), Number(d)]);
    } catch {
      // the process ended between readdir and read
    }
  }
  return out;
}

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Sum of VmRSS (MB) of root's descendants outside `exclude`. */
function treeRssMb(root: number, exclude: number[]): number {
  const kids = children();
  let kb = 0;
  const stack = [...(kids.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    if (exclude.includes(pid)) continue;
    kb += rssKb(pid);
    stack.push(...(kids.get(pid) ?? []));
  }
  return kb / 1024;
}

/** Samples treeRssMb every `ms` until stop(); returns the peak. */
export function samplePeak(root: number, exclude: number[], ms = 500): { stop(): number } {
  let peak = treeRssMb(root, exclude);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssMb(root, exclude));
  }, ms);
  return {
    stop() {
      clearInterval(timer);
      return Math.round(Math.max(peak, treeRssMb(root, exclude)));
    },
  };
}

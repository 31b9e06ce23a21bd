// A canonical key of an answer: equal keys imply equivalent answers (never the converse), so a
// majority vote may count by key. Numbers key by exact value, other leaves by their normalised
// text (spaces kept: "1 2" need not be "12"); sets and unions by their sorted element keys.

import { exactNumber } from './engine';
import type { Node } from './structure';

export function nodeKey(n: Node): string {
  switch (n.kind) {
    case 'expr': {
      const v = exactNumber(n.tex);
      return v ? `${v.value[0]}/${v.value[1]}` : n.tex;
    }
    case 'text':
      return `"${n.text}"`;
    case 'tuple':
      return `(${n.items.map(nodeKey).join(',')})`;
    case 'set':
      return `{${n.items.map(nodeKey).sort().join(',')}}`;
    case 'interval':
      return `${n.loClosed ? '[' : '('}${nodeKey(n.lo)},${nodeKey(n.hi)}${n.hiClosed ? ']' : ')'}`;
    case 'union':
      return `U{${n.items.map(nodeKey).sort().join(',')}}`;
    case 'matrix':
      return `M[${n.rows.map((r) => r.map(nodeKey).join('&')).join(';')}]`;
    case 'relation':
      return `R[${n.sides.map((s, i) => (i ? n.ops[i - 1] : '') + nodeKey(s)).join('')}]`;
  }
}

// Math grader benchmark (Node): responses graded per second by src/audit/formats/math (extract +
// equivalence). The responses are generated from the golds of the math-verify conformance fixture
// (test/fixtures/math-verify/cases.jsonl) with seeded filler reasoning, a few hundred characters
// each: about half end in the right answer, the rest in a decoy (a wrong answer of the gold's
// kind); some hold several boxes, some end "The final answer is $…$. I hope it is correct.".
// Three passes, in this order: cold (every cache emptied once the responses are made, then
// filled as the pass goes: a repeated (gold, answer) pair is free), warm (the same responses
// again) and uncached (every cache emptied before each response). It also times the library on
// its own: constructing a second ComputeEngine, and parsing then evaluating each gold with it;
// and one response each of 1 MB, just under MAX_RESPONSE_CHARS, and full of unclosed "\[".
// Prints one JSON object on stdout, a short table on stderr.
//
//   npm run -s bench:grade [-- --responses 10000 --seed 1]

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ComputeEngine } from '@cortex-js/compute-engine';
import { clearMathCaches, gradeMath, MAX_RESPONSE_CHARS, mathDecoy, normalizeMathGold } from '../src/audit/formats/math/index.ts';
import { createPrng, type Prng } from '../src/util/prng.ts';
import { answerHelp } from './lib/cli-help.ts';
import { intArg } from './lib/bench-args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const FILLER = [
  (r: Prng) => `First, note that $${r.int(9) + 1}x + ${r.int(20)} = ${r.int(50)}$, so we subtract ${r.int(20)} from both sides.`,
  (r: Prng) => `We compute ${r.int(90) + 10} \\cdot ${r.int(9) + 1} = ${r.int(900)}, which we check again.`,
  (r: Prng) => `Since \\(\\frac{${r.int(9) + 1}}{${r.int(9) + 2}}\\) is in lowest terms, the ratio stays fixed.`,
  (r: Prng) => `Let $a_n$ be the ${r.int(10) + 2}th term; then \\[a_n = a_1 + (n-1)d.\\]`,
  (r: Prng) => `Testing the ${r.int(5) + 2} cases one by one gives the same count each time.`,
  (r: Prng) => `The discriminant is $b^2 - 4ac = ${r.int(100)}$, which is not negative.`,
];

function response(gold: string, decoy: string | null, r: Prng): { text: string; right: boolean } {
  const right = decoy === null || r.int(2) === 0;
  const answer = right ? gold : (decoy as string);
  const parts = Array.from({ length: 3 + r.int(3) }, () => FILLER[r.int(FILLER.length)](r));
  const style = r.int(4);
  if (style === 0 && decoy !== null) parts.push(`At first I found $\\boxed{${decoy}}$, but that misses a case.`);
  if (style === 1) parts.push(`Final Answer: The final answer is $${answer}$. I hope it is correct.`);
  else parts.push(`Therefore the answer is $\\boxed{${answer}}$.`);
  return { text: parts.join(' '), right };
}

function main() {
  answerHelp(process.argv.slice(2), import.meta.url);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({ options: { responses: { type: 'string' }, seed: { type: 'string' } }, strict: true }).values as Record<string, string | undefined>;
  } catch (e) {
    process.stderr.write(`bench:grade: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const n = intArg('bench:grade', 'responses', values.responses, 10_000);
  const seed = intArg('bench:grade', 'seed', values.seed, 1);
  const golds = [
    ...new Set(
      readFileSync(resolve(root, 'test/fixtures/math-verify/cases.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => (JSON.parse(l) as { gold: string }).gold),
    ),
  ].flatMap((g) => {
    try {
      return [normalizeMathGold(g)];
    } catch {
      return [];
    }
  });
  const r = createPrng(seed);
  // a few seeded decoys per gold, made once (making one costs a grade or more)
  const decoys = golds.map((g, i) => [0, 1, 2].map((k) => mathDecoy(g, createPrng(seed, i * 3 + k + 1).int)));
  const items = Array.from({ length: n }, () => {
    const i = r.int(golds.length);
    return { gold: golds[i], ...response(golds[i], decoys[i][r.int(3)], r) };
  });
  const chars = items.reduce((s, x) => s + x.text.length, 0);

  const pass = (clearEach: boolean) => {
    let agree = 0;
    const t0 = performance.now();
    for (const it of items) {
      if (clearEach) clearMathCaches();
      if (gradeMath(it.gold, it.text).correct === it.right) agree++;
    }
    const s = (performance.now() - t0) / 1000;
    return { responses: n, seconds: Number(s.toFixed(3)), graded_per_s: Math.round(n / s), agree_with_construction: agree };
  };
  clearMathCaches();
  const cold = pass(false);
  const warm = pass(false);
  const uncached = pass(true);
  // pathological sizes: 1 MB (refused by length) and just under the length limit (scanned)
  const timeOne = (text: string) => {
    const t = performance.now();
    const g = gradeMath(golds[0], text);
    return { chars: text.length, ms: Number((performance.now() - t).toFixed(2)), extracted: g.extracted !== null };
  };
  const filler = items.map((x) => x.text).join(' ');
  const large = {
    one_mb: timeOne(filler.repeat(Math.ceil(1_000_000 / filler.length)).slice(0, 1_000_000)),
    under_limit: timeOne(filler.repeat(Math.ceil(MAX_RESPONSE_CHARS / filler.length)).slice(0, MAX_RESPONSE_CHARS - 1)),
    unclosed_delimiters: timeOne('\\['.repeat((MAX_RESPONSE_CHARS - 2) / 2)),
  };
  // the library alone: one engine, each distinct gold parsed then evaluated
  const t0 = performance.now();
  const engine = new ComputeEngine();
  const constructMs = performance.now() - t0;
  let parseMs = 0;
  let evalMs = 0;
  for (const g of golds) {
    const t1 = performance.now();
    const e = engine.parse(g);
    const t2 = performance.now();
    e?.N();
    parseMs += t2 - t1;
    evalMs += performance.now() - t2;
  }
  const library = {
    construct_ms: Number(constructMs.toFixed(1)),
    parse_ms_mean: Number((parseMs / golds.length).toFixed(3)),
    evaluate_ms_mean: Number((evalMs / golds.length).toFixed(3)),
    golds: golds.length,
  };
  const out = {
    bench: 'grade math',
    golds: golds.length,
    responses: n,
    mean_chars: Math.round(chars / n),
    right_by_construction: items.filter((x) => x.right).length,
    library,
    large,
    uncached,
    cold,
    warm,
    goal_graded_per_s: 2000,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  const row = (name: string, p: typeof cold) => `${name.padEnd(9)}${String(p.responses).padStart(9)}  ${p.seconds.toFixed(2).padStart(7)}  ${String(p.graded_per_s).padStart(11)}`;
  process.stderr.write(
    [
      'pass      responses  seconds  graded/s',
      row('cold', cold),
      row('warm', warm),
      row('uncached', uncached),
      `large: 1 MB ${large.one_mb.ms} ms (refused), ${large.under_limit.chars} chars ${large.under_limit.ms} ms, unclosed \\[ ${large.unclosed_delimiters.ms} ms`,
      `library: new ComputeEngine() ${library.construct_ms} ms; per gold: parse ${library.parse_ms_mean} ms, evaluate ${library.evaluate_ms_mean} ms`,
      '',
    ].join('\n'),
  );
}

main();

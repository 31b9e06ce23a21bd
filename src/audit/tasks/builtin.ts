// Built-in tasks, generated from a seed: arithmetic at several levels (numeric answers) and a
// multiple-choice variant whose options are generated from the seed. They work offline.

import { createPrng, shuffled } from '../../util/prng';
import { indexLetter, MC_TEMPLATE } from '../formats/mc-letter';
import { scoringFields } from '../formats/registry';
import { seedFor } from '../seeds';
import type { Doc, LoadedTask } from '../types';
import { ARITH_LEVELS, arithTarget, arithText, generateArith, type ArithProblem, type Split } from './arith';

const BUILTIN_TASK_VERSION = 1;
export interface BuiltinOptions {
  questions: number;
  trainQuestions: number;
  seed: number;
}

function arithDoc(p: ArithProblem): Doc {
  return { id: arithText(p), text: arithText(p), target: arithTarget(p) };
}

/** Four options: the answer and three distinct near misses, in a seeded order. */
function mcDoc(p: ArithProblem, seed: number): Doc {
  const rng = createPrng(seedFor(seed, 'mc', arithText(p)));
  const near = [1, -1, 2, -2, 10, -10, 11, -11].map((d) => p.answer + d);
  const distractors = shuffled(near, rng).slice(0, 3);
  const options = shuffled([p.answer, ...distractors], rng);
  // options depend on the seed, so the seed is part of the question's identity
  return {
    id: `${arithText(p)}#${seed}`,
    text: arithText(p),
    target: indexLetter(options.indexOf(p.answer)),
    choices: options.map(String),
  };
}

/** "arith-2d" (numeric) or "arith-2d-mc" (multiple choice). */
export function builtinTask(name: string, opts: BuiltinOptions): LoadedTask {
  const mc = name.endsWith('-mc');
  const level = mc ? name.slice(0, -3) : name;
  if (!Object.hasOwn(ARITH_LEVELS, level)) {
    const known = Object.keys(ARITH_LEVELS).flatMap((l) => [l, `${l}-mc`]);
    throw new Error(`unknown built-in task "builtin:${name}" (known: ${known.map((k) => `builtin:${k}`).join(', ')})`);
  }
  const docs = (split: Split, n: number) => generateArith(level, split, n, opts.seed).map((p) => (mc ? mcDoc(p, opts.seed) : arithDoc(p)));
  const test = docs('test', opts.questions);
  const train = docs('train', opts.trainQuestions);
  return {
    spec: {
      id: `builtin:${name}`,
      name: `${ARITH_LEVELS[level].description}${mc ? ' (multiple choice)' : ''}, seed ${opts.seed}`,
      answerFormat: mc ? 'mc-letter' : 'numeric',
      ...scoringFields(mc ? 'mc-letter' : 'numeric'),
      promptTemplate: mc ? MC_TEMPLATE : '{{question}}',
      metadata: { version: BUILTIN_TASK_VERSION },
      numTest: test.length,
      numTrain: train.length,
    },
    test,
    train,
  };
}

// What the RL trainer and its sweep share: the base checkpoint as tfjs variables, the problems RFT
// trains on and the validation problems its settings are chosen on, the validation score, and the
// `--name=value` options.
//
// Validation problems are the train-split problems the base model held back for its stopping rule:
// neither model ever trains on them, and as train-split problems they are disjoint from every test
// question the audit (and the built-in study) uses.

import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateArith, type ArithProblem } from '../../src/audit/tasks/arith';
import { microConfigFromHf, type MicroConfig } from './config';
import { realized } from './heldout';
import type { Params } from './model';
import { DEFAULT_OPTIONS } from './options';
import { DEFAULT_RFT, type RftOptions } from './rft';
import { decodeSafetensors } from './safetensors';

const ALL = 1_000_000; // more than a split holds: take all of it

export function loadCheckpoint(dir: string): { c: MicroConfig; params: Params } {
  const c = microConfigFromHf(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')));
  const tensors = decodeSafetensors(new Uint8Array(readFileSync(join(dir, 'model.safetensors'))));
  return { c, params: new Map(tensors.map((t) => [t.name, tf.variable(tf.tensor(t.values, t.shape), true, t.name)])) };
}

/** The base's train split in its seeded order: its held-back validation problems, and the rest
 *  (the base's training problems), which RFT samples from and replays. */
export function rftProblems(): { validation: ArithProblem[]; pool: ArithProblem[] } {
  const o = DEFAULT_OPTIONS;
  const split = generateArith(o.level, 'train', ALL, o.seed);
  return { validation: split.slice(0, o.validationQuestions), pool: split.slice(o.validationQuestions) };
}

/** Greedy exact-answer accuracy (default route, answer then eos) on the given problems. */
export function accuracy(problems: readonly ArithProblem[], params: Params, c: MicroConfig): number {
  return realized(problems, params, c).filter((s) => s.correct).length / problems.length;
}

/** DEFAULT_RFT with `--name=value` overrides; an unknown name or a non-number is refused. */
export function parseRftOptions(argv: readonly string[], tool: string): RftOptions {
  const o = { ...DEFAULT_RFT };
  for (const arg of argv) {
    const m = /^--([A-Za-z]+)=(.+)$/.exec(arg);
    if (!m) throw new Error(`${tool}: expected --name=value, got "${arg}"`);
    const [, name, raw] = m;
    if (!(name in o)) throw new Error(`${tool}: unknown option --${name} (known: ${Object.keys(o).join(', ')})`);
    const v = Number(raw);
    if (!Number.isFinite(v)) throw new Error(`${tool}: --${name} needs a number, got "${raw}"`);
    (o as Record<string, number>)[name] = v;
  }
  return o;
}

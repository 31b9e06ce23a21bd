// Training rows for the micro model: "12+34=46<eos>" as next-token targets, loss on the answer only.

import { arithTarget, arithText, type ArithProblem } from '../../src/audit/tasks/arith';
import { EOS_ID, encodeChars } from './vocab';

/** A batch of teacher-forced rows, all padded with eos to one length T. */
export interface Batch {
  inputs: Int32Array; // [B, T]
  targets: Int32Array; // [B, T]
  /** 1 where the target is an answer token or the closing eos, else 0. */
  weights: Float32Array; // [B, T]
  B: number;
  T: number;
}

/** Prompt ids and the answer ids (gold answer then eos) of one problem. */
export function problemIds(p: ArithProblem): { prompt: number[]; answer: number[] } {
  return { prompt: encodeChars(arithText(p)), answer: [...encodeChars(arithTarget(p)), EOS_ID] };
}

/** Rows of one batch from gold answers. */
export function makeBatch(problems: readonly ArithProblem[]): Batch {
  if (problems.length === 0) throw new Error('makeBatch: no problems');
  return makeRowsBatch(problems.map(problemIds));
}

/** Rows of one batch from (prompt, answer) ids — the gold answer, or a model's own sample; T is the
 *  longest prompt + answer minus one (the last token is never an input); loss on the answer only. */
export function makeRowsBatch(rows: readonly { prompt: number[]; answer: number[] }[]): Batch {
  if (rows.length === 0) throw new Error('makeRowsBatch: no rows');
  const T = Math.max(...rows.map((r) => r.prompt.length + r.answer.length)) - 1;
  const B = rows.length;
  const inputs = new Int32Array(B * T).fill(EOS_ID);
  const targets = new Int32Array(B * T).fill(EOS_ID);
  const weights = new Float32Array(B * T);
  rows.forEach(({ prompt, answer }, b) => {
    const seq = [...prompt, ...answer];
    for (let t = 0; t < seq.length - 1; t++) {
      inputs[b * T + t] = seq[t];
      targets[b * T + t] = seq[t + 1];
      if (t + 1 >= prompt.length) weights[b * T + t] = 1;
    }
  });
  return { inputs, targets, weights, B, T };
}

// The conditions the math RL recipes were trained and evaluated with (docs/ARCHITECTURE.md
// "Recipe conditions"), each read from its own repository; a preset of Setup, the audit CLI's
// --recipe and a study plan's "recipe". A recipe sets the prompt, the chat template, decoding,
// new tokens, stop sequences and where the answer is read; the answer is graded by the `math`
// format (equivalence), not by each recipe's own checker. CoLa's boxed 50-token condition is
// boxed.ts.

import { AuditError } from './errors';
import { graderVersionOf } from './formats/registry';
import type { Condition } from './types';

export type RecipeOverrides = Pick<Condition, 'promptTemplate' | 'chatTemplate' | 'decoding' | 'maxNewTokens' | 'stopSequences' | 'answerFormat' | 'graderVersion'> & Partial<Pick<Condition, 'answerLine'>>;

export interface Recipe {
  name: string;
  label: string;
  /** Where each value was read: repository, path and commit. */
  source: string;
  overrides: RecipeOverrides;
}

/** Qwen's math system prompt as a raw prompt with the ChatML markup written out (the recipes below
 *  apply no tokenizer chat template; the models' tokenizers read the markup as special tokens). */
const QWEN_MATH_PROMPT = '<|im_start|>system\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n<|im_start|>user\n{{question}}<|im_end|>\n<|im_start|>assistant\n';
const math = { answerFormat: 'math', graderVersion: graderVersionOf('math') } as const;

export const RECIPES: readonly Recipe[] = [
  {
    name: 'qwen2.5-math-cot',
    label: "Qwen2.5-Math chain of thought (greedy, 2048 tokens, answer in \\boxed{})",
    // Decoding, tokens and stop words: QwenLM/Qwen2.5-Math evaluation/math_eval.py at ab5097e
    // (temperature 0, max_tokens_per_call 2048, stop "</s>", "<|im_end|>", "<|endoftext|>").
    // The prompt "qwen25-math-cot" is not in the stored evaluation/utils.py (615096e holds
    // "qwen-boxed" only); its text here is the one sail-sg/understand-r1-zero train_zero_math.py
    // (14046dc, apply_qwen_math_template) calls the Qwen-Math template.
    source: 'QwenLM/Qwen2.5-Math evaluation/math_eval.py@ab5097e; prompt: sail-sg/understand-r1-zero train_zero_math.py@14046dc',
    overrides: { promptTemplate: QWEN_MATH_PROMPT, chatTemplate: false, decoding: { kind: 'greedy' }, maxNewTokens: 2048, stopSequences: ['</s>', '<|im_end|>', '<|endoftext|>'], ...math },
  },
  {
    name: 'simplerl-zoo',
    label: 'SimpleRL-Zoo evaluation (qwen-boxed prompt, T = 1, top-p 0.95, 16000 tokens)',
    // Prompt "qwen-boxed": QwenLM/Qwen2.5-Math evaluation/utils.py at 615096e. Template, sampling
    // and tokens: hkust-nlp/simpleRL-reason README.md at 9b928d4 (eval_math_nodes.sh --template
    // qwen-boxed --temperature 1.0 --top_p 0.95 --max_tokens 16000; baselines were run greedy).
    // Its stop string is the template's "\n\n" splitter only between few-shot examples, so none here.
    source: 'QwenLM/Qwen2.5-Math evaluation/utils.py@615096e; hkust-nlp/simpleRL-reason README.md@9b928d4',
    overrides: {
      promptTemplate: '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n{{question}}\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n<|im_start|>assistant\n',
      chatTemplate: false,
      decoding: { kind: 'sample', temperature: 1, topP: 0.95, seed: 1 },
      maxNewTokens: 16000,
      stopSequences: [],
      ...math,
    },
  },
  {
    name: 'oat-zero',
    label: 'Oat-Zero evaluation (Qwen-Math template, greedy, 3000 tokens)',
    // sail-sg/understand-r1-zero train_zero_math.py at 14046dc: apply_qwen_math_template, stop
    // strings unset for it; examples/qwen2.5-math-1.5b.sh at d757bfc: --eval_temperature 0
    // --eval_generate_max_length 3000.
    source: 'sail-sg/understand-r1-zero train_zero_math.py@14046dc, examples/qwen2.5-math-1.5b.sh@d757bfc',
    overrides: { promptTemplate: QWEN_MATH_PROMPT, chatTemplate: false, decoding: { kind: 'greedy' }, maxNewTokens: 3000, stopSequences: [], ...math },
  },
  {
    name: 'dapo',
    label: 'DAPO (chat template, "Answer:" last line, T = 1, top-p 0.7, 20480 tokens)',
    // BytedTsinghua-SIA/DAPO README.md at 2805f41: the question text around each problem, the chat
    // template applied, temperature 1.0, top_p 0.7, max_tokens 20480. The answer: volcengine/verl
    // verl/utils/reward_score/math_dapo.py at 012542c (the last "Answer:" match, case-insensitive,
    // to the end of its line; verl compares it by string after normalisation and reads only the
    // response's last 300 characters, neither of which is done here).
    source: 'BytedTsinghua-SIA/DAPO README.md@2805f41; volcengine/verl verl/utils/reward_score/math_dapo.py@012542c',
    overrides: {
      promptTemplate:
        'Solve the following math problem step by step. The last line of your response should be of the form Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\n{{question}}\n\nRemember to put your answer on its own line after "Answer:".',
      chatTemplate: true,
      decoding: { kind: 'sample', temperature: 1, topP: 0.7, seed: 1 },
      maxNewTokens: 20480,
      stopSequences: [],
      answerLine: 'Answer:',
      ...math,
    },
  },
];

export const RECIPE_NAMES: readonly string[] = RECIPES.map((r) => r.name);

/** The recipe a name names; throws naming the known ones. */
export function recipeOf(name: string): Recipe {
  const r = RECIPES.find((x) => x.name === name);
  if (!r) throw new AuditError('bad-input', `unknown recipe ${JSON.stringify(name)} (known: ${RECIPE_NAMES.join(', ')})`);
  return r;
}

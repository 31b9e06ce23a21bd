// A generated lm-evaluation-harness samples file (generate_until, exact_match), as the harness
// writes one line per question: for the import specs, the import bench and the import e2e.

/** Line `i` (doc_id i): "What is i+2?", answered right on two questions of three. */
export function lmEvalSampleLine(i: number): string {
  const answer = String(i + 2);
  return JSON.stringify({
    doc_id: i,
    doc: { question: `What is ${i}+2?`, answer: `#### ${answer}` },
    target: answer,
    arguments: { gen_args_0: { arg_0: `Question: What is ${i}+2?\nAnswer:`, arg_1: { until: ['Question:'], do_sample: false } } },
    resps: [[i % 3 ? `The answer is ${answer}.` : 'I am not sure.']],
    filtered_resps: [i % 3 ? answer : '[invalid]'],
    filter: 'strict-match',
    metrics: ['exact_match'],
    doc_hash: `doc-${i}`,
    prompt_hash: `prompt-${i}`,
    target_hash: `target-${i}`,
    exact_match: i % 3 ? 1 : 0,
  });
}

/** `n` lines, each ended by "\n". */
export function lmEvalSamplesText(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += lmEvalSampleLine(i) + '\n';
  return out;
}

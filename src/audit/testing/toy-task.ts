// A task of a few hand-written questions for unit tests: numeric answers, the bare question as
// the prompt.
import type { Doc, LoadedTask } from '../types';

export function toyTask(test: Doc[], train: Doc[] = []): LoadedTask {
  return {
    spec: { id: 'test:toy', name: 'toy', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: test.length, numTrain: train.length },
    test,
    train,
  };
}

import { describe, expect, test } from 'vitest';
import { queuedBatchId, type QueuedJobData } from '../queue/batch-queue-job.js';
import { QueuedRunSettingsError } from '../queue/queued-run-settings-error.js';
import type { QueuedRunSettings } from '../queue/queued-run-settings.js';
import { evalRunNamespace, queuedEvalRunNamespace } from './eval-run-namespace.js';

const sonnet: QueuedRunSettings = { kind: 'rlm', model: 'anthropic:claude-sonnet-4-5' };
const haiku: QueuedRunSettings = { kind: 'rlm', model: 'anthropic:claude-haiku-4-5' };
const evalId = queuedBatchId('data.jsonl');

function jobData(fields: Partial<QueuedJobData>): QueuedJobData {
  return { id: 1, query: 'Question 1?', context: undefined, ...fields };
}

describe('evalRunNamespace', () => {
  test('differs by variant, by eval and by the variant’s settings; the same otherwise', () => {
    const namespaces = new Set([
      evalRunNamespace(evalId, 'a', sonnet),
      evalRunNamespace(evalId, 'b', sonnet),
      evalRunNamespace(evalId, 'a', haiku),
      evalRunNamespace(queuedBatchId('other.jsonl'), 'a', sonnet),
    ]);
    expect(namespaces.size).toBe(4);
    expect(evalRunNamespace(evalId, 'a', sonnet)).toBe(evalRunNamespace(evalId, 'a', sonnet));
    expect(evalRunNamespace(evalId, 'a', sonnet)).toMatch(/^rlm-eval:a:[0-9a-f]{24}$/);
  });

  test('a queued job gets the namespace the local eval gives its variant', () => {
    const batch = { id: evalId, maxArtifactBytes: undefined };
    expect(queuedEvalRunNamespace(jobData({ batch, run: sonnet, variant: 'a' }))).toBe(
      evalRunNamespace(evalId, 'a', sonnet),
    );
  });

  test('a job without a variant or a batch (a batch’s, or from an earlier version) has none', () => {
    const batch = { id: evalId, maxArtifactBytes: undefined };
    expect(queuedEvalRunNamespace(jobData({ batch, run: sonnet }))).toBeUndefined();
    expect(queuedEvalRunNamespace(jobData({ run: sonnet, variant: 'a' }))).toBeUndefined();
  });

  test.each([
    ['a number', 7],
    ['an object', { name: 'a' }],
    ['empty', ''],
    ['huge', 'v'.repeat(100_000)],
    ['a separator', 'a:b'],
    ['a line break', 'a\nb'],
  ])('a variant that is %s is refused with a QueuedRunSettingsError', (_, variant) => {
    const data = jobData({
      batch: { id: evalId, maxArtifactBytes: undefined },
      run: sonnet,
      variant: variant as string,
    });
    expect(() => queuedEvalRunNamespace(data)).toThrow(/the job's variant must be a name/);
    try {
      queuedEvalRunNamespace(data);
    } catch (error) {
      expect(QueuedRunSettingsError.isInstance(error)).toBe(true);
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });
});

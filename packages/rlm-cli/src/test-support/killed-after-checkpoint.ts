import { type FakeMessagesRequest, type FakeReply, fakeText } from '@rlm/anthropic/testing';
import { waitForRedisKey } from './redis-cli.js';

/**
 * A fake model's script for a run taken over from a killed worker: step 1 sets `half`; in step 2
 * the first time, once step 1's checkpoint is in the Redis store at `storeUrl`, `kill` stops the
 * worker and the request hangs; otherwise step 2 doubles `half` and the answer is 42, which only
 * a run that ran step 1 or resumed its checkpoint can give.
 */
export function killedAfterCheckpoint(
  storeUrl: string,
  kill: () => void,
): (request: FakeMessagesRequest) => Promise<FakeReply> {
  let killed = false;
  return async (request) => {
    const turns = request.messages.length;
    if (turns === 1) return fakeText('```repl\nconst half = 21\nprint("stored")\n```');
    if (turns === 3 && !killed) {
      // Step 1's checkpoint is written while this call runs. On Redis the checkpoint's entry is
      // written before the run's head that points at it, and a resume reads the head: the entry
      // alone is not yet a checkpoint a takeover can find.
      killed = true;
      await waitForRedisKey(storeUrl, '*checkpoint-head:*');
      kill();
      return { kind: 'hang' };
    }
    if (turns === 3) return fakeText('```repl\nconst whole = half * 2\n```');
    return fakeText('FINAL_VAR(whole)');
  };
}

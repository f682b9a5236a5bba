import { describe, expect, it } from 'vitest';
import type { RlmEvent } from '../events.js';
import { createScriptedModel } from '../testing/scripted-model.js';
import { VariableSpace } from '../variable-space.js';
import type { CallState, Workspace } from './call-state.js';
import type { CallSetup, Command, StepCommand } from './commands.js';
import { type KernelHooks, Scheduler } from './scheduler.js';

const llm = createScriptedModel([]);
const setup: CallSetup = {
  variables: {},
  history: [],
  hostVariables: new Set(['context']),
  counts: { contexts: 1, histories: 0 },
};

/** A sandbox that only counts disposals: the kernel never runs code. */
function fakeWorkspace(disposed: string[], name: string): Workspace {
  const sandbox = {
    dispose: async () => {
      disposed.push(name);
    },
  } as unknown as Workspace['sandbox'];
  return {
    sandbox,
    variables: new VariableSpace(sandbox),
    ownsSandbox: true,
    releaseSlot: () => {},
  };
}

/** A kernel whose hooks record what they are asked, with `handle` scripted by the test. */
function kernelWith(handle: (kernel: Scheduler, command: StepCommand, call: CallState) => void) {
  const events: RlmEvent[] = [];
  const dropped: Command[] = [];
  const released: string[] = [];
  const disposed: string[] = [];
  let settleGate: Promise<void> | undefined;
  const hooks: KernelHooks = {
    started: () => {},
    openWorkspace: async (call) => ({
      type: 'WorkspaceReady',
      callId: call.id,
      workspace: fakeWorkspace(disposed, call.id),
      setup,
      resumed: undefined,
    }),
    handle: (command, call) => handle(kernel, command, call),
    dropped: (command) => dropped.push(command),
    summary: () => ({
      usage: { inputTokens: 0, outputTokens: 0, modelCalls: 0, elapsedMs: 0 } as never,
      depthReached: kernel.depthReached,
      durationMs: 0,
    }),
    released: (call) => released.push(call.id),
    beforeSettle: () => settleGate,
  };
  const kernel = new Scheduler(hooks, (event) => events.push(event));
  return {
    kernel,
    events,
    dropped,
    released,
    disposed,
    holdSettle: (gate: Promise<void>) => {
      settleGate = gate;
    },
  };
}

describe('the kernel', () => {
  it('starts a call, hands it its workspace and settles it once on Finalize', async () => {
    const { kernel, events, released } = kernelWith((kernel, command, call) => {
      if (command.type !== 'WorkspaceReady') return;
      expect(call.workspace).toBe(command.workspace);
      kernel.enqueue({ type: 'Finalize', callId: call.id, answer: 42, source: 'submit-tool' });
      kernel.enqueue({ type: 'Finalize', callId: call.id, answer: 43, source: 'submit-tool' });
    });
    const result = await kernel.startCall(
      { query: 'q', context: '', setup, llm },
      undefined,
      () => 'x',
    );
    expect(result).toMatchObject({ answer: 42, source: 'submit-tool' });
    expect(events.map((event) => event.type)).toEqual(['call-start', 'final']);
    expect(released).toEqual(['call-1']);
    expect(kernel.openCalls).toBe(0);
  });

  it('fails the call a throwing handler was handling, with no command lost', async () => {
    const { kernel, events } = kernelWith(() => {
      throw new Error('handler broke');
    });
    await expect(
      kernel.startCall({ query: 'q', context: '', setup, llm }, undefined, () => 'x'),
    ).rejects.toThrow('handler broke');
    expect(events.at(-1)).toMatchObject({ type: 'call-error', message: 'handler broke' });
  });

  it('fails the call when spawned work rejects, and drops commands for an ended call', async () => {
    const { kernel, dropped } = kernelWith((kernel, command, call) => {
      if (command.type !== 'WorkspaceReady') return;
      kernel.spawn(call.id, () => Promise.reject(new Error('model down')));
    });
    await expect(
      kernel.startCall({ query: 'q', context: '', setup, llm }, undefined, () => 'x'),
    ).rejects.toThrow('model down');
    kernel.enqueue({ type: 'HandleBridgeCall', callId: 'call-1', requestId: 'bridge-1' });
    expect(dropped).toEqual([
      { type: 'HandleBridgeCall', callId: 'call-1', requestId: 'bridge-1' },
    ]);
  });

  it('fails the children of a call that ends, and aborts on the signal', async () => {
    const controller = new AbortController();
    let child: Promise<unknown> | undefined;
    const { kernel, released } = kernelWith((kernel, command, call) => {
      if (command.type !== 'WorkspaceReady') return;
      if (call.parentId === undefined) {
        child = kernel.startCall(
          { query: 'child', context: '', parentId: call.id, setup, llm },
          undefined,
          () => 'x',
        );
        child.catch(() => {});
      } else {
        controller.abort(new Error('user stop'));
      }
    });
    const root = kernel.startCall(
      { query: 'q', context: '', setup, llm },
      controller.signal,
      (reason) => reason,
    );
    await expect(root).rejects.toThrow('user stop');
    await expect(child).rejects.toThrow('the parent query ended');
    expect(kernel.depthReached).toBe(1);
    expect(released.sort()).toEqual(['call-1', 'call-2']);
  });

  it('gives back a sandbox that arrives after its call ended', async () => {
    const { kernel, disposed } = kernelWith(() => {});
    const root = kernel.startCall({ query: 'q', context: '', setup, llm }, undefined, () => 'x');
    kernel.failRoot(new Error('wall time'));
    await expect(root).rejects.toThrow('wall time');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(disposed).toEqual(['call-1']);
  });

  it('settles only once the beforeSettle work is done', async () => {
    let open = () => {};
    const harness = kernelWith((kernel, command, call) => {
      if (command.type === 'WorkspaceReady') {
        kernel.enqueue({ type: 'Finalize', callId: call.id, answer: 'a', source: 'final-text' });
      }
    });
    harness.holdSettle(new Promise<void>((resolve) => (open = resolve)));
    let settled = false;
    const root = harness.kernel
      .startCall({ query: 'q', context: '', setup, llm }, undefined, () => 'x')
      .then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(harness.events.at(-1)?.type).toBe('final');
    expect(settled).toBe(false);
    open();
    await root;
    expect(settled).toBe(true);
  });
});

import type { ArtifactStore } from '../../artifact-store.js';
import type { ResumeState } from './checkpoints.js';
import type { Sandbox } from '../../sandbox.js';

/** A variable a resume named as restored but could not bring back, and why. */
export interface UnrestoredVariable {
  readonly name: string;
  /** Why, in a few words for the model (`its saved copy could not be read`, ...). */
  readonly reason: string;
  /** The underlying error's message, for the warning event; absent when there is none. */
  readonly detail?: string;
}

/** What {@link restoreInBackground} needs. */
export interface BackgroundRestoreOptions {
  readonly sandbox: Sandbox;
  /** Where the checkpoint's blobs are: only `loadBytes` is used. */
  readonly artifacts: Pick<ArtifactStore, 'loadBytes'>;
  /** The checkpoint's state; its `serializedBlobs` missing from `serializedVariables` are read. */
  readonly state: ResumeState;
}

const unreadable = 'its saved copy could not be read';
const refused = 'this sandbox could not restore it';

/**
 * The resume state as the model should read it before the restore has run: a sandbox without
 * `restoreVariables` cannot restore any serialised variable, so those are lost at once, with
 * the reason. Pure.
 */
export function planRestore(state: ResumeState, sandbox: Sandbox): ResumeState {
  const names = Object.keys(state.serializedDigests);
  if (names.length === 0 || sandbox.restoreVariables) return state;
  return withLost(
    state,
    names.map((name) => ({ name, reason: refused })),
  );
}

/** `state` with `variables` added to its lost ones. Pure. */
export function withLost(
  state: ResumeState,
  variables: readonly UnrestoredVariable[],
): ResumeState {
  if (variables.length === 0) return state;
  return {
    ...state,
    lost: [...state.lost, ...variables.map((variable) => variable.name)],
    lostReasons: {
      ...state.lostReasons,
      ...Object.fromEntries(variables.map((variable) => [variable.name, variable.reason])),
    },
  };
}

/**
 * Restores a checkpoint's sandbox-serialised variables, off the critical path of a resume:
 * reads each one's bytes from the store (the ones the checkpoint was loaded without), then
 * hands them all to `Sandbox.restoreVariables` in one call. Meant to run while the model is
 * asked for the first step after the resume; the first execution waits for it. Resolves with
 * the variables that could not be restored (a blob missing or damaged, a value the sandbox
 * refused, a sandbox disposed meanwhile); never rejects.
 */
export async function restoreInBackground(
  options: BackgroundRestoreOptions,
): Promise<UnrestoredVariable[]> {
  const { sandbox, artifacts, state } = options;
  const lostAlready = new Set(state.lost);
  const names = Object.keys(state.serializedDigests).filter((name) => !lostAlready.has(name));
  if (names.length === 0) return [];
  if (!sandbox.restoreVariables) return names.map((name) => ({ name, reason: refused }));
  const lost: UnrestoredVariable[] = [];
  const bytesByName: Record<string, Uint8Array> = {};
  for (const name of names) {
    const loaded = state.serializedVariables[name];
    if (loaded !== undefined) {
      bytesByName[name] = loaded;
      continue;
    }
    const blob = state.serializedBlobs[name];
    if (blob === undefined) {
      lost.push({ name, reason: unreadable, detail: 'the checkpoint has no intact copy of it' });
      continue;
    }
    try {
      bytesByName[name] = await artifacts.loadBytes(blob);
    } catch (error) {
      lost.push({ name, reason: unreadable, detail: messageOf(error) });
    }
  }
  const restoring = Object.keys(bytesByName);
  if (restoring.length === 0) return lost;
  try {
    const unrestored = await sandbox.restoreVariables(bytesByName);
    for (const name of unrestored) lost.push({ name, reason: refused });
  } catch (error) {
    for (const name of restoring) lost.push({ name, reason: refused, detail: messageOf(error) });
  }
  return lost;
}

/** What the model reads, with its first execution's output, about variables not restored. */
export function unrestoredNote(variables: readonly UnrestoredVariable[]): string {
  const named = variables.map((variable) => `${variable.name} (${variable.reason})`).join(', ');
  return `Note: these variables could not be restored after the resume and are not defined: ${named}. Recompute them if you need them.`;
}

/** The warning event's message about variables not restored, with each error's message. */
export function unrestoredWarning(variables: readonly UnrestoredVariable[]): string {
  const named = variables
    .map((variable) => `${variable.name} (${variable.detail ?? variable.reason})`)
    .join('; ');
  return `Could not restore after the resume: ${named}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import packageJson from '../package.json' with { type: 'json' };

/** The version of `@rlm/core`: the runtime version persisted tool code is checked against. */
export const coreVersion: string = packageJson.version;

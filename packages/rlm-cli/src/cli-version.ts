import packageJson from '../package.json' with { type: 'json' };

/** The version of `@rlm/cli`, as `rlm --version` prints it. */
export const cliVersion: string = packageJson.version;

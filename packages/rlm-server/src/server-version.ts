import packageJson from '../package.json' with { type: 'json' };

/** The version of `@rlm/server`, as the MCP server reports it. */
export const serverVersion: string = packageJson.version;

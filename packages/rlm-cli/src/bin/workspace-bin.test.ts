import { execFile } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { useTemporaryDirectory } from '../test-support/use-temporary-directory.js';

/**
 * The `rlm` command as the README runs it in this repository: `pnpm -s rlm`, `pnpm exec rlm` and
 * `npx rlm`, from the top and from a package's directory. Needs `pnpm build` first.
 */

const repositoryRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const packageBin = fileURLToPath(new URL('../../bin/rlm.js', import.meta.url));
const { root } = useTemporaryDirectory('rlm-cli-workspace-bin-');

/** Runs a command to its end; resolves its exit code and output, whatever the code. */
async function run(file: string, args: readonly string[], cwd: string) {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, [...args], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the rlm command in this repository', () => {
  test('pnpm -s rlm and pnpm exec rlm print only what rlm prints, from the top or a package', async () => {
    const version = (await run(process.execPath, [packageBin, '--version'], root)).stdout;
    expect(version).toMatch(/^\d+\.\d+\.\d+\n$/);
    for (const cwd of [repositoryRoot, path.join(repositoryRoot, 'packages/rlm-core/src')]) {
      for (const command of [
        ['-s', 'rlm'],
        ['exec', 'rlm'],
      ]) {
        expect(await run('pnpm', [...command, '--version'], cwd)).toMatchObject({
          code: 0,
          stdout: version,
        });
        // A failure: rlm's own line on stderr, its exit code, nothing from pnpm on stdout.
        const failed = await run(
          'pnpm',
          [...command, 'runs', '--store', '/nonexistent/rlm.sqlite'],
          cwd,
        );
        expect(failed).toMatchObject({ code: 2, stdout: '' });
        expect(failed.stderr).toBe(
          'rlm: no store at /nonexistent/rlm.sqlite: no run was kept there yet; run a query first, or pass --store <file>\n',
        );
      }
    }
  }, 120_000);

  test('npx rlm finds the workspace command from a package directory, installing nothing', async () => {
    const result = await run(
      'npx',
      ['--no', 'rlm', 'runs', '--store', '/nonexistent/rlm.sqlite'],
      path.join(repositoryRoot, 'packages/rlm-trace'),
    );
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('rlm: no store at /nonexistent/rlm.sqlite');
  }, 120_000);

  test('before the build, the command says to build instead of failing on a missing module', async () => {
    const bin = path.join(root, 'unbuilt', 'bin', 'rlm.js');
    await mkdir(path.dirname(bin), { recursive: true });
    await copyFile(packageBin, bin);
    expect(await run(process.execPath, [bin, '--version'], root)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'rlm: @rlm/cli is not built yet; run pnpm build at the top of the repository, then try again\n',
    });
  });
});

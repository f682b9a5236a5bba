import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ContextLoadError } from '../context-load-error.js';
import { fileSystemError } from './file-system-error.js';

/**
 * Where the system keeps files that are not files: the kernel's views of processes and devices
 * (`/proc/self/environ` holds the environment, API keys included). Never a context, whatever
 * the root.
 */
const systemDirectories = ['/proc', '/sys', '/dev'];

/**
 * The directory a job's context must lie in (`--context-root`), resolved: jobs of a batch or a
 * queue name their context files, and only files under this directory are read for them.
 */
export class ContextRoot {
  /** The directory as the operator gave it, for messages. */
  readonly given: string;
  /** Its real path: symbolic links resolved. */
  readonly real: string;

  private constructor(given: string, real: string) {
    this.given = given;
    this.real = real;
  }

  /**
   * Resolves `directory` (relative to the working directory).
   *
   * @throws {ContextLoadError} when it does not exist or is not a directory.
   */
  static async open(directory: string): Promise<ContextRoot> {
    let real: string;
    try {
      real = await realpath(path.resolve(directory));
    } catch (error) {
      const reason = fileSystemError(directory, error).message.replace(`${directory} `, '');
      throw new ContextLoadError(
        `the context root ${directory} ${reason.startsWith('does not exist') ? reason : `cannot be opened (${reason})`}; name an existing directory`,
        { path: directory, cause: error },
      );
    }
    if (!(await stat(real)).isDirectory()) {
      throw new ContextLoadError(
        `the context root ${directory} is not a directory; name an existing directory`,
        { path: directory },
      );
    }
    return new ContextRoot(directory, real);
  }

  /** Whether the real path `real` lies under the root and outside the system directories. */
  holds(real: string): boolean {
    const relative = path.relative(this.real, real);
    const inside =
      relative === '' ||
      (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
    return inside && !systemDirectory(real);
  }

  /**
   * Whether the entry at `entryPath` (found by walking a directory under the root), its
   * symbolic links resolved, lies under the root. A broken link does not.
   */
  holdsSync(entryPath: string): boolean {
    try {
      return this.holds(realpathSync(entryPath));
    } catch {
      return false;
    }
  }

  /**
   * The real path of `target`, a job's context: a regular file (or, with `kind: 'directory'`,
   * a directory) under the root once symbolic links are resolved.
   *
   * @throws {ContextLoadError} with one line saying why it is refused: missing, outside the
   * root, a system file (`/proc`, `/sys`, `/dev`), a device, a FIFO, a socket, or not the kind
   * asked for.
   */
  async confine(target: string, kind: 'file' | 'directory'): Promise<string> {
    let real: string;
    try {
      real = await realpath(target);
    } catch (error) {
      throw fileSystemError(target, error);
    }
    const leadsTo = real === path.resolve(target) ? '' : ` (it leads to ${real})`;
    if (systemDirectory(real)) {
      throw new ContextLoadError(
        `${target} is a system file${leadsTo}, not a context: a context must be a file under the context root ${this.given}`,
        { path: target },
      );
    }
    if (!this.holds(real)) {
      throw new ContextLoadError(
        `${target} is outside the context root ${this.given}${leadsTo}; move it under the root, or give the root that holds it with --context-root`,
        { path: target },
      );
    }
    const stats = await stat(real).catch((error: unknown) => {
      throw fileSystemError(target, error);
    });
    const found = stats.isFIFO()
      ? 'a FIFO'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : stats.isDirectory()
            ? 'a directory'
            : stats.isFile()
              ? 'a file'
              : 'a special file';
    if (found !== `a ${kind}`) {
      throw new ContextLoadError(
        `${target} is ${found}, not ${kind === 'file' ? 'a regular file' : 'a directory'}: a context must be ${kind === 'file' ? 'a regular file' : 'a directory'} under the context root ${this.given}`,
        { path: target },
      );
    }
    return real;
  }
}

function systemDirectory(real: string): boolean {
  return systemDirectories.some(
    (directory) => real === directory || real.startsWith(`${directory}/`),
  );
}

import { randomBytes } from 'node:crypto';
import path from 'node:path';

/**
 * Where everything lives under a store root:
 *
 * ```text
 * <root>/registry.json                     tools by role
 * <root>/tools/<role>/<method>.json        method files (plus transient .lock and .tmp files)
 * <root>/archive/<role>/<stamp>/           pruned tools: tool.json and methods/
 * <root>/quarantine/...                    unreadable or set-aside files, timestamped
 * <root>/calls.jsonl                       the event log
 * ```
 *
 * Roles and methods must be valid tool names (checked by the callers), so they are safe path
 * segments.
 */
export class ToolStoreLayout {
  constructor(readonly root: string) {}

  get registryFile(): string {
    return path.join(this.root, 'registry.json');
  }

  get toolsDirectory(): string {
    return path.join(this.root, 'tools');
  }

  roleDirectory(role: string): string {
    return path.join(this.toolsDirectory, role);
  }

  methodFile(role: string, method: string): string {
    return path.join(this.toolsDirectory, role, `${method}.json`);
  }

  roleArchiveDirectory(role: string): string {
    return path.join(this.root, 'archive', role);
  }

  get callLogFile(): string {
    return path.join(this.root, 'calls.jsonl');
  }

  /**
   * A fresh place under `quarantine/` for `file`, mirroring its place under the root, its
   * name stamped with the time and a random suffix: `quarantine/tools/r/m.<stamp>-<hex>.json`.
   */
  quarantineFileFor(file: string, at: Date): string {
    const relative = path.relative(this.root, file);
    const extension = path.extname(relative);
    const stem = relative.slice(0, relative.length - extension.length);
    const suffix = randomBytes(3).toString('hex');
    return path.join(this.root, 'quarantine', `${stem}.${timeStamp(at)}-${suffix}${extension}`);
  }

  /** `file` relative to the root, with forward slashes, for logs and messages. */
  relative(file: string): string {
    return path.relative(this.root, file).split(path.sep).join('/');
  }
}

/** A time as a string safe in file names on every platform: `2026-05-01T10-00-00-000Z`. */
export function timeStamp(at: Date): string {
  return at.toISOString().replace(/[:.]/g, '-');
}

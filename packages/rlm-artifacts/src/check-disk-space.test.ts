import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { expect, test } from 'vitest';
import { checkDiskSpace } from './check-disk-space.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';

test('a write that fits twice with headroom goes ahead; one that does not is refused, saying what is free', async () => {
  const stats = await statfs(tmpdir());
  const free = stats.bavail * stats.bsize;
  await expect(checkDiskSpace(tmpdir(), 1024, 1024)).resolves.toBeUndefined();
  const refused = checkDiskSpace(tmpdir(), Math.ceil(free / 2), 1_048_576);
  await expect(refused).rejects.toBeInstanceOf(ArtifactStoreError);
  await expect(refused).rejects.toThrow(
    /^@rlm\/artifacts: the disk holding the store is too full to store [\d.]+ MiB \([\d.]+ MiB free; a write needs twice its size plus 1\.0 MiB\): free some space, or store less$/,
  );
});

test('a directory whose free space cannot be read lets the write go ahead', async () => {
  await expect(checkDiskSpace('/no/such/directory', 1e15, 0)).resolves.toBeUndefined();
});

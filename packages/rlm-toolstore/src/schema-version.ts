/**
 * Version of the on-disk format of `registry.json` and of method files. A method file of
 * another version is regenerated; a registry of another version is quarantined and rebuilt.
 */
export const toolStoreSchemaVersion = 1;

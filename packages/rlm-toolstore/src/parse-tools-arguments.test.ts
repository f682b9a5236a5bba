import { describe, expect, test } from 'vitest';
import { parseToolsArguments } from './parse-tools-arguments.js';

describe('parseToolsArguments', () => {
  test.each([
    [['list'], { name: 'list', json: false }],
    [['list', '--json'], { name: 'list', json: true }],
    [['stale', '--older-than', '30'], { name: 'stale', json: false, pruneAfterDays: 30 }],
    [
      ['prune', '--dry-run', '--older-than=7.5'],
      { name: 'prune', dryRun: true, pruneAfterDays: 7.5 },
    ],
    [['prune'], { name: 'prune', dryRun: false, pruneAfterDays: undefined }],
    [['restore', 'csv_parser'], { name: 'restore', role: 'csv_parser', archiveId: undefined }],
    [
      ['restore', 'csv_parser', '2026-05-01T10-00-00-000Z'],
      { name: 'restore', role: 'csv_parser', archiveId: '2026-05-01T10-00-00-000Z' },
    ],
    [
      ['quarantine', 'csv_parser.parse'],
      { name: 'quarantine', role: 'csv_parser', method: 'parse' },
    ],
    [
      ['bless', 'csv_parser.parse', '--reset-metrics'],
      { name: 'bless', role: 'csv_parser', method: 'parse', resetMetrics: true },
    ],
    [['show', 'csv_parser'], { name: 'show', role: 'csv_parser', method: undefined, json: false }],
    [
      ['show', '--json', 'csv_parser.parse'],
      { name: 'show', role: 'csv_parser', method: 'parse', json: true },
    ],
    [['help'], { name: 'help' }],
    [['bless', '-h'], { name: 'help' }],
  ])('%j', (argv, command) => {
    expect(parseToolsArguments(argv)).toEqual({ ok: true, command });
  });

  test.each([
    [[], 'missing command; expected one of list, stale, prune, restore, quarantine, bless, show'],
    [
      ['purge'],
      'unknown command "purge"; expected one of list, stale, prune, restore, quarantine, bless, show',
    ],
    [['list', '--all'], 'unknown option --all for list'],
    [['prune', '--dry-run=yes'], 'option --dry-run takes no value'],
    [['prune', '--older-than'], 'option --older-than needs a value'],
    [['prune', '--older-than', 'soon'], '--older-than needs a number of days, not "soon"'],
    [['bless'], 'bless needs <role.method>'],
    [
      ['bless', 'csv_parser'],
      'invalid role.method "csv_parser"; names are identifiers like csv_parser.parse',
    ],
    [
      ['quarantine', 'a.b.c'],
      'invalid role.method "a.b.c"; names are identifiers like csv_parser.parse',
    ],
    [
      ['show', '../etc'],
      'invalid role or role.method "../etc"; names are identifiers like csv_parser.parse',
    ],
    [['restore', 'bad-role'], 'invalid role "bad-role"'],
    [['list', 'extra'], 'unexpected argument "extra" for list'],
  ])('%j fails', (argv, message) => {
    expect(parseToolsArguments(argv)).toEqual({ ok: false, message });
  });
});

import { toolsHelpText } from '@rlm/toolstore';
import { describe, expect, test } from 'vitest';
import { helpText } from './help-text.js';

describe('rlm --help', () => {
  test('names every rlm tools command, restore included', () => {
    const commands = [...toolsHelpText.matchAll(/^ {2}([a-z]+) /gm)].map((match) => match[1]);
    expect(commands).toEqual(['list', 'stale', 'prune', 'restore', 'quarantine', 'bless', 'show']);
    const maintenance = helpText().slice(helpText().indexOf('Maintenance:'));
    for (const command of commands) expect(maintenance).toContain(` ${command} `);
  });
});

// The one permission function, against the algorithm of the widely used API.
import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, Permission, type PermissionGuild, computePermissions, normalizePermissions } from '../../domain/permissions.js';

const { VIEW_CHANNEL, SEND_MESSAGES, MANAGE_CHANNELS, KICK_MEMBERS, ADMINISTRATOR, EMBED_LINKS, ATTACH_FILES, MENTION_EVERYONE, ADD_REACTIONS } = Permission;

const guild: PermissionGuild = {
  guildId: 'g',
  ownerId: 'owner',
  roles: new Map([
    ['g', { permissions: (VIEW_CHANNEL | SEND_MESSAGES).toString() }],
    ['mod', { permissions: KICK_MEMBERS }],
    ['admin', { permissions: ADMINISTRATOR }],
    ['helper', { permissions: MANAGE_CHANNELS }],
  ]),
};
const member = (roleIds: string[] = []) => ({ userId: 'u', roleIds });
const NOW = Date.parse('2026-11-26T12:00:00.000Z');

describe('computePermissions', () => {
  it('gives the owner everything, even against overwrites', () => {
    expect(computePermissions(guild, { userId: 'owner', roleIds: [] }, NOW, [{ id: 'g', type: 0, allow: 0n, deny: VIEW_CHANNEL }])).toBe(ALL_PERMISSIONS);
  });

  it('starts from @everyone and ORs the member roles', () => {
    expect(computePermissions(guild, member(), NOW)).toBe(VIEW_CHANNEL | SEND_MESSAGES);
    expect(computePermissions(guild, member(['mod', 'helper']), NOW)).toBe(VIEW_CHANNEL | SEND_MESSAGES | KICK_MEMBERS | MANAGE_CHANNELS);
  });

  it('gives administrators everything and skips overwrites for them', () => {
    expect(computePermissions(guild, member(['admin']), NOW, [{ id: 'g', type: 0, allow: '0', deny: VIEW_CHANNEL.toString() }])).toBe(ALL_PERMISSIONS);
  });

  it('applies @everyone, then all role overwrites together, then the member overwrite', () => {
    const overwrites = [
      { id: 'g', type: 0, allow: 0n, deny: SEND_MESSAGES | VIEW_CHANNEL },
      { id: 'mod', type: 0, allow: VIEW_CHANNEL | SEND_MESSAGES, deny: 0n },
      // A deny of one role does not beat another role's allow: role overwrites are OR-ed, denies first.
      { id: 'helper', type: 0, allow: 0n, deny: SEND_MESSAGES },
      { id: 'u', type: 1, allow: ADD_REACTIONS, deny: MANAGE_CHANNELS },
    ];
    expect(computePermissions(guild, member(), NOW, overwrites)).toBe(0n);
    expect(computePermissions(guild, member(['mod']), NOW, overwrites)).toBe(VIEW_CHANNEL | SEND_MESSAGES | KICK_MEMBERS | ADD_REACTIONS);
    expect(computePermissions(guild, member(['mod', 'helper']), NOW, overwrites)).toBe(VIEW_CHANNEL | SEND_MESSAGES | KICK_MEMBERS | ADD_REACTIONS);
  });

  it('leaves nothing in a channel without VIEW_CHANNEL', () => {
    expect(computePermissions(guild, member(['mod']), NOW, [{ id: 'u', type: 1, allow: 0n, deny: VIEW_CHANNEL }])).toBe(0n);
  });

  it('takes away mentioning @everyone, files and embeds without SEND_MESSAGES', () => {
    const generous = {
      ...guild,
      roles: new Map([['g', { permissions: VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | MENTION_EVERYONE | ADD_REACTIONS }]]),
    };
    expect(computePermissions(generous, member(), NOW, [{ id: 'g', type: 0, allow: 0n, deny: SEND_MESSAGES }])).toBe(VIEW_CHANNEL | ADD_REACTIONS);
    // At guild level (no channel), nothing is implied away.
    expect(computePermissions(generous, member(), NOW)).toBe(VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | MENTION_EVERYONE | ADD_REACTIONS);
  });

  it('leaves a timed-out member VIEW_CHANNEL and READ_MESSAGE_HISTORY until the timeout ends, overwrites applied first', () => {
    const reader = {
      ...guild,
      roles: new Map([...guild.roles, ['g', { permissions: VIEW_CHANNEL | SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY | ADD_REACTIONS }]]),
    };
    const timedOut = { ...member(), communicationDisabledUntil: '2026-11-26T12:00:01.000Z' };
    const hidden = [{ id: 'u', type: 1, allow: 0n, deny: VIEW_CHANNEL }];
    expect(computePermissions(reader, timedOut, NOW)).toBe(VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY);
    expect(computePermissions(reader, timedOut, NOW, hidden)).toBe(0n);
    expect(computePermissions(reader, timedOut, NOW + 1000)).toBe(VIEW_CHANNEL | SEND_MESSAGES | Permission.READ_MESSAGE_HISTORY | ADD_REACTIONS);
    expect(computePermissions(reader, { ...timedOut, roleIds: ['admin'] }, NOW)).toBe(ALL_PERMISSIONS);
  });

  it('has the bit values of the client notes and keeps only known bits of client input', () => {
    expect(Permission.MANAGE_ROLES).toBe(1n << 28n);
    expect(Permission.USE_APPLICATION_COMMANDS).toBe(1n << 31n);
    expect(normalizePermissions(((1n << 62n) | 8n).toString())).toBe('8');
  });
});

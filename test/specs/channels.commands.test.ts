// Command specs of a guild's channels (commands/channels.ts): created, changed and their overwrites set, on the guild
// stream. A forum's tags keep the ids the channel gave them; a tag without one of those gets a new id.
import { describe, expect, it } from 'vitest';
import { createChannel, readChannels, setChannelOverwrite, updateChannel } from '../../commands/channels.js';
import type { GuildEvent } from '../../domain/guild.js';
import { Permission } from '../../domain/permissions.js';
import { NEW_IDS, NOW, givenStreams } from './support.js';
import { ANNOUNCEMENTS, G, GENERAL, accounts, ada, bob, cy, finn, guildStream } from './events.js';

const people = accounts(ada, bob, cy, finn);
const GUILD = `guild-${G}`;
const FORUM = '20';
const bugTag = { id: '30', name: 'bug', moderated: false, emoji_id: null, emoji_name: null };
/** The guild with a forum whose one tag is `bug`. */
const withForum: [string, GuildEvent[]] = [
  GUILD,
  [
    ...guildStream[1],
    {
      type: 'ChannelCreated',
      data: { guildId: G, channel: { id: FORUM, type: 15, name: 'help', position: 2, parent_id: null, permission_overwrites: [], available_tags: [bugTag] } },
    },
  ],
];

describe('createChannel', () => {
  it('appends ChannelCreated under a new id, its forum tags given new ids', () =>
    givenStreams(...people, guildStream)
      .when((deps) => createChannel(deps, { actorId: ada.id }, G, { name: 'help', type: 15, available_tags: [{ name: 'bug' }] }))
      .then({
        stream: GUILD,
        type: 'ChannelCreated',
        data: {
          guildId: G,
          channel: expect.objectContaining({ id: NEW_IDS[0], name: 'help', type: 15, available_tags: [{ ...bugTag, id: NEW_IDS[1] }] }),
        },
        metadata: { actorId: ada.id, createdAt: NOW },
      }));

  it('refuses a member without MANAGE_CHANNELS, appending nothing', () =>
    givenStreams(...people, guildStream)
      .when((deps) => createChannel(deps, { actorId: bob.id }, G, { name: 'help', type: 0 }))
      .thenRefuses('MISSING_PERMISSIONS'));
});

describe('updateChannel', () => {
  it('keeps the id of a tag the forum has and gives a new one to a tag it has not', () =>
    givenStreams(...people, withForum)
      .when((deps) =>
        updateChannel(deps, { actorId: ada.id }, FORUM, {
          available_tags: [
            { id: bugTag.id, name: 'bug' },
            { id: '999', name: 'idea' },
          ],
        }),
      )
      .then({
        stream: GUILD,
        type: 'ChannelUpdated',
        data: {
          guildId: G,
          channelId: FORUM,
          changes: [expect.objectContaining({ key: 'available_tags', new_value: [bugTag, { ...bugTag, id: NEW_IDS[0], name: 'idea' }] })],
        },
      }));

  it('answers UNKNOWN_CHANNEL to someone outside the guild, appending nothing', () =>
    givenStreams(...people, withForum)
      .when((deps) => updateChannel(deps, { actorId: finn.id }, FORUM, { name: 'mine' }))
      .thenRefuses('UNKNOWN_CHANNEL'));
});

describe('setChannelOverwrite', () => {
  it('appends ChannelOverwriteSet for a moderator’s overwrite of a permission they hold', () =>
    givenStreams(...people, withForum)
      .when((deps) => setChannelOverwrite(deps, { actorId: ada.id }, FORUM, { id: bob.id, type: 1, allow: '0', deny: '2048' }))
      .then({
        stream: GUILD,
        type: 'ChannelOverwriteSet',
        data: { guildId: G, channelId: FORUM, overwrite: { id: bob.id, type: 1, allow: '0', deny: '2048' }, previous: null },
      }));

  it('refuses a member without MANAGE_ROLES, appending nothing', () =>
    givenStreams(...people, withForum)
      .when((deps) => setChannelOverwrite(deps, { actorId: bob.id }, FORUM, { id: cy.id, type: 1, deny: '2048' }))
      .thenRefuses('MISSING_PERMISSIONS'));
});

describe('readChannels', () => {
  /** The guild with #general hidden from bob. */
  const generalHidden: [string, GuildEvent[]] = [
    GUILD,
    [
      ...guildStream[1],
      {
        type: 'ChannelOverwriteSet',
        data: { guildId: G, channelId: GENERAL, overwrite: { id: bob.id, type: 1, allow: '0', deny: Permission.VIEW_CHANNEL.toString() }, previous: null },
      },
    ],
  ];
  const ids = (docs: { _id: string }[]) => docs.map((doc) => doc._id);

  it('answers the channels the reader can see, by position', () =>
    givenStreams(...people, generalHidden)
      .when(async (deps) => {
        expect(ids(await readChannels(deps, G, ada.id))).toEqual([GENERAL, ANNOUNCEMENTS]);
        expect(ids(await readChannels(deps, G, bob.id))).toEqual([ANNOUNCEMENTS]);
      })
      .then());

  it('answers UNKNOWN_GUILD to someone outside the guild', () =>
    givenStreams(...people, guildStream)
      .when((deps) => readChannels(deps, G, finn.id))
      .thenRefuses('UNKNOWN_GUILD'));
});

// Projection spec of the DMs' and group DMs' documents as their participants leave: one someone is still in keeps its
// document; once the last one leaves (a DM's with their accounts' deletion), its document, messages and reactions are gone.
import { describe, it } from 'vitest';
import type { DmChannelOpened, DmRecipientLeft } from '../../domain/dmChannel.js';
import type { RecipientRemoved } from '../../domain/groupDm.js';
import type { MessageUser } from '../../domain/message.js';
import { dmsProjection } from '../../projections/dms.js';
import { messagesProjection, reactionField } from '../../projections/messages.js';
import { givenProjections } from './support.js';

const C = '700';
const ada: MessageUser = { id: '1', username: 'ada', discriminator: '0', global_name: null, avatar: null, bot: false, public_flags: 0 };
const bob: MessageUser = { id: '2', username: 'bob', discriminator: '0', global_name: null, avatar: null, bot: false, public_flags: 0 };
const opened: DmChannelOpened = {
  type: 'DmChannelOpened',
  data: { channelId: C, type: 3, ownerId: ada.id, name: 'plans', recipients: [ada, bob], openedBy: ada.id },
};
const sent = {
  type: 'MessageCreated',
  data: {
    messageId: '701',
    channelId: C,
    guildId: null,
    message: {
      id: '701',
      channel_id: C,
      type: 0,
      content: 'see you',
      author: ada,
      mentions: [],
      attachments: [],
      embeds: [],
      timestamp: '2025-01-01T00:00:00.000+00:00',
    },
  },
} as const;
const removed = (user: MessageUser, ownerId: string | null): RecipientRemoved => ({
  type: 'RecipientRemoved',
  data: { channelId: C, user, removedBy: user.id, ownerId },
});
const dms = givenProjections(dmsProjection, messagesProjection);

describe('dms projection: group DMs as participants leave', () => {
  it('keeps a group DM someone is still in, with its name and messages', async () => {
    const left = dms(opened, sent).when(removed(ada, bob.id));
    await left.then('channels', C, { name: 'plans', owner_id: bob.id, recipient_ids: [bob.id] });
    await left.then('messages', '701', { content: 'see you' });
  });

  it('drops a group DM, its messages with it, once its last participant leaves', async () => {
    const ended = dms(opened, sent, removed(ada, bob.id)).when(removed(bob, null));
    await ended.then('channels', C, null);
    await ended.then('messages', '701', null);
  });

  it('drops the messages by the messages projection alone, as a projector running only it (or rebuilding only it) does', async () => {
    const messagesAlone = givenProjections(messagesProjection);
    await messagesAlone(sent, removed(ada, bob.id)).when(removed(bob, null)).then('messages', '701', null);
    await messagesAlone(sent).when(removed(ada, bob.id)).then('messages', '701', { content: 'see you' });
  });
});

describe('dms projection: DMs as their participants’ accounts are deleted', () => {
  const dmOpened: DmChannelOpened = { type: 'DmChannelOpened', data: { ...opened.data, type: 1, ownerId: null, name: null } };
  const reacted = {
    type: 'ReactionAdded',
    data: {
      messageId: '701',
      channelId: C,
      guildId: null,
      messageAuthorId: ada.id,
      userId: bob.id,
      emoji: { id: null, name: '👍', animated: false },
      count: 1,
    },
  } as const;
  const left = (user: MessageUser, remaining: string[]): DmRecipientLeft => ({ type: 'DmRecipientLeft', data: { channelId: C, userId: user.id, remaining } });
  const reaction = `701:${reactionField(reacted.data.emoji)}:${bob.id}`;

  it('keeps a DM one of them is still in, with its messages and reactions', async () => {
    const oneLeft = dms(dmOpened, sent, reacted).when(left(ada, [bob.id]));
    await oneLeft.then('channels', C, { type: 1, recipient_ids: [ada.id, bob.id] });
    await oneLeft.then('messages', '701', { content: 'see you' });
    await oneLeft.then('reactions', reaction, { user_id: bob.id });
  });

  it('drops a DM, its messages and reactions with it, once the second leaves, the messages projection alone too', async () => {
    const ended = dms(dmOpened, sent, reacted, left(ada, [bob.id])).when(left(bob, []));
    await ended.then('channels', C, null);
    await ended.then('messages', '701', null);
    await ended.then('reactions', reaction, null);
    await givenProjections(messagesProjection)(sent, reacted).when(left(bob, [])).then('messages', '701', null);
  });
});

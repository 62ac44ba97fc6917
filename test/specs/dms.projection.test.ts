// Projection spec of the group DMs' documents as their participants leave: one someone is still in keeps its
// document; once the last one leaves, its document, messages and reactions are gone.
import { describe, it } from 'vitest';
import type { DmChannelOpened } from '../../domain/dmChannel.js';
import type { RecipientRemoved } from '../../domain/groupDm.js';
import type { MessageUser } from '../../domain/message.js';
import { dmsProjection } from '../../projections/dms.js';
import { messagesProjection } from '../../projections/messages.js';
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

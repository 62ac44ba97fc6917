# An unmodified discord.py 2.x bot working with threads, pointed at Parley by parley.py (Route.BASE and the
# gateway from GET /gateway/bot; the certificate through SSL_CERT_FILE). Once ready it opens a public and a private
# thread in CHANNEL_ID with TextChannel.create_thread and one from a message with Message.create_thread, posts in the
# public one, adds MEMBER_ID to it and removes them, archives and locks it with Thread.edit, archives the private one,
# lists the channel's archived threads (public, private, and the private ones it joined), then adds MEMBER_ID to the
# message's thread, fetches that membership and deletes the thread. It reports each result and each on_thread_create,
# on_thread_update, on_thread_member_join, on_thread_member_remove and on_thread_delete as JSON lines on stdout for
# discordpyThreads.test.ts.
import os
import traceback

import discord

from parley import ParleyClient, report


def described(thread: discord.Thread):
    return {
        'id': str(thread.id),
        'type': thread.type.value,
        'name': thread.name,
        'parent_id': str(thread.parent_id),
        'owner_id': str(thread.owner_id),
        'private': thread.is_private(),
        'invitable': thread.invitable,
        'archived': thread.archived,
        'locked': thread.locked,
        'auto_archive_duration': thread.auto_archive_duration,
        'created': thread.created_at is not None,
    }


class Bot(ParleyClient):
    async def on_thread_create(self, thread):
        report('thread_create', **described(thread))

    async def on_thread_update(self, before, after):
        report('thread_update', id=str(after.id), was_archived=before.archived, archived=after.archived, locked=after.locked)

    async def on_thread_member_join(self, member):
        report('thread_member_join', thread_id=str(member.thread_id), user_id=str(member.id), joined=member.joined_at is not None)

    async def on_thread_delete(self, thread):
        report('thread_delete', id=str(thread.id), name=thread.name)

    async def on_thread_member_remove(self, member):
        report('thread_member_remove', thread_id=str(member.thread_id), user_id=str(member.id))

    async def on_ready(self):
        try:
            await self.walk()
        except Exception:
            report('error', handler='walk', traceback=traceback.format_exc())

    async def walk(self):
        channel = self.get_channel(int(os.environ['CHANNEL_ID']))
        member = discord.Object(int(os.environ['MEMBER_ID']))
        public = await channel.create_thread(name='py public', type=discord.ChannelType.public_thread)
        report('public', **described(public))
        private = await channel.create_thread(name='py private')
        report('private', **described(private))
        starter = await channel.send('start a thread here')
        from_message = await starter.create_thread(name='py from a message')
        report('from_message', message_id=str(starter.id), **described(from_message))

        sent = await public.send('hello from discord.py')
        report('sent', channel_id=str(sent.channel.id), content=sent.content, in_thread=isinstance(sent.channel, discord.Thread))
        await public.add_user(member)
        report('members', ids=sorted(str(m.id) for m in await public.fetch_members()))
        await public.remove_user(member)
        report('members_after_remove', ids=sorted(str(m.id) for m in await public.fetch_members()))

        archived = await public.edit(archived=True, locked=True)
        report('archived', id=str(archived.id), archived=archived.archived, locked=archived.locked)
        await private.edit(archived=True)
        report(
            'lists',
            public=[str(t.id) async for t in channel.archived_threads()],
            private=[str(t.id) async for t in channel.archived_threads(private=True)],
            joined=[str(t.id) async for t in channel.archived_threads(private=True, joined=True)],
            active=sorted(str(t.id) for t in await channel.guild.active_threads()),
        )
        await from_message.add_user(member)
        joined = await from_message.fetch_member(member.id)
        await from_message.delete()
        report('deleted', id=str(from_message.id), member=str(joined.id), member_thread=str(joined.thread_id))


intents = discord.Intents.default()
# THREAD_MEMBERS_UPDATE about other members (on_thread_member_join) comes with the members intent.
intents.members = True
Bot(intents=intents).run(os.environ['BOT_TOKEN'])

# What the discord.py bots here share: the library pointed at Parley through its own hooks, the REST base (Route.BASE),
# the origin of image URLs (Asset.BASE: Parley serves avatars, icons, emojis and stickers at the widely used CDN's
# paths, at its root) and the gateway the Client connects to (from GET /gateway/bot), the self-signed certificate
# being trusted through SSL_CERT_FILE; their reports, JSON lines on stdout for the compatibility tests; a Client
# that reports its handlers' failures as "error"; and one with slash commands that syncs them (globally) when ready.
import json
import os
import traceback

import discord
import yarl
from discord import app_commands
from discord.gateway import DiscordWebSocket

discord.http.Route.BASE = f"{os.environ['PARLEY_ORIGIN']}/api/v10"
discord.asset.Asset.BASE = os.environ['PARLEY_ORIGIN']


def report(event, **data):
    print(json.dumps({'event': event, 'data': data}), flush=True)


class ParleyClient(discord.Client):
    async def setup_hook(self):
        # A Client (not sharded) connects to DEFAULT_GATEWAY, and goes back to it after an invalid session; only
        # AutoShardedClient asks GET /gateway/bot. After a READY it resumes at READY's resume_gateway_url.
        _, url = await self.http.get_bot_gateway()
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)

    async def on_error(self, event, *args, **kwargs):
        report('error', handler=event, traceback=traceback.format_exc())


class CommandTreeClient(ParleyClient):
    """A Client with an app_commands.CommandTree, synced when ready ("ready" reports each command's id by name)."""

    def __init__(self):
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.tree.error(self.on_tree_error)

    async def on_ready(self):
        synced = await self.tree.sync()
        report('ready', user_id=str(self.user.id), commands={c.name: str(c.id) for c in synced})

    async def on_tree_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError):
        report('error', handler='tree', traceback=''.join(traceback.format_exception(error)))

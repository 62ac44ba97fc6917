# discord.py's client (Debian's python3-discord, unmodified) at the API prefix PARLEY_API: logs in, sends an embed
# whose title is too long to the channel CHANNEL_ID, and reports as one JSON line how the library raised the refusal.
import asyncio
import json
import os

import discord

discord.http.Route.BASE = os.environ['PARLEY_API']


async def main():
    client = discord.Client(intents=discord.Intents.none())
    await client.login(os.environ['BOT_TOKEN'])
    try:
        channel = await client.fetch_channel(int(os.environ['CHANNEL_ID']))
        await channel.send(embed=discord.Embed(title='x' * 257))
        result = {'raised': None}
    except discord.HTTPException as error:
        result = {'raised': 'HTTPException', 'status': error.status, 'code': error.code, 'text': error.text}
    except Exception as error:
        result = {'raised': type(error).__name__, 'message': str(error)}
    finally:
        await client.close()
    print(json.dumps(result), flush=True)


asyncio.run(main())

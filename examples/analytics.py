#!/usr/bin/env python3
"""A guild's analytics from Parley's event stream, with the standard library only.

Reads GET /api/v10/guilds/ID/events as NDJSON from the position it saved last (from the start the first time),
folds the events into three answers, and saves the position and the answers together, so the next run carries on
where this one stopped, counting nothing twice:

  - messages per channel per hour (MessageCreated, by the hour of its time, UTC);
  - moderation actions per moderator (bans, unbans, kicks, prunes, timeouts, bulk deletes, others' messages deleted);
  - join/leave churn per day (joins, and leaves, kicks and bans).

Usage:
  PARLEY_TOKEN=... python3 examples/analytics.py --guild ID [--url https://127.0.0.1:8443] \\
      [--ca data/tls/self-signed.crt] [--state analytics-ID.json] [--follow]

Without --follow it stops once caught up and prints the answers as JSON; with it, it keeps reading live and saves
after every line it counts (stop it with Ctrl-C). The token is a user's (Bearer) who has VIEW_AUDIT_LOG in the
guild, or an OAuth2 access token with the guilds.events.read scope.
"""
import argparse
import json
import os
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request

MODERATION = {"MemberBanned", "MemberUnbanned", "MemberKicked", "MembersPruned", "MessagesBulkDeleted"}


def empty_answers():
    return {"messages_per_channel_hour": {}, "moderation_per_moderator": {}, "churn_per_day": {}}


def count(table, *keys):
    """Adds one at table[k1][k2]...; the last key's count."""
    for key in keys[:-1]:
        table = table.setdefault(key, {})
    table[keys[-1]] = table.get(keys[-1], 0) + 1


def fold(answers, event):
    """Counts one event into the answers."""
    kind, data, time = event["type"], event["data"], event["time"]
    if kind == "MessageCreated":
        count(answers["messages_per_channel_hour"], data["channelId"], time[:13] + ":00Z")
    moderator = event["actor_id"] or "service"
    if kind in MODERATION:
        count(answers["moderation_per_moderator"], moderator, kind)
    elif kind == "MessageDeleted" and data.get("deletedBy") != data.get("authorId"):
        count(answers["moderation_per_moderator"], moderator, kind)
    elif kind == "MemberUpdated" and any(c.get("key") == "communication_disabled_until" for c in data.get("changes", [])):
        count(answers["moderation_per_moderator"], moderator, "MemberTimedOut")
    day = time[:10]
    if kind == "MemberJoined":
        count(answers["churn_per_day"], day, "joined")
    elif kind in ("MemberLeft", "MemberKicked", "MemberBanned"):
        count(answers["churn_per_day"], day, "left")


def load(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except FileNotFoundError:
        return {"position": None, "answers": empty_answers()}


def save(path, state):
    """Written whole to a temporary file, then renamed: a crash leaves the last state, never half of one."""
    with open(path + ".tmp", "w", encoding="utf-8") as file:
        json.dump(state, file, indent=2, sort_keys=True)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--guild", required=True)
    parser.add_argument("--url", default="https://127.0.0.1:8443")
    parser.add_argument("--ca", default=os.path.join(os.environ.get("DATA_DIR", "data"), "tls", "self-signed.crt"))
    parser.add_argument("--state")
    parser.add_argument("--follow", action="store_true")
    args = parser.parse_args()
    token = os.environ.get("PARLEY_TOKEN")
    if not token:
        sys.exit("set PARLEY_TOKEN to a token that may read the guild's events")
    state_path = args.state or f"analytics-{args.guild}.json"
    state = load(state_path)

    query = {"follow": "true" if args.follow else "false"}
    if state["position"]:
        query["after"] = state["position"]
    url = f"{args.url}/api/v10/guilds/{args.guild}/events?{urllib.parse.urlencode(query)}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}", "Accept": "application/x-ndjson"})
    context = ssl.create_default_context(cafile=args.ca if os.path.exists(args.ca) else None)
    try:
        with urllib.request.urlopen(request, context=context) as response:
            for raw in response:
                line = raw.strip()
                if not line:
                    continue  # a heartbeat
                item = json.loads(line)
                if "stream" in item:
                    fold(state["answers"], item)
                elif item["type"] == "StreamEnded":
                    # Cut off (a slow reader) or refused from now on: what was read is saved; run again to resume.
                    print(f"the stream ended: {item['reason']}", file=sys.stderr)
                if item.get("position"):
                    state["position"] = item["position"]
                if args.follow:
                    save(state_path, state)
    except urllib.error.HTTPError as error:
        sys.exit(f"refused: {error.code} {error.read().decode()}")
    except KeyboardInterrupt:
        pass
    save(state_path, state)
    json.dump(state, sys.stdout, indent=2, sort_keys=True)
    print()


if __name__ == "__main__":
    main()

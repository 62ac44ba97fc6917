// The moderator console in a real headless browser, as a moderator uses it after a raid: a second account with
// ADMINISTRATOR deletes channels, floods new ones, bans members, opens up @everyone and sends messages; the owner signs
// in to the console, sees entries arrive live, finds the raid by its actor, expands an entry, lifts a timeout, looks at
// the guild before the raid, previews the rollback, applies it after confirming, and watches its entries arrive. The
// API then shows the channels, roles and bans of the snapshot taken before the raid (new ids mapped). The page loads
// nothing from elsewhere and breaks none of its policy. Screenshots of each screen go to test-artifacts/console/.
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createGuild, grantRole, newMember } from '../http/guildSupport.js';
import { PASSWORD } from '../http/oauth2Support.js';
import { fileBrowser } from '../support/browser.js';
import { type ApiResponse, type TestUser, fileServer, registerUser } from '../support/server.js';

const server = await fileServer();
const browser = await fileBrowser();
const ARTIFACTS = new URL('../../test-artifacts/console/', import.meta.url);
await mkdir(ARTIFACTS, { recursive: true });

const ADMINISTRATOR = 1n << 3n;

/** A call that waits out a 429 (the raid goes as fast as the limits allow) and must succeed. */
async function call(method: string, path: string, token: string, body?: object): Promise<ApiResponse> {
  for (;;) {
    const response = await server.api(method, path, { token, body });
    if (response.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(Number(response.body.retry_after) * 1000)));
      continue;
    }
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
    return response;
  }
}

const shot = (page: Page, name: string) => page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: false });

interface Structure {
  at: { time: string };
  channels: { id: string; name: string; type: number; position: number; parent_id: string | null; topic?: string | null; permission_overwrites?: object[] }[];
  roles: { id: string; name: string; permissions: string; position: number; color: number; hoist: boolean; mentionable: boolean }[];
  bans: { user: { id: string } }[];
}

/** The structure with every id the rollback replaced mapped to its new one, in a comparable order. */
function comparable(structure: Structure, idMap: Record<string, string> = {}) {
  const id = (value: string | null) => (value === null ? null : (idMap[value] ?? value));
  return {
    channels: structure.channels
      .map((c) => ({ id: id(c.id), name: c.name, type: c.type, position: c.position, parent_id: id(c.parent_id), topic: c.topic ?? null }))
      .sort((a, b) => a.position - b.position || a.name.localeCompare(b.name)),
    roles: structure.roles
      .map((r) => ({
        id: id(r.id),
        name: r.name,
        permissions: r.permissions,
        position: r.position,
        color: r.color,
        hoist: r.hoist,
        mentionable: r.mentionable,
      }))
      .sort((a, b) => a.position - b.position || a.name.localeCompare(b.name)),
    bans: structure.bans.map((b) => b.user.id).sort(),
  };
}

/** The page answers as the machine allows: generous bounds. */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000 });

/** With the keyboard alone: the page starts in the first field. */
async function signIn(page: Page, user: TestUser) {
  await poll(() => page.evaluate('document.activeElement.id')).toBe('login');
  await page.keyboard.type(user.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
}

const auditRows = (page: Page) => page.locator('#audit-table tbody tr[data-entry]');

describe('the moderator console in a browser', () => {
  it('finds a raid in the audit log, previews and applies its rollback, and the guild is as it was', { timeout: 300_000 }, async () => {
    const owner = await registerUser(server);
    const guild = await createGuild(server, owner, 'Raided guild');
    const category = await call('POST', `/guilds/${guild.id}/channels`, owner.token, { name: 'Community', type: 4 });
    const doomed = [];
    for (const name of ['rules', 'announcements', 'off-topic'])
      doomed.push(
        (await call('POST', `/guilds/${guild.id}/channels`, owner.token, { name, type: 0, parent_id: category.body.id, topic: `The ${name}` })).body.id,
      );
    const members = [];
    for (let i = 0; i < 6; i++) members.push(await newMember(server, guild));
    const raider = await newMember(server, guild);
    await grantRole(server, guild, raider, ADMINISTRATOR, 'helpers');
    const muted = members[5];
    // An AutoMod rule that blocked one of the members' sends.
    await call('POST', `/guilds/${guild.id}/auto-moderation/rules`, owner.token, {
      name: 'No cats',
      event_type: 1,
      trigger_type: 1,
      trigger_metadata: { keyword_filter: ['cat*'] },
      actions: [{ type: 1 }],
      enabled: true,
    });
    const blocked = await server.api('POST', `/channels/${guild.channelId}/messages`, { token: members[4].token, body: { content: 'cats are great' } });
    expect(blocked.status).toBe(400);
    await call('PATCH', `/guilds/${guild.id}/members/${muted.id}`, owner.token, {
      communication_disabled_until: new Date(Date.now() + 3600_000).toISOString(),
    });

    // The guild before the raid, through time travel.
    const before = await call('GET', `/guilds/${guild.id}/history?at=${encodeURIComponent(new Date().toISOString())}`, owner.token);
    const snapshot = before.body as Structure;

    // The raid, through the API, by the second account.
    for (const channelId of doomed) await call('DELETE', `/channels/${channelId}`, raider.token);
    const spam = [];
    for (let i = 0; i < 20; i++) spam.push((await call('POST', `/guilds/${guild.id}/channels`, raider.token, { name: `spam-${i}`, type: 0 })).body.id);
    for (const member of members.slice(0, 5)) await call('PUT', `/guilds/${guild.id}/bans/${member.id}`, raider.token, {});
    const everyone = snapshot.roles.find((role) => role.id === guild.id)!;
    await call('PATCH', `/guilds/${guild.id}/roles/${guild.id}`, raider.token, { permissions: (BigInt(everyone.permissions) | ADMINISTRATOR).toString() });
    for (let i = 0; i < 50; i++) await call('POST', `/channels/${spam[i % spam.length]}/messages`, raider.token, { content: `raid ${i}` });

    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('websocket', (socket) => requested.push(socket.url()));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(`${server.origin}/console`);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Parley moderator console');
      // Signed out, the page shows the sign-in form and nothing of the console.
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
      expect(await page.getByRole('navigation').isVisible()).toBe(false);
      await shot(page, '1-sign-in');
      await signIn(page, owner);
      await poll(() => page.getByLabel('Server').locator('option:checked').innerText()).toBe('Raided guild');
      await poll(() => page.locator('#live').innerText()).toBe('Live');
      await poll(() => auditRows(page).count()).toBeGreaterThan(29);

      // An entry made now arrives over the gateway, on top, without a reload.
      const live = await call('POST', `/guilds/${guild.id}/channels`, owner.token, { name: 'mod-notes', type: 0 });
      await poll(() => auditRows(page).first().locator('td').nth(3).innerText()).toBe('#mod-notes');
      await call('DELETE', `/channels/${live.body.id}`, owner.token);
      await poll(() => auditRows(page).first().locator('td').nth(2).innerText()).toBe('Channel deleted');
      await shot(page, '2-audit-log');

      // The raid, by its actor: 3 deletions, 20 creations, 5 bans, one change of @everyone (messages make no entries).
      await page.getByLabel('Actor').first().selectOption(raider.id);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await poll(() => auditRows(page).count()).toBe(29);
      const actions = await page.locator('#audit-table tbody tr[data-entry] td:nth-child(3)').allInnerTexts();
      expect(actions.filter((a) => a === 'Channel deleted')).toHaveLength(3);
      expect(actions.filter((a) => a === 'Channel created')).toHaveLength(20);
      expect(actions.filter((a) => a === 'Member banned')).toHaveLength(5);
      expect(actions.filter((a) => a === 'Role updated')).toHaveLength(1);
      expect(new Set(await page.locator('#audit-table tbody tr[data-entry] td:nth-child(2)').allInnerTexts())).toEqual(new Set([raider.username]));
      // Paged: 25 of them, the 4 older ones, and back.
      await page.getByLabel('Per page').selectOption('25');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await poll(() => auditRows(page).count()).toBe(25);
      const newest = await auditRows(page).first().getAttribute('data-entry');
      await page.getByRole('button', { name: 'Older' }).click();
      await poll(() => auditRows(page).count()).toBe(4);
      expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Newer' }).click();
      await poll(() => auditRows(page).count()).toBe(25);
      expect(await auditRows(page).first().getAttribute('data-entry')).toBe(newest);
      await page.getByLabel('Per page').selectOption('50');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await poll(() => auditRows(page).count()).toBe(29);

      const roleRow = auditRows(page).filter({ hasText: 'Role updated' });
      await roleRow.getByRole('button', { name: 'Changes' }).press('Enter');
      const changes = page.getByRole('list', { name: 'Changes' });
      expect(await changes.innerText()).toContain(`permissions: ${everyone.permissions} → ${BigInt(everyone.permissions) | ADMINISTRATOR}`);
      await shot(page, '3-raid-by-actor');

      // The same screen on a phone.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.evaluate('window.scrollTo(0, 0)');
      await shot(page, '4-phone');
      await page.setViewportSize({ width: 1280, height: 800 });

      // Timeouts and bans: the raid's five bans, AutoMod's block, and one timeout lifted from here.
      await page.getByRole('button', { name: 'Timeouts and bans' }).click();
      const bans = page.getByRole('table', { name: 'Bans' });
      await poll(() => bans.getByRole('button', { name: /^Unban / }).count()).toBe(5);
      const automod = page.getByRole('table', { name: 'AutoMod actions' });
      await poll(() => automod.innerText()).toContain('No cats');
      expect((await automod.locator('tbody tr').first().locator('td').allInnerTexts()).slice(1, 4)).toEqual([
        members[4].username,
        'AutoMod blocked a message',
        'No cats',
      ]);
      await shot(page, '5-timeouts-and-bans');
      await page
        .getByRole('table', { name: 'Members in timeout' })
        .getByRole('button', { name: `Lift timeout of ${muted.username}` })
        .click();
      await poll(() => page.getByRole('table', { name: 'Members in timeout' }).innerText()).toContain('No member is in timeout.');
      expect((await call('GET', `/guilds/${guild.id}/members/${muted.id}`, owner.token)).body.communication_disabled_until).toBeNull();

      // Time travel: the guild at the snapshot's moment, and what changed since.
      await page.getByRole('button', { name: 'Time travel' }).click();
      const at = new Date(Date.parse(snapshot.at.time) - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 23);
      await page.getByLabel('Or exactly').fill(at);
      await page.getByRole('button', { name: 'Show this moment' }).click();
      await poll(() => page.locator('#history-summary').innerText()).toMatch(/: \d+ channels, \d+ roles, 8 members, 0 bans; \d+ changes since\.$/);
      const channelsThen = await page.locator('#history-channels li').allInnerTexts();
      expect(channelsThen).toEqual(expect.arrayContaining(['#rules', '#announcements', '#off-topic']));
      expect(channelsThen.some((name) => name.startsWith('#spam-'))).toBe(false);
      await shot(page, '6-time-travel');

      // The rollback: preview, confirm, apply, and its entries arriving.
      await page.getByRole('button', { name: 'Rollback' }).click();
      await page.locator('#rollback-actor').selectOption(raider.id);
      // The window opens where the snapshot was taken: the raid and nothing before it.
      await page.getByLabel('After').fill(at);
      await page.getByRole('button', { name: 'Preview' }).click();
      // Per raid action one compensation: 3 channels back, 20 deleted, 5 unbans, @everyone restored, 50 messages deleted.
      await poll(() => page.locator('#plan-actions li').count()).toBe(79);
      await shot(page, '7-rollback-preview');
      const applied = page.waitForResponse((r) => r.url().endsWith('/rollbacks') && r.request().postDataJSON().dry_run === false);
      await page.getByRole('button', { name: 'Apply rollback…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Apply the rollback?' });
      expect(await dialog.isVisible()).toBe(true);
      await dialog.getByRole('button', { name: 'Apply' }).click();
      const result = await (await applied).json();
      expect(result.applied).toBe(true);
      // Every audit entry the rollback made reached the page over the gateway (message deletions make none).
      const made = await call('GET', `/guilds/${guild.id}/audit-logs?user_id=${owner.id}&limit=100`, owner.token);
      const rollbackEntries = made.body.audit_log_entries.filter((e: { reason?: string }) => e.reason?.startsWith('Rollback of'));
      expect(rollbackEntries.length).toBe(29);
      await poll(() => page.locator('#rollback-arrivals li').count()).toBe(rollbackEntries.length);
      await shot(page, '8-rollback-applied');

      // Through the API: the guild's channels, roles and bans are the snapshot's, recreated ones under their new ids.
      const [channels, roles, bansNow] = await Promise.all([
        call('GET', `/guilds/${guild.id}/channels`, owner.token),
        call('GET', `/guilds/${guild.id}/roles`, owner.token),
        call('GET', `/guilds/${guild.id}/bans`, owner.token),
      ]);
      const now = { channels: channels.body, roles: roles.body, bans: bansNow.body } as Structure;
      expect(comparable(now)).toEqual(comparable(snapshot, result.id_map));

      // Nothing came from elsewhere, and the page's policy refused nothing it does.
      const gateway = new URL((await call('GET', '/gateway', owner.token)).body.url).host;
      for (const url of requested) expect([new URL(server.origin).host, gateway]).toContain(new URL(url).host);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

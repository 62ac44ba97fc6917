// The authorization page in a real headless browser with JavaScript off, as a person uses it: sign in (a wrong password
// first), consent, Authorize and Cancel ending at the client's redirect URI (a loopback server here, as a developer's
// client would run), and the bot flow's guild picker. The page's policy is checked where it matters: the stylesheet it
// allows applies, and no other site may frame it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { fileServer, registerUser, expectNothingAppendedSince } from '../support/server.js';
import { fileBrowser } from '../support/browser.js';
import { createGuild, grantRole, join } from '../http/guildSupport.js';
import { PASSWORD, type TestClient, addBotUser, codeQuery, registerClient, tokenRequest } from '../http/oauth2Support.js';

const server = await fileServer();
const browser = await fileBrowser();

/** The client's side: its redirect URI records each visit; /frame is another site trying to frame the page. */
const callbacks: URL[] = [];
const clientSite = createServer((request, response) => {
  const url = new URL(request.url!, 'http://127.0.0.1');
  if (url.pathname === '/callback') callbacks.push(url);
  const body =
    url.pathname === '/frame' ? `<iframe src="${server.origin}/oauth2/authorize?${url.searchParams.get('query')}"></iframe>` : '<p>Back at the client.</p>';
  response.writeHead(200, { 'content-type': 'text/html' }).end(body);
});
await new Promise<void>((resolve) => clientSite.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise((resolve) => clientSite.close(resolve)));
const clientOrigin = `http://127.0.0.1:${(clientSite.address() as AddressInfo).port}`;
const REDIRECT = `${clientOrigin}/callback`;

const client = () => registerClient(server, [REDIRECT]);
const query = (app: TestClient, over: Record<string, string> = {}) => codeQuery(app, { redirect_uri: REDIRECT, ...over });

/** A fresh browser profile, JavaScript off: the page must work with forms and buttons alone. */
async function person() {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, javaScriptEnabled: false });
  return { context, page: await context.newPage() };
}

/** The callbacks that arrive from now on. */
function arriving() {
  const from = callbacks.length;
  return () => callbacks.slice(from);
}

async function signIn(page: Page, username: string, password: string) {
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the authorization page in a browser', () => {
  it('signs in (refusing a wrong password), shows the consent, and Authorize ends at the redirect URI with a code', { timeout: 60_000 }, async () => {
    const app = await client();
    const user = await registerUser(server);
    const { context, page } = await person();
    const received = arriving();
    try {
      await page.goto(`${server.origin}/oauth2/authorize?${query(app, { scope: 'identify guilds', state: 'xyz 123' })}`);
      expect(await page.getByRole('heading').innerText()).toBe(`Sign in to continue to ${app.name}`);

      await signIn(page, user.username, 'not my password');
      expect(await page.getByRole('alert').innerText()).toBe('Login or password is invalid.');
      expect(await page.getByLabel('Username or email').inputValue()).toBe(user.username);

      await signIn(page, user.username, PASSWORD);
      expect(await page.getByRole('heading').innerText()).toBe(`${app.name} wants to access your account`);
      expect(await page.getByRole('listitem').allInnerTexts()).toEqual(['Know your username, avatar and discriminator', 'Know which servers you are in']);
      // The hashed inline stylesheet applies under the page's policy: Authorize has the accent colour (#4752c4). A string:
      // it runs in the page, whose DOM this project's types do not describe.
      expect(await page.evaluate("getComputedStyle(document.querySelector('button.primary')).backgroundColor")).toBe('rgb(71, 82, 196)');

      await page.getByRole('button', { name: 'Authorize' }).click();
      expect(await page.innerText('body')).toBe('Back at the client.');
      const [back] = received();
      expect(back.searchParams.get('state')).toBe('xyz 123');
      const exchanged = await tokenRequest(server, '/oauth2/token', {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: app.id,
        client_secret: app.secret,
      });
      expect(exchanged.body.scope).toBe('identify guilds');
      expect((await server.api('GET', '/users/@me', { token: exchanged.body.access_token })).body.id).toBe(user.id);

      // Signed in now: the next visit goes straight to the consent.
      await page.goto(`${server.origin}/api/v1/oauth2/authorize?${query(app)}`);
      expect(await page.getByRole('heading').innerText()).toBe(`${app.name} wants to access your account`);
    } finally {
      await context.close();
    }
  });

  it('Cancel ends at the redirect URI with error=access_denied and the state, and no code', { timeout: 60_000 }, async () => {
    const app = await client();
    const user = await registerUser(server);
    const { context, page } = await person();
    const received = arriving();
    try {
      await page.goto(`${server.origin}/oauth2/authorize?${query(app)}`);
      await signIn(page, user.username, PASSWORD);
      const before = await server.runtime.store.headPosition();
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(await page.innerText('body')).toBe('Back at the client.');
      expect(Object.fromEntries(received()[0].searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'The person declined the authorization',
        state: 'st4te',
      });
      await expectNothingAppendedSince(server, before);
    } finally {
      await context.close();
    }
  });

  it('shows a bad request on the page instead of going to an unregistered redirect URI', { timeout: 60_000 }, async () => {
    const app = await client();
    const { context, page } = await person();
    const received = arriving();
    try {
      const answer = await page.goto(`${server.origin}/oauth2/authorize?${query(app, { redirect_uri: `${clientOrigin}/elsewhere` })}`);
      expect(answer?.status()).toBe(400);
      expect(await page.getByRole('alert').innerText()).toBe('redirect_uri is not one of the redirect URIs the application registered');
      expect(received()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('cannot be framed by another site (frame-ancestors none)', { timeout: 60_000 }, async () => {
    const app = await client();
    const { context, page } = await person();
    try {
      await page.goto(`${clientOrigin}/frame?query=${encodeURIComponent(query(app))}`);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame).toBeDefined();
      // A blocked frame shows the browser's error page, never the sign-in form.
      await expect.poll(async () => frame!.url()).not.toBe('');
      expect(await frame!.locator('input[name="password"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('the bot flow: the picker offers only the guilds the person manages, and Authorize adds the bot', { timeout: 60_000 }, async () => {
    const app = await client();
    const bot = await addBotUser(server, app);
    const owner = await registerUser(server);
    const mine = await createGuild(server, owner, 'My guild');
    const managed = await createGuild(server, undefined, 'Team guild');
    await join(server, managed, owner);
    await grantRole(server, managed, owner, 1n << 5n, 'managers');
    const visited = await createGuild(server, undefined, 'Visited guild');
    await join(server, visited, owner);

    const { context, page } = await person();
    try {
      await page.goto(`${server.origin}/oauth2/authorize?client_id=${app.id}&scope=bot%20applications.commands&permissions=${(1n << 11n) | (1n << 6n)}`);
      await signIn(page, owner.username, PASSWORD);
      expect(await page.getByRole('heading').innerText()).toBe(`Add ${app.name} to a server`);
      const picker = page.getByLabel('Add to server');
      expect(await picker.locator('option').allInnerTexts()).toEqual(['Choose a server', 'My guild', 'Team guild']);
      expect(await page.getByRole('listitem').allInnerTexts()).toEqual(['Add reactions', 'Send messages']);
      await picker.selectOption({ label: 'My guild' });
      await page.getByRole('button', { name: 'Authorize' }).click();
      expect(await page.getByRole('heading').innerText()).toBe(`${app.name} was added to My guild`);
      const member = await server.api('GET', `/guilds/${mine.id}/members/${bot.id}`, { token: owner.token });
      expect(member.status).toBe(200);
      expect(member.body.roles).toHaveLength(1);
    } finally {
      await context.close();
    }
  });
});

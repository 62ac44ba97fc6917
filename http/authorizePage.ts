// The views of the OAuth2 authorization page (http/routes/oauth2Authorize.ts): sign-in, consent, the bot flow's
// consent with its guild picker, and the pages that end a visit. Plain forms and buttons, no script: the page works
// with JavaScript off, and the Content-Security-Policy allows none.
import { SCOPES, type Scope } from '../domain/oauth2.js';
import { Permission, type PermissionName } from '../domain/permissions.js';
import { type Html, html } from './html.js';

/** What every form of the page carries: where it posts (the same URL) and its CSRF token. */
export interface FormContext {
  /** The page's own query string, so that a post re-reads the same authorization request. */
  action: string;
  csrf: string;
}

const hidden = (form: FormContext) => html`<input type="hidden" name="csrf" value="${form.csrf}">`;

/** Cancel first: a form submitted with Enter takes its first button, and the safe choice is to authorize nothing. */
const decisionButtons = (canAuthorize = true) => html`<div class="actions">
<button type="submit" name="action" value="cancel">Cancel</button>
${canAuthorize && html`<button type="submit" name="action" value="authorize" class="primary">Authorize</button>`}
</div>`;

const scopeList = (scopes: readonly Scope[]) => html`<ul>${scopes.map((scope) => html`<li>${SCOPES[scope]}</li>`)}</ul>`;

const signedInAs = (username: string) => html`<p class="muted">Signed in as <strong>${username}</strong></p>`;

/** "MANAGE_GUILD" → "Manage guild". */
const permissionWords = (name: string) => name.charAt(0) + name.slice(1).toLowerCase().replace(/_/g, ' ');

export function permissionNames(bits: bigint): string[] {
  return (Object.entries(Permission) as [PermissionName, bigint][]).filter(([, bit]) => (bits & bit) !== 0n).map(([name]) => permissionWords(name));
}

export function signInView(input: { form: FormContext; appName: string; login?: string; error?: string }): Html {
  return html`<h1>Sign in to continue to ${input.appName}</h1>
<p class="muted">${input.appName} asks to use your Parley account.</p>
${input.error && html`<p class="error" role="alert">${input.error}</p>`}
<form method="post" action="${input.form.action}">
${hidden(input.form)}
<input type="hidden" name="action" value="signin">
<label for="login">Username or email</label>
<input id="login" name="login" autocomplete="username" required maxlength="300" value="${input.login ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="128">
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>`;
}

export function consentView(input: { form: FormContext; appName: string; username: string; scopes: readonly Scope[]; redirectOrigin: string }): Html {
  return html`<h1>${input.appName} wants to access your account</h1>
${signedInAs(input.username)}
<p>This will allow ${input.appName} to:</p>
${scopeList(input.scopes)}
<p class="muted">Once you authorize, you are sent back to ${input.redirectOrigin}.</p>
<form method="post" action="${input.form.action}">
${hidden(input.form)}
${decisionButtons()}
</form>`;
}

export interface BotConsent {
  form: FormContext;
  appName: string;
  username: string;
  /** The guilds the person may add the bot to; a `fixed` guild (the URL's guild_id) is the only choice. */
  guilds: readonly { id: string; name: string }[];
  fixed: boolean;
  permissions: bigint;
  /** Scopes asked beside the bot's, for the person's own account. */
  userScopes: readonly Scope[];
  error?: string;
}

export function botConsentView(input: BotConsent): Html {
  const permissions = permissionNames(input.permissions);
  const choice = input.fixed
    ? html`<p>Server: <strong>${input.guilds[0].name}</strong></p><input type="hidden" name="guild_id" value="${input.guilds[0].id}">`
    : input.guilds.length === 0
      ? html`<p class="error">You have no server where you may add a bot: that takes the Manage Server permission.</p>`
      : html`<label for="guild">Add to server</label>
<select id="guild" name="guild_id" required>
<option value="" disabled selected>Choose a server</option>
${input.guilds.map((guild) => html`<option value="${guild.id}">${guild.name}</option>`)}
</select>`;
  return html`<h1>Add ${input.appName} to a server</h1>
${signedInAs(input.username)}
${input.error && html`<p class="error" role="alert">${input.error}</p>`}
<form method="post" action="${input.form.action}">
${hidden(input.form)}
${choice}
<p>${input.appName} will get ${permissions.length ? 'these permissions:' : 'no permissions beyond those of everyone in the server.'}</p>
${permissions.length > 0 && html`<ul>${permissions.map((name) => html`<li>${name}</li>`)}</ul>`}
${input.userScopes.length > 0 && html`<p>And on your account, it will be able to:</p>${scopeList(input.userScopes)}`}
${decisionButtons(input.guilds.length > 0)}
</form>`;
}

/** A visit that ends here: a refusal, a cancel without a redirect, or the bot added. */
export function messageView(input: { title: string; text: string; error?: boolean }): Html {
  return html`<h1>${input.title}</h1>
${input.error ? html`<p class="error" role="alert">${input.text}</p>` : html`<p>${input.text}</p>`}
<p class="muted">You can close this page.</p>`;
}

// The code host adapter on trimmed webhook payloads of the code host: which events and actions post, what the embed
// says, and that untrusted payloads (odd fields, huge strings, bad links) still give embeds within the bounds.
import { describe, expect, it } from 'vitest';
import { COLOR_CLOSED, COLOR_COMMENT, COLOR_MERGED, COLOR_OPENED, COLOR_PUSH, COLOR_RELEASE, renderCodehostEvent } from '../../domain/codehost.js';
import type { Embed } from '../../domain/embeds.js';
import { DomainError } from '../../domain/errors.js';
import { expectWithinBounds, points } from '../support/embeds.js';

function render(event: string, payload: unknown): Embed {
  const message = renderCodehostEvent(event, payload);
  expect(message).not.toBeNull();
  expectWithinBounds(message!);
  expect(message!.embeds).toHaveLength(1);
  expect(message!.content).toBeUndefined();
  expect(message!.username).toBeUndefined();
  return message!.embeds[0];
}

function refusal(event: string, payload: unknown): DomainError {
  try {
    renderCodehostEvent(event, payload);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

const repository = {
  id: 1296269,
  node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
  name: 'hello-world',
  full_name: 'octo-org/hello-world',
  private: false,
  owner: { login: 'octo-org', id: 6811672, type: 'Organization' },
  html_url: 'https://github.com/octo-org/hello-world',
  default_branch: 'main',
};
const sender = {
  login: 'octocat',
  id: 583231,
  avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
  html_url: 'https://github.com/octocat',
  type: 'User',
  site_admin: false,
};
const author = { name: 'octocat', url: 'https://github.com/octocat', icon_url: 'https://avatars.githubusercontent.com/u/583231?v=4' };
const commitUrl = (id: string) => `https://github.com/octo-org/hello-world/commit/${id}`;
const compare = 'https://github.com/octo-org/hello-world/compare/9049f1265b7d...6dcb09b5b578';

function commit(id: string, message: string, name = 'Mona Lisa') {
  return {
    id,
    tree_id: 'f9d2a07e9488b91af2641b26b9407fe22a451433',
    distinct: true,
    message,
    timestamp: '2024-05-01T12:00:00+02:00',
    url: commitUrl(id),
    author: { name, email: 'mona@example.com', username: 'mona' },
    committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
    added: [],
    removed: [],
    modified: ['README.md'],
  };
}

function pushPayload(overrides: Record<string, unknown> = {}) {
  const commits = [
    commit('6dcb09b5b57875f334f61aebed695e2e4193db5e', 'Fix the greeting'),
    commit('9049f1265b7d61be4a8904a9a27120d2064dab3b', 'Add a README', 'Hubot'),
  ];
  return {
    ref: 'refs/heads/main',
    before: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    after: '9049f1265b7d61be4a8904a9a27120d2064dab3b',
    repository,
    pusher: { name: 'octocat', email: 'octocat@example.com' },
    sender,
    created: false,
    deleted: false,
    forced: false,
    base_ref: null,
    compare,
    commits,
    head_commit: commits[1],
    ...overrides,
  };
}

const prUrl = 'https://github.com/octo-org/hello-world/pull/12';
function pullRequestPayload(action: string, pr: Record<string, unknown> = {}) {
  return {
    action,
    number: 12,
    pull_request: {
      url: 'https://api.github.com/repos/octo-org/hello-world/pulls/12',
      id: 279147437,
      html_url: prUrl,
      number: 12,
      state: action === 'closed' ? 'closed' : 'open',
      locked: false,
      title: 'Add dark mode',
      user: { login: 'octocat', id: 583231 },
      body: 'This adds a dark theme.\r\n\r\nCloses #3.',
      created_at: '2024-05-01T10:00:00Z',
      merged: false,
      draft: false,
      head: { ref: 'dark-mode', sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821' },
      base: { ref: 'main', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
      ...pr,
    },
    repository,
    sender,
  };
}

const issueUrl = 'https://github.com/octo-org/hello-world/issues/3';
function issuePayload(action: string, issue: Record<string, unknown> = {}) {
  return {
    action,
    issue: {
      url: 'https://api.github.com/repos/octo-org/hello-world/issues/3',
      html_url: issueUrl,
      id: 1,
      number: 3,
      title: 'Greeting is misspelled',
      user: { login: 'hubot', id: 2 },
      labels: [{ name: 'bug' }],
      state: action === 'closed' ? 'closed' : 'open',
      comments: 0,
      body: 'It says "Helo".',
      ...issue,
    },
    repository,
    sender,
  };
}

function commentPayload(action: string, issue: Record<string, unknown> = {}) {
  return {
    action,
    issue: issuePayload('opened', issue).issue,
    comment: {
      id: 1362345,
      html_url: `${issueUrl}#issuecomment-1362345`,
      user: { login: 'octocat', id: 583231 },
      created_at: '2024-05-01T11:00:00Z',
      body: 'Confirmed on main.\r\nSee the screenshot.',
      author_association: 'MEMBER',
    },
    repository,
    sender,
  };
}

const releaseUrl = 'https://github.com/octo-org/hello-world/releases/tag/v1.2.0';
function releasePayload(action: string, release: Record<string, unknown> = {}) {
  return {
    action,
    release: {
      url: 'https://api.github.com/repos/octo-org/hello-world/releases/1',
      html_url: releaseUrl,
      id: 1,
      tag_name: 'v1.2.0',
      target_commitish: 'main',
      name: 'Version 1.2.0',
      draft: false,
      prerelease: false,
      created_at: '2024-05-01T12:00:00Z',
      published_at: '2024-05-01T12:05:00Z',
      body: '## Changes\r\n- Dark mode',
      ...release,
    },
    repository,
    sender,
  };
}

describe('code host adapter: push', () => {
  it('lists the commits of a branch push, linked, with the compare link and the sender as author', () => {
    expect(render('push', pushPayload())).toEqual({
      title: '[octo-org/hello-world:main] 2 new commits',
      url: compare,
      description: [
        `[\`6dcb09b\`](${commitUrl('6dcb09b5b57875f334f61aebed695e2e4193db5e')}) Fix the greeting - Mona Lisa`,
        `[\`9049f12\`](${commitUrl('9049f1265b7d61be4a8904a9a27120d2064dab3b')}) Add a README - Hubot`,
      ].join('\n'),
      color: COLOR_PUSH,
      author,
    });
  });

  it('says "1 new commit" for one commit', () => {
    const embed = render('push', pushPayload({ commits: [commit('6dcb09b5b57875f334f61aebed695e2e4193db5e', 'Fix the greeting')] }));
    expect(embed.title).toBe('[octo-org/hello-world:main] 1 new commit');
  });

  it('shows five commits at most, each by the first line of its message cut to 50 characters', () => {
    const long = 'Refactor the greeting renderer so that every locale gets its own template\n\nThe body is not shown.';
    const commits = [commit('1111111aaaa', long), ...[2, 3, 4, 5, 6, 7].map((n) => commit(`${n}`.repeat(7) + 'bbbb', `Commit ${n}\r\nbody`))];
    const embed = render('push', pushPayload({ commits }));
    expect(embed.title).toBe('[octo-org/hello-world:main] 7 new commits');
    const lines = embed.description!.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(`[\`1111111\`](${commitUrl('1111111aaaa')}) Refactor the greeting renderer so that every loca… - Mona Lisa`);
    expect(lines[4]).toBe(`[\`5555555\`](${commitUrl('5555555bbbb')}) Commit 5 - Mona Lisa`);
  });

  it('renders nothing for a deleted branch (forced or not), a new branch without new commits, or a tag', () => {
    for (const forced of [false, true]) {
      expect(renderCodehostEvent('push', pushPayload({ deleted: true, forced, after: '0'.repeat(40), commits: [], head_commit: null }))).toBeNull();
    }
    expect(renderCodehostEvent('push', pushPayload({ created: true, commits: [], ref: 'refs/heads/feature' }))).toBeNull();
    expect(renderCodehostEvent('push', pushPayload({ ref: 'refs/tags/v1.2.0' }))).toBeNull();
  });

  it('says where a branch points after a force push that leaves no new commits', () => {
    expect(render('push', pushPayload({ forced: true, commits: [], after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c' }))).toEqual({
      title: '[octo-org/hello-world] Branch main was force-pushed to `0d1a26e`',
      url: compare,
      color: COLOR_PUSH,
      author,
    });
  });

  it('reads odd fields as absent: non-object commits, non-hex ids, a compare link that is not a web link, no sender', () => {
    const payload = {
      ref: 'refs/heads/main',
      repository: { name: 'hello-world' },
      compare: 'javascript:alert(1)',
      commits: [null, 42, { id: 'not-a-sha', message: 7, url: commitUrl('x'), author: 'Mona' }, { id: 'abcdef0123', message: 'Tidy up' }],
    };
    expect(render('push', payload)).toEqual({ title: '[hello-world:main] 4 new commits', description: '`abcdef0` Tidy up', color: COLOR_PUSH });
    expect(renderCodehostEvent('push', { ...payload, commits: 'none' })).toBeNull();
  });

  it('refuses a push without a ref or a repository, since it cannot say what moved', () => {
    const noRef = refusal('push', { ...pushPayload(), ref: 5 });
    expect(noRef.code).toBe('INVALID_FORM_BODY');
    expect(noRef.errors).toEqual([{ path: 'ref', message: 'This field is required' }]);
    expect(refusal('push', { ...pushPayload(), repository: 'octo-org/hello-world' }).errors).toEqual([
      { path: 'repository.full_name', message: 'This field is required' },
    ]);
  });
});

describe('code host adapter: pull requests', () => {
  it('announces an opened pull request with its body', () => {
    expect(render('pull_request', pullRequestPayload('opened'))).toEqual({
      title: '[octo-org/hello-world] Pull request opened: #12 Add dark mode',
      url: prUrl,
      description: 'This adds a dark theme.\n\nCloses #3.',
      color: COLOR_OPENED,
      author,
    });
  });

  it('tells a merge from a close, and announces a reopen', () => {
    const merged = render('pull_request', pullRequestPayload('closed', { merged: true }));
    expect(merged).toMatchObject({ title: '[octo-org/hello-world] Pull request merged: #12 Add dark mode', url: prUrl, color: COLOR_MERGED });
    expect(merged.description).toBeUndefined();
    expect(render('pull_request', pullRequestPayload('closed'))).toMatchObject({
      title: '[octo-org/hello-world] Pull request closed: #12 Add dark mode',
      color: COLOR_CLOSED,
    });
    expect(render('pull_request', pullRequestPayload('reopened'))).toMatchObject({
      title: '[octo-org/hello-world] Pull request reopened: #12 Add dark mode',
      color: COLOR_OPENED,
    });
  });

  it('ignores the noisy actions', () => {
    for (const action of ['synchronize', 'labeled', 'edited', 'assigned', 'review_requested', undefined]) {
      expect(renderCodehostEvent('pull_request', pullRequestPayload(action as string))).toBeNull();
    }
  });

  it('previews a long body in 500 characters and cuts a long title to 256, counting code points', () => {
    const embed = render('pull_request', pullRequestPayload('opened', { body: 'word '.repeat(400), title: '😀'.repeat(300) }));
    expect(embed.description).toBe(`${'word '.repeat(99)}word…`);
    const prefix = '[octo-org/hello-world] Pull request opened: #12 ';
    expect(embed.title).toBe(`${prefix}${'😀'.repeat(256 - prefix.length - 1)}…`);
  });

  it('refuses a pull_request event without its pull request', () => {
    const error = refusal('pull_request', { action: 'opened', repository, sender, pull_request: [] });
    expect(error.code).toBe('INVALID_FORM_BODY');
    expect(error.errors).toEqual([{ path: 'pull_request', message: 'Must be an object' }]);
  });
});

describe('code host adapter: issues and comments', () => {
  it('announces opened, closed and reopened issues', () => {
    expect(render('issues', issuePayload('opened'))).toEqual({
      title: '[octo-org/hello-world] Issue opened: #3 Greeting is misspelled',
      url: issueUrl,
      description: 'It says "Helo".',
      color: COLOR_OPENED,
      author,
    });
    expect(render('issues', issuePayload('closed'))).toEqual({
      title: '[octo-org/hello-world] Issue closed: #3 Greeting is misspelled',
      url: issueUrl,
      color: COLOR_CLOSED,
      author,
    });
    expect(render('issues', issuePayload('reopened'))).toMatchObject({
      title: '[octo-org/hello-world] Issue reopened: #3 Greeting is misspelled',
      color: COLOR_OPENED,
    });
    expect(renderCodehostEvent('issues', issuePayload('labeled'))).toBeNull();
  });

  it('renders what it can of an issue with odd fields', () => {
    const embed = render('issues', issuePayload('opened', { number: '3', title: null, body: 12, html_url: 'https://x'.padEnd(3000, 'x') }));
    expect(embed).toEqual({ title: '[octo-org/hello-world] Issue opened', color: COLOR_OPENED, author });
  });

  it('shows a new comment with its body, on an issue or a pull request', () => {
    expect(render('issue_comment', commentPayload('created'))).toEqual({
      title: '[octo-org/hello-world] New comment on issue #3: Greeting is misspelled',
      url: `${issueUrl}#issuecomment-1362345`,
      description: 'Confirmed on main.\nSee the screenshot.',
      color: COLOR_COMMENT,
      author,
    });
    const onPr = render('issue_comment', commentPayload('created', { pull_request: { url: 'https://api.github.com/repos/octo-org/hello-world/pulls/3' } }));
    expect(onPr.title).toBe('[octo-org/hello-world] New comment on pull request #3: Greeting is misspelled');
    expect(renderCodehostEvent('issue_comment', commentPayload('edited'))).toBeNull();
    expect(renderCodehostEvent('issue_comment', commentPayload('deleted'))).toBeNull();
  });

  it('refuses a comment event without its comment', () => {
    const { comment: _, ...payload } = commentPayload('created');
    expect(refusal('issue_comment', payload).errors).toEqual([{ path: 'comment', message: 'Must be an object' }]);
  });
});

describe('code host adapter: releases and other events', () => {
  it('announces a published release, not its "created" twin', () => {
    expect(render('release', releasePayload('published'))).toEqual({
      title: '[octo-org/hello-world] New release published: v1.2.0',
      url: releaseUrl,
      description: '## Changes\n- Dark mode',
      color: COLOR_RELEASE,
      author,
    });
    expect(renderCodehostEvent('release', releasePayload('created'))).toBeNull();
    expect(refusal('release', releasePayload('published', { tag_name: '', name: null })).errors).toEqual([
      { path: 'release.tag_name', message: 'This field is required' },
    ]);
  });

  it('renders nothing for ping and for events it does not know, whatever their body', () => {
    expect(renderCodehostEvent('ping', { zen: 'Keep it logically awesome.', hook_id: 1, hook: {}, repository, sender })).toBeNull();
    expect(renderCodehostEvent('ping', 'not json')).toBeNull();
    expect(renderCodehostEvent('star', { action: 'created', repository, sender })).toBeNull();
    expect(renderCodehostEvent('constructor', {})).toBeNull();
    expect(renderCodehostEvent('__proto__', {})).toBeNull();
  });

  it('refuses a payload that is not a JSON object', () => {
    for (const payload of [null, [], 'push', 42]) {
      const error = refusal('push', payload);
      expect(error.code).toBe('INVALID_FORM_BODY');
      expect(error.errors).toEqual([{ path: '_root', message: 'Must be a JSON object' }]);
    }
  });

  it('keeps every embed within the bounds whatever the sizes in the payload', () => {
    const huge = '𝔵'.repeat(10_000);
    const longUrl = `https://github.com/${'x'.repeat(3000)}`;
    const bigSender = { login: huge, avatar_url: longUrl, html_url: 'https://github.com/octocat' };
    const bigRepository = { full_name: huge };
    const commits = Array.from({ length: 20 }, (_, i) => ({
      id: `${i}`.padStart(40, 'a'),
      url: `https://github.com/${'c'.repeat(2000)}`,
      message: huge,
      author: { name: huge },
    }));
    const payloads: [string, unknown][] = [
      ['push', { ...pushPayload({ commits, compare: longUrl }), repository: bigRepository, sender: bigSender, ref: `refs/heads/${huge}` }],
      ['pull_request', { ...pullRequestPayload('opened', { title: huge, body: huge }), repository: bigRepository, sender: bigSender }],
      ['issues', { ...issuePayload('opened', { title: huge, body: huge }), repository: bigRepository, sender: bigSender }],
      [
        'issue_comment',
        { ...commentPayload('created', { title: huge }), comment: { body: huge, html_url: longUrl }, repository: bigRepository, sender: bigSender },
      ],
      ['release', { ...releasePayload('published', { tag_name: huge, body: huge }), repository: bigRepository, sender: bigSender }],
    ];
    for (const [event, payload] of payloads) {
      const embed = render(event, payload);
      expect(points(embed.title!)).toBe(256);
      expect(embed.title!.endsWith('…')).toBe(true);
      expect(points(embed.author!.name)).toBe(256);
      expect(embed.author!.icon_url).toBeUndefined();
    }
  });
});

// Read-model collections are named by string in one place only, projections/collections.ts (examples-to-follow,
// pattern 5). Projections, queries and the runner use its constants, and every read outside projections/ goes through
// a typed query of projections/*.queries.ts. This fails, listing the offenders, when a collection is named by string
// anywhere else: a call such as `readStore.find<MemberDoc>('members', …)` in any source file, or, inside projections/,
// a WriteOp or index declaration with `collection: 'members'`, a `collections: ['members']` list or a findPage on a
// string.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as Collections from '../../projections/collections.js';
import { allProjections } from '../../projections/index.js';

const root = join(import.meta.dirname, '..', '..');
const PROJECTIONS = join(root, 'projections');
/** The one file allowed to spell collection names. */
const DECLARATIONS = join(PROJECTIONS, 'collections.ts');
const SKIPPED = new Set(['projections', 'test', 'bench', 'node_modules', 'dist']);
/** A read-store method called with a string literal (or template) as its first argument, across line breaks too. */
const NAMED_COLLECTION = /\.(find|findOne|count|ensureIndexes|reset)\s*(<[^()]*?>)?\s*\(\s*['"`]/g;
/** Inside projections/: a WriteOp or IndexSpec naming its collection by string. */
const COLLECTION_FIELD = /\bcollection\s*:\s*['"`]/g;
/** Inside projections/: a projection's `collections` list holding a string. */
const COLLECTIONS_LIST = /\bcollections\s*:\s*\[[^\]]*?['"`]/g;
/** Inside projections/: a page of a collection named by string (findPage's second argument). */
const PAGED_COLLECTION = /\bfindPage\s*(<[^()]*?>)?\s*\(\s*[\w.]+\s*,\s*['"`]/g;

function sources(dir: string, skipped: ReadonlySet<string> = new Set()): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return dir === root && skipped.has(name) ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function offenders(paths: string[], patterns: RegExp[]): string[] {
  return paths.flatMap((path) => {
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n');
    const at = patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => text.slice(0, match.index).split('\n').length));
    return [...new Set(at)].sort((a, b) => a - b).map((line) => `${relative(root, path)}:${line}: ${lines[line - 1].trim()}`);
  });
}

describe('read-model collections', () => {
  it('are named by string only in projections/ (everything else calls the typed queries)', () => {
    expect(offenders(sources(root, SKIPPED), [NAMED_COLLECTION]), 'call a query of projections/<module>.queries.ts instead').toEqual([]);
  });

  it('are named by string within projections/ only in collections.ts (the rest use its constants)', () => {
    const files = sources(PROJECTIONS).filter((path) => path !== DECLARATIONS);
    expect(files.length).toBeGreaterThan(0);
    expect(
      offenders(files, [NAMED_COLLECTION, COLLECTION_FIELD, COLLECTIONS_LIST, PAGED_COLLECTION]),
      'use a constant of projections/collections.ts instead',
    ).toEqual([]);
  });

  it('are declared in collections.ts exactly as the projections own and index them', () => {
    const declared: string[] = Object.values(Collections);
    const owned = allProjections.flatMap((p) => p.collections);
    expect(new Set(declared).size, 'each name declared once').toBe(declared.length);
    expect([...new Set(owned)].sort(), 'every collection is emptied by some projection on rebuild, and declared').toEqual([...declared].sort());
    expect(allProjections.flatMap((p) => p.indexes.map((index) => index.collection)).filter((name) => !declared.includes(name))).toEqual([]);
  });
});

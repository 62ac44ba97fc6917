// Read-model collections are named only beside the projections that write them: every read outside projections/ goes
// through a typed query of projections/*.queries.ts (examples-to-follow, pattern 5). This fails, listing the offenders,
// when a call such as `readStore.find<MemberDoc>('members', …)` appears anywhere else.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const SKIPPED = new Set(['projections', 'test', 'bench', 'node_modules', 'dist']);
/** A read-store method called with a string literal (or template) as its first argument, across line breaks too. */
const NAMED_COLLECTION = /\.(find|findOne|count|ensureIndexes|reset)\s*(<[^()]*?>)?\s*\(\s*['"`]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return dir === root && SKIPPED.has(name) ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('read-model collections', () => {
  it('are named by string only in projections/ (everything else calls the typed queries)', () => {
    const offenders = sources(root).flatMap((path) => {
      const text = readFileSync(path, 'utf8');
      return [...text.matchAll(NAMED_COLLECTION)].map((match) => {
        const line = text.slice(0, match.index).split('\n').length;
        return `${relative(root, path)}:${line}: ${text.split('\n')[line - 1].trim()}`;
      });
    });
    expect(offenders, 'call a query of projections/<module>.queries.ts instead').toEqual([]);
  });
});

// Leases of the embedded server and its tools, in DATA_DIR/leases.db: one row a name, taken in one statement.
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile } from '../dataDir.js';
import type { Leases } from '../../ports/leases.js';

export class SqliteLeases implements Leases {
  private readonly db: Database.Database;
  private readonly claimRow: Database.Statement<[{ name: string; holder: string; now: number; until: number }]>;
  private readonly releaseRow: Database.Statement<[string, string]>;

  constructor(file: string) {
    createPrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL)');
    // The row is written only when it is new, the holder's own or expired: a change count of 1 means it is ours.
    this.claimRow = this.db.prepare(`
      INSERT INTO leases (name, holder, until) VALUES (@name, @holder, @until)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
      WHERE leases.holder = excluded.holder OR leases.until <= @now`);
    this.releaseRow = this.db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?');
  }

  async claim(name: string, holder: string, now: number, until: number): Promise<boolean> {
    return this.claimRow.run({ name, holder, now, until }).changes === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    this.releaseRow.run(name, holder);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

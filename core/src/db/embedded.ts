import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Sql } from 'postgres';
import { connectDatabase } from './connect';

export interface EmbeddedDatabase {
  sql: Sql;
  url: string;
  close(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) served on a loopback port, for `npm start`
 * without DATABASE_URL and for the PGlite variant of the hold tests. PGlite is ONE database
 * session: postgres.js must use a single connection (max: 1), or transactions from different
 * connections would interleave inside that one session.
 */
export async function startEmbeddedDatabase(options: { dataDir?: string } = {}): Promise<EmbeddedDatabase> {
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  const sql = connectDatabase(url, { max: 1, applicationName: 'flash-sale-embedded' });
  return {
    sql,
    url,
    async close() {
      await sql.end({ timeout: 1 });
      await server.stop();
      await db.close();
    },
  };
}

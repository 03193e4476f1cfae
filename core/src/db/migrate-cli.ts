/** `npm run migrate`: applies pending migrations to DATABASE_URL (safe to run twice). */
import { connectDatabase } from './connect';
import { migrate } from './migrate';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    'DATABASE_URL is not set. Example: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run migrate',
  );
  process.exit(2);
}
const sql = connectDatabase(url, { max: 1, applicationName: 'flash-sale-migrate' });
try {
  const applied = await migrate(sql);
  console.log(applied.length > 0 ? `Applied ${applied.join(', ')}` : 'Schema is up to date');
} finally {
  await sql.end();
}

/** `npm run seed`: the demo venue, hall and showtimes on DATABASE_URL, idempotently. */
import { connectDatabase } from '../db/connect';
import { migrate } from '../db/migrate';
import { seedDemo } from './seed';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    'DATABASE_URL is not set. Example: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run seed',
  );
  process.exit(2);
}
const sql = connectDatabase(url, { max: 1, applicationName: 'flash-sale-seed' });
try {
  await migrate(sql);
  const demo = await seedDemo(sql);
  console.log(`Demo ready: venue ${demo.venueId}, hall ${demo.hallId}, showtimes ${demo.showtimeIds.join(', ')}`);
} finally {
  await sql.end();
}

import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

/** Where global setup leaves the migrated PGlite template (a data-dir dump); workers inherit the variable. */
export function pgliteTemplateFile(): string {
  process.env.APT_TEST_PGLITE_TEMPLATE ??= path.join(os.tmpdir(), `apt-pglite-template-${process.pid}-${Date.now()}.tar.gz`);
  return process.env.APT_TEST_PGLITE_TEMPLATE;
}

export function testDatabaseUrl(): URL | undefined {
  const raw = process.env.TEST_DATABASE_URL;
  if (!raw) return undefined;
  const url = new URL(raw);
  const name = url.pathname.slice(1);
  // Never run tests against a database that is not obviously a test one.
  if (!/test/i.test(name)) throw new Error(`TEST_DATABASE_URL must name a database containing "test" (got "${name}")`);
  return url;
}

export function withDatabase(url: URL, name: string): string {
  const copy = new URL(url.toString());
  copy.pathname = `/${name}`;
  return copy.toString();
}

export function templateName(url: URL): string {
  return `${url.pathname.slice(1)}_template`;
}

async function admin<T>(url: URL, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new database cloned from the migrated template (milliseconds). */
export async function cloneTemplate(url: URL): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${url.pathname.slice(1)}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(url, async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName(url)}"`);
        return;
      } catch (err) {
        // Two clones of one template at the same instant: PostgreSQL refuses one; retry.
        if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  });
  // TypeORM's metadata rows name the database they were written in (the template's): rename them to the clone's.
  const clone = new Client({ connectionString: withDatabase(url, name) });
  await clone.connect();
  try {
    await clone.query(`UPDATE typeorm_metadata SET database = current_database()`);
  } finally {
    await clone.end();
  }
  return {
    url: withDatabase(url, name),
    drop: () => admin(url, async (client) => void (await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}

export async function recreateDatabase(url: URL, name: string): Promise<void> {
  await admin(url, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
}

/** Drops databases left by earlier runs of this suite (a crashed run leaves clones behind). */
export async function dropClones(url: URL): Promise<void> {
  const base = url.pathname.slice(1);
  await admin(url, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2`,
      [`${base}\\_%`, templateName(url)],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}

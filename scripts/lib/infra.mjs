// Checks and preparation of PostgreSQL and RabbitMQ before services start.
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './env.mjs';

const require = createRequire(path.join(ROOT, 'package.json'));

function quoteIdent(name) {
  return `"${name.replace(/"/g, '""')}"`;
}

function adminUrlOf(url) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
}

export function databaseNameOf(url) {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

async function withAdmin(url, fn) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: adminUrlOf(url), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `url` when missing. Resolves true when it was created. */
export async function ensureDatabase(url) {
  const name = databaseNameOf(url);
  return withAdmin(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return true;
    } catch (err) {
      if (err.code === '42P04') return false; // created concurrently
      throw err;
    }
  });
}

export async function dropDatabase(url) {
  const name = databaseNameOf(url);
  await withAdmin(url, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
}

/** Resolves true when something accepts TCP connections on host:port within `timeoutMs`. */
export function canConnect(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** host and port of an amqp(s) URL. */
export function amqpEndpoint(url) {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port) || (u.protocol === 'amqps:' ? 5671 : 5672) };
}

// Preloaded with NODE_OPTIONS=--require by the event-bus benchmark
// (PG_STATEMENT_COUNT_FILE): counts the SQL statements the process sends
// through `pg` (TypeORM's pool included) and writes the running total to
// that file every 100 ms, so that a benchmark can report statements per event.
const fs = require('node:fs');
const file = process.env.PG_STATEMENT_COUNT_FILE;
if (file) {
  // The pg of the process's own checkout (BENCH_API_ROOT may run another one's build), else this file's
  // (a worker thread preloads this too, with the main script's arguments or none).
  const main = process.argv[1] ? require('node:path').dirname(process.argv[1]) : process.cwd();
  let pgPath;
  try {
    pgPath = require.resolve('pg', { paths: [main] });
  } catch {
    pgPath = require.resolve('pg');
  }
  const { Client } = require(pgPath);
  const query = Client.prototype.query;
  let count = 0;
  const byText = new Map();
  Client.prototype.query = function countedQuery(...args) {
    count += 1;
    const text = String(typeof args[0] === 'string' ? args[0] : (args[0] && args[0].text) || '')
      .replace(/\s+/g, ' ')
      .slice(0, 90);
    byText.set(text, (byText.get(text) || 0) + 1);
    return query.apply(this, args);
  };
  // The total every 100 ms, the breakdown by text every second and at exit: the counter's own writes are CPU of the process it measures.
  let written = -1;
  let textWritten = -1;
  const write = () => {
    if (written === count) return;
    written = count;
    fs.writeFileSync(file, String(count));
  };
  const writeText = () => {
    if (textWritten === count) return;
    textWritten = count;
    fs.writeFileSync(`${file}.by-text.json`, JSON.stringify([...byText].sort((a, b) => b[1] - a[1]).slice(0, 60), null, 1));
  };
  setInterval(write, 100).unref();
  setInterval(writeText, 1000).unref();
  process.on('exit', () => {
    write();
    writeText();
  });
}

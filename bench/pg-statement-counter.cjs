// Preloaded with NODE_OPTIONS=--require by the event-bus benchmark
// (PG_STATEMENT_COUNT_FILE): counts the SQL statements the process sends
// through `pg` (TypeORM's pool included) and writes the running total to
// that file every 100 ms, so that a benchmark can report statements per event.
const fs = require('node:fs');
const file = process.env.PG_STATEMENT_COUNT_FILE;
if (file) {
  const { Client } = require('pg');
  const query = Client.prototype.query;
  let count = 0;
  Client.prototype.query = function countedQuery(...args) {
    count += 1;
    return query.apply(this, args);
  };
  let written = -1;
  const write = () => {
    if (written === count) return;
    written = count;
    fs.writeFileSync(file, String(count));
  };
  setInterval(write, 100).unref();
  process.on('exit', write);
}

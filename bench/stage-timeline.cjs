// Preloaded with NODE_OPTIONS=--require by `npm run bench pipeline` when BENCH_STAGE_TIMELINE=true (off by default:
// without it nothing here is loaded, so it costs the services nothing). It stamps, on the machine's monotonic clock
// (process.hrtime: one clock for every process, unlike performance.timeOrigin, which each process takes from the
// millisecond wall clock when it starts), what each service does at its library doors:
//   http in / http out       a request this process serves, and its answer (express's response finished)
//   http call / http answer  a request this process makes (the public API's call to the router)
//   amqp publish / confirm   a message sent on a confirm channel, and the broker's confirm of it
//   amqp deliver / ack       a message handed to a consumer, and its ack
//   pg / pg done             a statement sent by node-postgres, and its answer
//   pg notify                a LISTEN notification arriving
// and writes them as JSON to $STAGE_TIMELINE_DIR/<service>-<pid>.json when the process exits. The benchmark
// cuts them into executions by its own client-side windows (concurrency 1: nothing else runs in a window).
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

// With AMQP_COUNT_DIR (the pipeline's BENCH_AMQP_COUNT), each label is also counted, and the counts are written to
// $AMQP_COUNT_DIR/<service>-<pid>.json every 100 ms when they changed and at exit: AMQP operations, HTTP requests and
// statements per execution, whatever the load.
const dir = process.env.STAGE_TIMELINE_DIR;
const countDir = process.env.AMQP_COUNT_DIR;
const service = path.basename(path.dirname(process.argv[1] || 'unknown'));
const events = [];
const counts = new Map();
const now = () => Number(process.hrtime.bigint()) / 1e6;
const stamp = (label) => {
  if (dir) events.push([now(), label]);
  if (countDir) counts.set(label, (counts.get(label) || 0) + 1);
};
const route = (url) =>
  String(url || '')
    .split('?')[0]
    .replace(/\/\d+(?=\/|$)/g, '/:id');

// Serving: the request as express sees it, and when its answer was handed to the kernel.
const serverEmit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request' && !String(req.url).startsWith('/metrics')) {
    const name = `${req.method} ${route(req.url)}`;
    stamp(`http in ${name}`);
    res.once('finish', () => stamp(`http out ${name}`));
  }
  return serverEmit.apply(this, arguments);
};

// Calling: node:http requests this process makes (internal-http's kept-alive agent).
const request = http.request;
http.request = function (...args) {
  const req = request.apply(this, args);
  const name = `${req.method} ${route(req.path)}`;
  stamp(`http call ${name}`);
  req.once('response', () => stamp(`http answer ${name}`));
  return req;
};

function patchAmqp() {
  let model;
  try {
    // The package's exports hide lib/: the file is loaded by its path (the same module amqplib itself loads).
    model = require(path.join(path.dirname(require.resolve('amqplib')), 'lib', 'channel_model.js'));
  } catch {
    return;
  }
  const { Channel, ConfirmChannel } = model;
  const publish = ConfirmChannel.prototype.publish;
  ConfirmChannel.prototype.publish = function (exchange, routingKey, content, options, cb) {
    const name = exchange || routingKey;
    stamp(`amqp publish ${name}`);
    return publish.call(this, exchange, routingKey, content, options, (...r) => {
      stamp(`amqp confirm ${name}`);
      if (cb) cb(...r);
    });
  };
  const consume = Channel.prototype.consume;
  Channel.prototype.consume = function (queue, callback, options) {
    return consume.call(
      this,
      queue,
      (msg) => {
        if (msg) stamp(`amqp deliver ${queue}`);
        return callback(msg);
      },
      options,
    );
  };
  const ack = Channel.prototype.ack;
  Channel.prototype.ack = function (message, allUpTo) {
    stamp(`amqp ack${allUpTo ? ' multiple' : ''} ${message && message.fields ? message.fields.routingKey : ''}`);
    return ack.call(this, message, allUpTo);
  };
  const nack = Channel.prototype.nack;
  Channel.prototype.nack = function (message) {
    stamp(`amqp nack ${message && message.fields ? message.fields.routingKey : ''}`);
    return nack.apply(this, arguments);
  };
}

function patchPg() {
  let pg;
  try {
    pg = require('pg');
  } catch {
    return;
  }
  const { Client } = pg;
  const query = Client.prototype.query;
  Client.prototype.query = function (config, values, callback) {
    const text = typeof config === 'string' ? config : config && config.text;
    if (typeof text !== 'string' || (config && typeof config.submit === 'function')) return query.apply(this, arguments);
    const name = text.replace(/\s+/g, ' ').trim().slice(0, 48);
    stamp(`pg ${name}`);
    const done = () => stamp(`pg done ${name}`);
    const last = arguments[arguments.length - 1];
    if (typeof last === 'function') {
      const args = [...arguments];
      args[args.length - 1] = function (...r) {
        done();
        return last.apply(this, r);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, arguments);
    if (result && typeof result.then === 'function') result.then(done, done);
    return result;
  };
  const emit = Client.prototype.emit;
  Client.prototype.emit = function (event) {
    if (event === 'notification') stamp('pg notify');
    return emit.apply(this, arguments);
  };
}

patchAmqp();
patchPg();

let written = false;
process.on('exit', () => {
  if (written || !dir) return;
  written = true;
  fs.writeFileSync(path.join(dir, `${service}-${process.pid}.json`), JSON.stringify({ service, events }));
});

if (countDir) {
  const file = path.join(countDir, `${service}-${process.pid}.json`);
  let text = '';
  const writeCounts = () => {
    const next = JSON.stringify(Object.fromEntries(counts));
    if (next === text) return;
    text = next;
    fs.writeFileSync(file, next);
  };
  setInterval(writeCounts, 100).unref();
  process.on('exit', writeCounts);
}

// A diagnostic preload (BENCH_NODE_REQUIRE=<this file>, with AMQP_COUNT_DIR=<dir>): counts, per process, what it
// does at amqplib's and node:http's doors: publishes (by exchange or queue), broker confirms, deliveries (by queue),
// acks (single and multiple), nacks, the channel-level frames amqplib writes, and HTTP requests served and made (by
// method and route). Written as JSON to $AMQP_COUNT_DIR/<service>-<pid>.json every second and at exit, so that a
// benchmark's messages per execution can be read off the totals (divide by the executions the run made). The pipeline
// bench loads it with BENCH_AMQP_COUNT=true and prints the counts per execution of its concurrency run.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const dir = process.env.AMQP_COUNT_DIR;
if (dir) {
  const service = path.basename(path.dirname(process.argv[1] || 'unknown'));
  const counts = new Map();
  const inc = (key, n = 1) => counts.set(key, (counts.get(key) || 0) + n);
  const route = (url) =>
    String(url || '')
      .split('?')[0]
      .replace(/\/\d+(?=\/|$)/g, '/:id');

  const serverEmit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, req) {
    if (event === 'request' && !String(req.url).startsWith('/metrics')) inc(`http in ${req.method} ${route(req.url)}`);
    return serverEmit.apply(this, arguments);
  };
  const request = http.request;
  http.request = function (...args) {
    const req = request.apply(this, args);
    inc(`http out ${req.method} ${route(req.path)}`);
    return req;
  };

  try {
    const model = require(path.join(path.dirname(require.resolve('amqplib', { paths: [path.dirname(process.argv[1] || '.')] })), 'lib', 'channel_model.js'));
    const { Channel, ConfirmChannel } = model;
    const publish = ConfirmChannel.prototype.publish;
    ConfirmChannel.prototype.publish = function (exchange, routingKey, content, options, cb) {
      const name = exchange || routingKey;
      inc(`amqp publish ${name}`);
      return publish.call(this, exchange, routingKey, content, options, (...r) => {
        inc(`amqp confirm ${name}`);
        if (cb) cb(...r);
      });
    };
    const consume = Channel.prototype.consume;
    Channel.prototype.consume = function (queue, callback, options) {
      return consume.call(
        this,
        queue,
        (msg) => {
          if (msg) inc(`amqp deliver ${queue}`);
          return callback(msg);
        },
        options,
      );
    };
    const ack = Channel.prototype.ack;
    Channel.prototype.ack = function (message, allUpTo) {
      inc(`amqp ack${allUpTo ? ' multiple' : ''} ${message && message.fields ? message.fields.routingKey || message.fields.exchange : ''}`);
      return ack.apply(this, arguments);
    };
    const nack = Channel.prototype.nack;
    Channel.prototype.nack = function (message) {
      inc(`amqp nack ${message && message.fields ? message.fields.routingKey : ''}`);
      return nack.apply(this, arguments);
    };
  } catch {
    // amqplib not installed for this process: HTTP only.
  }

  const file = path.join(dir, `${service}-${process.pid}.json`);
  let written = '';
  const write = () => {
    const text = JSON.stringify(Object.fromEntries([...counts].sort()), null, 1);
    if (text === written) return;
    written = text;
    fs.writeFileSync(file, text);
  };
  setInterval(write, 100).unref();
  process.on('exit', write);
}

// Preloaded with NODE_OPTIONS=--require by benchmarks (BENCH_CPU_PROFILE_DIR): writes a
// .cpuprofile per service process on exit, for chrome://inspect or .tmp analysis.
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
const dir = process.env.CPU_PROF_DIR;
let written = false;
function dump() {
  if (written) return;
  written = true;
  session.post('Profiler.stop', (err, { profile }) => {
    if (!err) fs.writeFileSync(path.join(dir, `${path.basename(path.dirname(process.argv[1]))}-${process.pid}.cpuprofile`), JSON.stringify(profile));
  });
}
process.on('SIGUSR2', dump);
process.on('exit', dump);

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';

const run = promisify(execFile);

export interface DovecotUser {
  user: string;
  password: string;
}

const CANDIDATES = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'];

function dovecotBinary(): string {
  for (const candidate of CANDIDATES) if (existsSync(candidate)) return candidate;
  const onPath = (process.env.PATH ?? '')
    .split(':')
    .map((dir) => path.join(dir, 'dovecot'))
    .find((p) => existsSync(p));
  if (onPath) return onPath;
  throw new Error('dovecot is not installed: scripts/install-system-deps.sh installs it (Debian package dovecot-imapd)');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once something on `port` greets like an IMAP server. */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let text = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('Dovecot') && text.includes('ready')) done(true);
    });
    socket.on('error', () => done(false));
  });
}

function config(dir: string, port: number, asRoot: boolean): string {
  const me = os.userInfo().username;
  // Dovecot refuses to run mail processes as root: as root, mail is owned by nobody; otherwise by the caller.
  const mailOwner = asRoot ? 'uid=nobody gid=nogroup' : `uid=${os.userInfo().uid} gid=${os.userInfo().gid}`;
  return `# A throwaway Dovecot for one test run: loopback only, plain text logins, Maildir in a temp folder.
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%n
first_valid_uid = 0
# IDLE learns of new mail from inotify, or else by checking this often (the default is 30 s).
mailbox_idle_check_interval = 1 secs
${asRoot ? '' : `default_login_user = ${me}\ndefault_internal_user = ${me}\n`}
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = static
  args = ${mailOwner} home=${dir}/mail/%n
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
}
service anvil {
  chroot =
}
`;
}

/**
 * A real IMAP server for tests: Dovecot from the Debian package, run in the
 * foreground (`dovecot -F -c <conf>`) as a child of the test with its
 * configuration, sockets, users (passwd-file) and Maildirs in a temp folder,
 * listening on a free loopback port. No systemd, nothing outside the folder.
 */
export class LoopbackDovecot {
  readonly host = '127.0.0.1';

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    private readonly users: Map<string, string>,
    private readonly binary: string,
  ) {}

  static async start(users: DovecotUser[], timeoutMs = 15_000): Promise<LoopbackDovecot> {
    const binary = dovecotBinary();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-dovecot-'));
    // Dovecot's unprivileged login processes must reach the sockets; mail processes (nobody) must write the Maildirs.
    await chmod(dir, 0o755);
    await mkdir(path.join(dir, 'run'), { mode: 0o755 });
    await mkdir(path.join(dir, 'state'), { mode: 0o755 });
    await mkdir(path.join(dir, 'mail'));
    await chmod(path.join(dir, 'mail'), 0o777);
    await writeFile(path.join(dir, 'passwd'), users.map((u) => `${u.user}:{PLAIN}${u.password}::::::\n`).join(''), { mode: 0o644 });
    const port = await freePort();
    await writeFile(path.join(dir, 'dovecot.conf'), config(dir, port, process.getuid?.() === 0));
    let output = '';
    const child = spawn(binary, ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const server = new LoopbackDovecot(port, dir, child, exited, new Map(users.map((u) => [u.user, u.password])), binary);
    const deadline = Date.now() + timeoutMs;
    while (!(await greets(port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        const log = await server.log();
        await server.stop();
        throw new Error(`dovecot did not start on 127.0.0.1:${port}:\n${output}\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return server;
  }

  /** Dovecot's own log, for failure messages. */
  async log(): Promise<string> {
    return readFile(path.join(this.dir, 'dovecot.log'), 'utf8').catch(() => '');
  }

  /** Delivers a message into a user's mailbox with IMAP APPEND (the mailbox is created when missing); resolves to its UID. */
  async append(user: string, mailbox: string, raw: string | Buffer): Promise<number> {
    return this.asUser(user, async (client) => {
      if (!(await client.list()).some((m) => m.path === mailbox)) await client.mailboxCreate(mailbox);
      const appended = await client.append(mailbox, raw);
      if (!appended || appended.uid === undefined) throw new Error(`APPEND to ${mailbox} gave no UID`);
      return appended.uid;
    });
  }

  /** Drops every IMAP connection of `user` (`doveadm kick`), as a server restart or a network cut would. */
  async kick(user: string): Promise<void> {
    const doveadm = path.join(path.dirname(this.binary), '..', 'bin', 'doveadm');
    await run(existsSync(doveadm) ? doveadm : 'doveadm', ['-c', path.join(this.dir, 'dovecot.conf'), 'kick', user]);
  }

  async createMailbox(user: string, mailbox: string): Promise<void> {
    await this.asUser(user, async (client) => {
      await client.mailboxCreate(mailbox);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    }
    await rm(this.dir, { recursive: true, force: true });
  }

  private async asUser<T>(user: string, work: (client: ImapFlow) => Promise<T>): Promise<T> {
    const password = this.users.get(user);
    if (password === undefined) throw new Error(`no dovecot user ${user}`);
    const client = new ImapFlow({ host: this.host, port: this.port, secure: false, auth: { user, pass: password }, logger: false });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.logout().catch(() => client.close());
    }
  }
}

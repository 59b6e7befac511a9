import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ExtractorUnavailableError } from './errors';
import { ocrImage } from './ocr';

/** ocrImage's sandbox, seen through a stand-in tesseract that prints what it can see and do. */
describe('ocrImage sandbox', () => {
  let dir: string;
  let server: net.Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-ocr-spec-'));
    server = net.createServer((socket) => socket.end('metadata'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('hides the service’s secrets from tesseract, takes its network and limits its CPU, memory and files', async () => {
    const fake = path.join(dir, 'tesseract');
    await writeFile(
      fake,
      `#!/bin/bash
cat > /dev/null
env
echo "args=$*"
echo "limits=$(ulimit -t),$(ulimit -v),$(ulimit -f)"
(exec 3<>/dev/tcp/127.0.0.1/${port} && echo network=reachable) 2>/dev/null || echo network=blocked
`,
    );
    await chmod(fake, 0o755);
    process.env.DOCFLOW_SPEC_SERVICE_KEY = 'service-key-tesseract-must-not-see';
    try {
      const { text } = await ocrImage(Buffer.from('not really an image'), { tesseractPath: fake, language: 'eng', timeoutMs: 10_000, maxOutputBytes: 64 * 1024 });
      expect(text).not.toContain('service-key-tesseract-must-not-see');
      expect(text).not.toContain('DOCFLOW_SPEC_SERVICE_KEY');
      expect(text).toMatch(/^OMP_THREAD_LIMIT=1$/m);
      expect(text).toMatch(/^HOME=.*\/docflow-ocr-[^/]+$/m);
      expect(text).toContain('args=stdin stdout -l eng');
      expect(text).toContain(`limits=15,${1024 * 1024},${16 * 1024}`);
      expect(text).toContain('network=blocked');
    } finally {
      delete process.env.DOCFLOW_SPEC_SERVICE_KEY;
    }
  });

  it('says OCR is unavailable when tesseract is not installed', async () => {
    await expect(ocrImage(Buffer.from('x'), { tesseractPath: path.join(dir, 'none'), language: 'eng', timeoutMs: 1000, maxOutputBytes: 10 })).rejects.toBeInstanceOf(ExtractorUnavailableError);
  });
});

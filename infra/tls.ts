// TLS material: the configured certificate, or a self-signed one generated once into DATA_DIR and reused after.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE } from './dataDir.js';

export interface TlsMaterial {
  cert: string;
  key: string;
}

export async function loadTls(dataDir: string, configured: { certFile: string; keyFile: string } | null, host: string): Promise<TlsMaterial> {
  if (configured) return { cert: await readFile(configured.certFile, 'utf8'), key: await readFile(configured.keyFile, 'utf8') };
  const certFile = join(dataDir, 'tls', 'self-signed.crt');
  const keyFile = join(dataDir, 'tls', 'self-signed.key');
  if (existsSync(certFile) && existsSync(keyFile)) return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  const names = new Set(['localhost', host]);
  // Loaded only to generate: a restart on the same DATA_DIR, and a process given its certificate, never need it.
  const { default: selfsigned } = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 825 * 86_400_000),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...names, '127.0.0.1'].map((n) => (/^[\d.]+$|:/.test(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n })),
      },
    ],
  });
  await mkdir(join(dataDir, 'tls'), { recursive: true, mode: PRIVATE_DIR });
  await writeFile(keyFile, pems.private, { mode: PRIVATE_FILE });
  await writeFile(certFile, pems.cert, { mode: PRIVATE_FILE });
  return { cert: pems.cert, key: pems.private };
}

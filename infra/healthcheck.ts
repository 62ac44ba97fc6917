// The container's health check (deploy/compose.common.yaml): `node dist/infra/healthcheck.js /readyz` asks this process, on
// its own port and in its own environment, for one of the operator's endpoints and exits 0 on a 200, 1 otherwise,
// with the answer on stdout (Docker keeps it with the health status). The roles that take clients' traffic are
// checked on /readyz (current read models), the others on /healthz (up). Only this process's certificate is trusted.
import { readFileSync } from 'node:fs';
import { type IncomingMessage, request as plainRequest } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { loadConfig } from './config.js';

const PATHS = ['/healthz', '/readyz'];
const TIMEOUT_MS = 4000;

export async function checkHealth(path: string, env: NodeJS.ProcessEnv = process.env): Promise<{ healthy: boolean; answer: string }> {
  if (!PATHS.includes(path)) throw new Error(`the health check asks ${PATHS.join(' or ')}, not "${path}"`);
  const config = loadConfig(env);
  const options = { host: '127.0.0.1', port: config.port, path, timeout: TIMEOUT_MS };
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = config.plainHttp
      ? plainRequest(options, resolve)
      : request(
          {
            ...options,
            // Its own certificate, self-signed or configured (with the public roots that issued it): the names of a
            // configured one are the public ones, not the loopback address asked here.
            ca: [...rootCertificates, readFileSync(config.tls?.certFile ?? join(config.dataDir, 'tls', 'self-signed.crt'), 'utf8')],
            checkServerIdentity: () => undefined,
          },
          resolve,
        );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return { healthy: response.statusCode === 200, answer: `${response.statusCode} ${body}` };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  checkHealth(process.argv[2] ?? '/healthz').then(
    ({ healthy, answer }) => {
      console.log(answer);
      process.exit(healthy ? 0 : 1);
    },
    (error: unknown) => {
      console.log(`unhealthy: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}

// Whether a Docker engine answers, asked cheaply (a ping on its socket, bounded by a short timeout), so the
// real-engine suites either run through testcontainers or are skipped with one line saying why.
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, it } from 'vitest';

export interface DockerProbe {
  reachable: boolean;
  why: string;
}

function endpoint(): { path: string } | { host: string; port: number } | null {
  const configured = process.env.DOCKER_HOST;
  if (configured?.startsWith('unix://')) return { path: configured.slice('unix://'.length) };
  if (configured?.startsWith('tcp://')) {
    const url = new URL(configured.replace(/^tcp:/, 'http:'));
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  return existsSync('/var/run/docker.sock') ? { path: '/var/run/docker.sock' } : null;
}

export async function probeDocker(timeoutMs = 1500): Promise<DockerProbe> {
  const target = endpoint();
  if (!target) return { reachable: false, why: 'no Docker engine reachable (no DOCKER_HOST, no /var/run/docker.sock)' };
  return new Promise((resolve) => {
    const socket = connect(target as { path: string });
    let answer = '';
    const finish = (probe: DockerProbe) => {
      socket.destroy();
      resolve(probe);
    };
    socket.setTimeout(timeoutMs, () => finish({ reachable: false, why: 'no Docker engine reachable (the socket did not answer)' }));
    socket.on('connect', () => socket.write('GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (/\r\n\r\nOK/.test(answer)) finish({ reachable: true, why: '' });
    });
    socket.on('error', (error) => finish({ reachable: false, why: `no Docker engine reachable (${error.message})` }));
    socket.on('end', () => finish({ reachable: /\r\n\r\nOK/.test(answer), why: 'no Docker engine reachable (the socket did not answer the ping)' }));
  });
}

/** Real-engine suites are ~minutes of image pulls: give their start-up room. */
export const CONTAINER_START_MS = 240_000;

/** Registers the skipped suite and says why on one visible line (the default reporter shows only the file count). */
export function skipWithoutDocker(engine: string, why: string, what: string): void {
  const title = `${engine} contract: skipped, ${why} (testcontainers)`;
  console.warn(title);
  describe.skip(title, () => {
    it(what, () => {});
  });
}

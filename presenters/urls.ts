// URLs the API hands out, built from the configured public origin (REST's GET /gateway and the gateway's READY).
import type { Config } from '../ports/config.js';

/** The wss:// URL clients are sent to for the gateway. */
export function gatewayUrl(config: Pick<Config, 'gatewayUrl' | 'publicBaseUrl'>): string {
  return config.gatewayUrl ?? `${config.publicBaseUrl.replace(/^http/, 'ws')}/gateway`;
}

/** READY's resume_gateway_url: this gateway node's own address where it has one, since RESUME state lives in the node. */
export function resumeGatewayUrl(config: Pick<Config, 'gatewayUrl' | 'gatewayNodeUrl' | 'publicBaseUrl'>): string {
  return config.gatewayNodeUrl ?? gatewayUrl(config);
}

// An application's interactions endpoint, as the widely used API has it: each application has an Ed25519 key pair
// (the public key is its verify_key, the private key is only ever sealed), and when it sets an interactions endpoint
// URL its interactions are POSTed there signed with that key (X-Signature-Ed25519 over X-Signature-Timestamp + the raw
// body) instead of reaching its bot on the gateway; the HTTP answer is the interaction's response. An URL is taken only
// once the endpoint proved it checks signatures: it answers a signed PING with {"type": 1} and refuses a forged one 401.
import { randomBytes } from 'node:crypto';
import { type ApplicationKey, applicationDecider } from '../domain/application.js';
import { ACKNOWLEDGE_WITHIN_MS, type InteractionFailure, botInteractionDecider } from '../domain/commandInteraction.js';
import { DomainError, invalidForm } from '../domain/errors.js';
import type { Metrics } from '../ports/metrics.js';
import { type CheckOutboundUrl, type OutboundAnswer, type OutboundRefusal, OutboundUrlError, type PostForAnswer } from '../ports/outbound.js';
import { newSigningKeyPair, signWithKey } from '../ports/secrets.js';
import { botInteractionObject } from '../presenters/interactions.js';
import { type CreatedInteraction, interactionSubjects } from './commandInteractions.js';
import { type RequestMeta, type Uses, serviceMeta } from './deps.js';
import { type ResponseInput, respondToInteraction } from './interactionResponses.js';
import type { EditDeps } from './messages/edit.js';
import type { UploadedFile } from './messages/input.js';
import { applicationStream, commandInteractionStream } from './streams.js';

/** How the service reaches endpoints: the outbound port's check and POST, under the address rules of interaction_url. */
export interface EndpointPolicy {
  /** INTERACTIONS_ALLOW_PRIVATE: development endpoints on loopback or private addresses (and self-signed certificates). */
  allowPrivate: boolean;
  checkUrl: CheckOutboundUrl;
  post: PostForAnswer;
}

/** The User-Agent of every request that carries an interaction to an app (endpoint checks and deliveries alike). */
export const USER_AGENT = 'Service-Interactions/1.0';
/** A PONG is tiny; an answer to a PING is not read past this. */
const MAX_PONG_BYTES = 4096;

/** A new key pair, its private half sealed. */
export function newApplicationKey(deps: Uses<'secrets'>): ApplicationKey {
  const { verifyKey, privateKeyPem } = newSigningKeyPair();
  return { verifyKey, sealedPrivateKey: deps.secrets.seal(privateKeyPem) };
}

/**
 * The application's key pair. Applications created before keys get theirs the first time it is needed (their object
 * shown, their endpoint set), recorded as ApplicationKeyCreated; of two first needs at once, the first append wins.
 */
export async function ensureApplicationKey(deps: Uses<'commands' | 'secrets' | 'clock' | 'settle'>, applicationId: string): Promise<ApplicationKey> {
  const { state } = await deps.commands.load(applicationStream(applicationId), applicationDecider);
  if (state.key) return state.key;
  const command = { type: 'CreateKey' as const, applicationId, ...newApplicationKey(deps) };
  const handled = await deps.commands.handle(applicationStream(applicationId), applicationDecider, command, serviceMeta(deps));
  await deps.settle(handled.position);
  return handled.state.key!;
}

/**
 * POSTs `body` to the endpoint signed with the application's key, or, `forged`, with a key that is not the
 * application's (a signature of the right form that must not verify). Rejects as the outbound port does.
 */
function postSigned(
  deps: Uses<'secrets' | 'clock'>,
  policy: EndpointPolicy,
  key: ApplicationKey,
  url: string,
  body: string,
  options: { maxBytes: number; forged?: boolean },
): Promise<OutboundAnswer> {
  const timestamp = String(Math.floor(deps.clock.now() / 1000));
  const privateKey = options.forged ? newSigningKeyPair().privateKeyPem : deps.secrets.open(key.sealedPrivateKey);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Signature-Ed25519': signWithKey(privateKey, timestamp, body),
    'X-Signature-Timestamp': timestamp,
  };
  return policy.post(url, body, headers, { allowPrivate: policy.allowPrivate, timeoutMs: ACKNOWLEDGE_WITHIN_MS, maxBytes: options.maxBytes });
}

/** What is wrong with the URL as written: told, as it says nothing of any host. */
const FORM_PROBLEMS: Partial<Record<OutboundRefusal, string>> = {
  not_https: 'Must be an https URL',
  invalid_url: 'Not a valid URL (an absolute https URL without credentials)',
};

/**
 * Every other failure, of the host's address or of the endpoint, in the widely used API's one sentence: telling a host
 * that does not resolve from one that is private, silent, closed or answers 404 would make this a scanner of networks.
 */
const notVerified = () =>
  invalidForm([
    {
      path: 'interactions_endpoint_url',
      code: 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID',
      message: 'The specified interactions endpoint url could not be verified.',
    },
  ]);

function isPong(answer: OutboundAnswer): boolean {
  try {
    return (JSON.parse(answer.data.toString('utf8')) as { type?: unknown }).type === 1;
  } catch {
    return false;
  }
}

/**
 * Checks an interactions endpoint URL before it is stored, as the widely used API does: the address rules of a
 * webhook's interaction_url (https; public addresses unless INTERACTIONS_ALLOW_PRIVATE), then a PING signed with the
 * application's key that must be answered 2xx with {"type": 1}, and a PING with a forged signature that must be
 * refused 401. Anything else is 400 INVALID_FORM_BODY at interactions_endpoint_url: what is wrong with how the URL is
 * written, or else only that it could not be verified.
 */
export async function verifyInteractionsEndpoint(
  deps: Uses<'commands' | 'ids' | 'secrets' | 'clock' | 'settle'>,
  policy: EndpointPolicy,
  applicationId: string,
  url: string,
): Promise<void> {
  try {
    await policy.checkUrl(url, { allowPrivate: policy.allowPrivate });
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error;
    const problem = FORM_PROBLEMS[error.reason];
    throw problem ? invalidForm([{ path: 'interactions_endpoint_url', message: problem }]) : notVerified();
  }
  const key = await ensureApplicationKey(deps, applicationId);
  const ping = () =>
    JSON.stringify({
      id: deps.ids.next(),
      application_id: applicationId,
      type: 1,
      token: randomBytes(32).toString('base64url'),
      version: 1,
      entitlements: [],
      authorizing_integration_owners: {},
    });
  const exchange = async (forged: boolean) => {
    try {
      return await postSigned(deps, policy, key, url, ping(), { maxBytes: MAX_PONG_BYTES, forged });
    } catch {
      throw notVerified();
    }
  };
  const signed = await exchange(false);
  if (signed.status < 200 || signed.status > 299 || !isPong(signed)) throw notVerified();
  const forged = await exchange(true);
  if (forged.status !== 401) throw notVerified();
}

/**
 * POSTs an interaction (its object, serialized) to the application's endpoint, signed, and resolves with the answer, or
 * with why there was none within the 3 seconds the invoker waits.
 */
export async function postInteraction(
  deps: Uses<'commands' | 'secrets' | 'clock' | 'settle'>,
  policy: EndpointPolicy,
  applicationId: string,
  url: string,
  body: string,
  maxBytes: number,
): Promise<OutboundAnswer | InteractionFailure> {
  const key = await ensureApplicationKey(deps, applicationId);
  try {
    return await postSigned(deps, policy, key, url, body, { maxBytes });
  } catch (error) {
    return /timeout/.test(String(error)) ? 'endpoint_timeout' : 'endpoint_unreachable';
  }
}

/** Records that the interaction failed for its invoker (nothing when it was acknowledged first); its token takes no response after. */
export async function failInteraction(deps: Uses<'commands' | 'clock' | 'settle'>, interactionId: string, reason: InteractionFailure): Promise<boolean> {
  const handled = await deps.commands.handle(commandInteractionStream(interactionId), botInteractionDecider, { type: 'Fail', reason }, serviceMeta(deps));
  await deps.settle(handled.position);
  return handled.events.length > 0;
}

/** What an invoker's request hands the delivery to its application's endpoint, besides the ports of the use cases. */
export interface EndpointDelivery extends EndpointPolicy {
  /** The public origin, for the URLs of the interaction's object. */
  origin: string;
  /** A request's JSON body limit: the answer as a whole (files too) is not read past it. */
  maxBytes: number;
  /** Reads the answer's body as the callback route reads a callback's (JSON or multipart): a DomainError if it is none. */
  readAnswer(answer: OutboundAnswer): Promise<{ input: ResponseInput; files: UploadedFile[] }>;
  metrics: Pick<Metrics, 'delivery'>;
}

const FAILURES: Record<InteractionFailure, string> = {
  endpoint_timeout: `The application did not respond within ${ACKNOWLEDGE_WITHIN_MS / 1000} seconds`,
  endpoint_unreachable: 'The application’s interactions endpoint could not be reached',
  endpoint_status: 'The application’s interactions endpoint answered with an error',
  endpoint_invalid_response: 'The application answered with something that is no interaction response',
  not_acknowledged: `The application did not respond within ${ACKNOWLEDGE_WITHIN_MS / 1000} seconds`,
};

/**
 * Delivers an interaction to its application's interactions endpoint, when it has one, and makes the endpoint's answer
 * its response through respondToInteraction, as the callback route would. The invoker's request waits for it (the
 * endpoint gets 3 seconds): it is answered once the response took effect, or refused 424 INTERACTION_FAILED when the
 * endpoint did not answer in time, answered other than 2xx, or answered something that is no response; then nothing
 * is posted and the interaction's token takes no response after.
 */
export async function deliverToEndpoint(
  deps: EditDeps & Uses<'secrets'>,
  delivery: EndpointDelivery,
  meta: RequestMeta,
  created: CreatedInteraction,
): Promise<void> {
  if (!created.endpoint) return;
  const failed = await answerFromEndpoint(deps, delivery, meta, created.endpoint);
  // A failure after the bot acknowledged through the callback route meanwhile is no failure.
  const recorded = failed !== null && (await failInteraction(deps, created.id, failed.failure));
  delivery.metrics.delivery(recorded ? 'InteractionFailed' : 'InteractionResponded');
  if (recorded) throw new DomainError('failed_dependency', 'INTERACTION_FAILED', `${FAILURES[failed.failure]}${failed.detail}`);
}

/** POSTs the interaction to the endpoint and makes its answer the response: what went wrong, or null once it took effect. */
async function answerFromEndpoint(
  deps: EditDeps & Uses<'secrets'>,
  delivery: EndpointDelivery,
  meta: RequestMeta,
  { interaction, token, url }: NonNullable<CreatedInteraction['endpoint']>,
): Promise<{ failure: InteractionFailure; detail: string } | null> {
  const subjects = await interactionSubjects(deps, interaction, deps.clock.now());
  // The place or the invoker went away meanwhile: there is nothing left to answer.
  if (!subjects) return { failure: 'endpoint_invalid_response', detail: '' };
  const object = botInteractionObject(interaction, { token, origin: delivery.origin, ...subjects });
  const answer = await postInteraction(deps, delivery, interaction.applicationId, url, JSON.stringify(object), delivery.maxBytes);
  if (typeof answer === 'string') return { failure: answer, detail: '' };
  if (answer.status < 200 || answer.status > 299) return { failure: 'endpoint_status', detail: ` (${answer.status})` };
  if (answer.tooLarge) return { failure: 'endpoint_invalid_response', detail: `: it is larger than ${delivery.maxBytes} bytes` };
  try {
    const { input, files } = await delivery.readAnswer(answer);
    await respondToInteraction(deps, meta, interaction.id, token, input, files);
    return null;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const fields = error.errors ? ` (${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : '';
    return { failure: 'endpoint_invalid_response', detail: `: ${error.message}${fields}` };
  }
}

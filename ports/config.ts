// The service's settings as the core reads them; infra/config.ts loads them from the environment.
/** A voice region, as GET /channels/:id/rtc-regions lists it. */
export interface RtcRegion {
  id: string;
  name: string;
  emoji: string;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Origin clients use to reach this server (API, CDN and gateway URLs are built from it). */
  publicBaseUrl: string;
  tls: { certFile: string; keyFile: string } | null;
  /** Plain HTTP, only for running behind a TLS-terminating proxy (PLAIN_HTTP=1). */
  plainHttp: boolean;
  workerId: number;
  /** PROCESS_ID; null: the first one of WORKER_ID no running process holds (infra/processIds.ts). */
  processId: number | null;
  logLevel: string;
  jsonBodyLimit: number;
  /** How long a client may take to send its request headers (HEADERS_TIMEOUT_MS); a slower one is disconnected. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** The bearer token GET /metrics asks for (METRICS_TOKEN); null: /metrics is off. */
  metricsToken: string | null;
  /** On SIGTERM, how long requests in flight get to finish before their connections are cut (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** Requests a process serves at once (MAX_REQUESTS_IN_FLIGHT); more are answered 503 at once. 0: no limit. */
  maxRequestsInFlight: number;
  /** The fewest requests at once the adaptive admission limit goes down to (ADMISSION_MIN_IN_FLIGHT). */
  admissionMinInFlight: number;
  /** The wait admitted requests are held under by moving the admission limit (ADMISSION_TARGET_MS); 0: a fixed limit. */
  admissionTargetMs: number;
  /** The wss:// URL clients are sent to for the gateway; by default derived from publicBaseUrl. */
  gatewayUrl: string | null;
  /**
   * The wss:// URL that reaches this gateway node alone (GATEWAY_NODE_URL): READY's resume_gateway_url, so a RESUME
   * lands where the session's state is; null: GATEWAY_URL (one gateway node).
   */
  gatewayNodeUrl: string | null;
  gatewayHeartbeatMs: number;
  /** IDENTIFYs one user may make in 24 hours (GATEWAY_SESSION_START_LIMIT; 1000, as in the widely used API). */
  gatewaySessionStartLimit: number;
  /** Bytes a gateway connection may have waiting to be sent (GATEWAY_OUTBOUND_BUFFER_BYTES); past them it is closed, resumable. */
  gatewayOutboundBufferBytes: number;
  /** How long after a write the embedded read models' WAL may keep the text it removed or replaced (READ_MODEL_SCRUB_MS). */
  readModelScrubMs: number;
  /** The service's key for sealed secrets (SECRET_KEY, 32 bytes base64 or hex); null: a key file in DATA_DIR. */
  secretKey: string | null;
  /** The master key that wraps the data keys (MASTER_KEY, 32 bytes base64 or hex); null: a key file in DATA_DIR. */
  masterKey: string | null;
  /** Earlier master keys, which only open data keys a rotation has not re-wrapped yet (MASTER_KEYS_RETIRED, comma-separated). */
  masterKeysRetired: string[];
  /**
   * Development only (INTERACTIONS_ALLOW_PRIVATE=1): outbound URLs (interaction URLs, emoji images given by URL) may be
   * private or loopback, with self-signed certificates.
   */
  interactionsAllowPrivate: boolean;
  /** The delay before the second delivery attempt; later ones grow from it (DELIVERY_BACKOFF_BASE_MS). */
  deliveryBackoffBaseMs: number;
  /** How long one delivery attempt may take (DELIVERY_TIMEOUT_MS). */
  deliveryTimeoutMs: number;
  /** Seconds an OAuth2 access token lives (OAUTH2_ACCESS_TOKEN_TTL; the spec's 604800, 7 days). */
  oauth2AccessTokenTtl: number;
  /** The voice regions GET /channels/:id/rtc-regions lists and calls and voice channels may name (RTC_REGIONS, JSON). */
  rtcRegions: RtcRegion[];
  /**
   * The media server VOICE_SERVER_UPDATE points clients at (VOICE_ENDPOINT, host:port). Parley carries no audio: null
   * (the default) tells clients that no voice server is allocated, as the widely used API's null endpoint does.
   */
  voiceEndpoint: string | null;
  /** How long a call rings a user who neither answers nor declines (CALL_RING_TIMEOUT_MS). */
  callRingTimeoutMs: number;
  /** How often idle threads are looked for, the most an auto-archiving runs late (THREAD_ARCHIVE_SWEEP_MS). */
  threadArchiveSweepMs: number;
  /**
   * How old a note of uploads (a send's or edit's files, noted before they are stored) must be before its files count
   * as left behind by a request that died; also how often the attachment remover looks.
   */
  uploadGraceMs: number;
  /** The analysts' event streams (GET /guilds/:id/events): their bounds, per process. */
  eventStreams: {
    /** Bytes a stream may have waiting for its reader (EVENT_STREAM_BUFFER_BYTES) before it waits for them to read. */
    bufferBytes: number;
    /** How long a full buffer may wait for its reader (EVENT_STREAM_STALL_MS): then the stream ends, naming where to resume. */
    stallMs: number;
    /** How often an idle stream sends a heartbeat (EVENT_STREAM_HEARTBEAT_MS). */
    heartbeatMs: number;
    /** Streams open at once per reader and per guild (EVENT_STREAMS_PER_USER, EVENT_STREAMS_PER_GUILD). */
    perUser: number;
    perGuild: number;
  };
}

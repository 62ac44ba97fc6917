// The V8 settings Parley's processes run with, given on Node's command line (a young generation's size cannot be set
// once the process runs): `npm start`, `npm run replay`, the image's CMD and the cluster launcher's roles all pass
// these, and test/infra/nodeFlags.test.ts holds the scripts and the image to them.
//
// A 64 MiB semi-space (V8's default is 16 MiB on 64-bit): a send's or a log page's garbage is short-lived, and with
// the larger young generation more of it dies there before a scavenge copies and promotes it. Measured side by side on
// the bench's durable sends (three alternating pairs on a quiet machine): 0.92× the server's CPU per send and 1.06×
// the sends/s; a rebuild of 200,000 events 0.85× its CPU (one pair). It costs at most 3 × 64 MiB of address space a heap, and
// the resident memory it takes back once each scavenge empties it.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64'] as const;

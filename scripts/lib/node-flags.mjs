// V8 heap flags of the services (`npm start`, the end-to-end stack, the fault
// suite and the container image read the same variable): NODE_MAX_SEMI_SPACE_MB
// sets the young generation's semi-space limit (--max-semi-space-size). A larger
// one means fewer scavenges, each about as long (their cost follows what
// survives, not what was allocated), and fewer short-lived objects promoted to
// the old generation, where they would feed the major collections that land
// in the webhook bench's tail (docs/decisions.md, "Webhook triggers: GC,
// allocations and the lane"). The space grows to the limit only under
// allocation pressure; 0 keeps V8's own limit (16 MB on 64-bit Node 20).

export const DEFAULT_MAX_SEMI_SPACE_MB = 64;
const MAX_SEMI_SPACE_MB_LIMIT = 1024;

/** The node flags every service starts with, or an error naming the bad variable. */
export function serviceNodeFlags(env) {
  const raw = env.NODE_MAX_SEMI_SPACE_MB;
  const mb = raw === undefined || raw === '' ? DEFAULT_MAX_SEMI_SPACE_MB : Number(raw);
  if (!Number.isInteger(mb) || mb < 0 || mb > MAX_SEMI_SPACE_MB_LIMIT) {
    return { error: `NODE_MAX_SEMI_SPACE_MB must be an integer from 0 (V8's default) to ${MAX_SEMI_SPACE_MB_LIMIT} (got ${raw})` };
  }
  // 0 is V8's own default for the flag: its limit is then computed as without it.
  return { flags: [`--max-semi-space-size=${mb}`] };
}

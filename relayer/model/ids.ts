import { randomFillSync } from "node:crypto";

/**
 * Prefixed ULIDs (`wf_`, `sch_`, `dep_` + 26 Crockford base32 characters): 48 bits of
 * milliseconds then 80 random bits, so ids sort by creation time and serve as pagination cursors
 * without exposing a row count. Code of our own: ten lines, no dependency.
 */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const random = randomBits();
  let tail = "";
  for (let i = 0; i < 16; i++) tail += CROCKFORD[pool[random + i]! % 32];
  return time + tail;
}

/** Random bytes drawn from the system's CSPRNG 4 KiB at a time (one call per 256 ids, not one each). */
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomBits(): number {
  if (used + 16 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += 16;
  return at;
}

export const newExecutionId = () => `wf_${ulid()}`;
export const newScheduleId = () => `sch_${ulid()}`;
export const newDeploymentId = () => `dep_${ulid()}`;

const ID_PATTERN = /^(wf|sch|dep)_[0-9A-HJKMNP-TV-Z]{26}$/;

/** True for a well-formed id of that kind (malformed ids are simply not found: 404). */
export function isId(kind: "wf" | "sch" | "dep", id: string): boolean {
  return ID_PATTERN.test(id) && id.startsWith(`${kind}_`);
}

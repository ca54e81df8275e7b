// A seed of the player's own for the deals, made here in the browser. Only its commitment (its
// SHA-256) goes with the seat; the seed itself is kept here and sent once the host starts,
// when everyone is seated and the server's own seed has long been committed: so nobody can
// choose theirs to suit another's (docs/audit.md "The seed").

const KEPT = 'euchre-seed:';

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function digest(seed) {
  const bytes = new Uint8Array(seed.match(/../g).map((b) => parseInt(b, 16)));
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * A fresh seed and what the server is told of it: `{ commitment }`, or, where the page has no
 * SHA-256 of its own (plain HTTP to another host), the seed given openly as before.
 */
export async function pledge() {
  const raw = new Uint8Array(32);
  crypto.getRandomValues(raw);
  const seed = hex(raw);
  if (!crypto.subtle) return { seed, body: { seed } };
  return { seed, body: { commitment: await digest(seed) } };
}

/** Keep the seed pledged at table `code` until the start asks for it. */
export function keep(code, seed) {
  try { localStorage.setItem(KEPT + code, seed); } catch { /* private mode: withheld at the start */ }
}

/** The move that answers the start's call for the seed committed to (`commitment`) at `code`. */
export async function answerStart(code, commitment) {
  let seed = null;
  try { seed = localStorage.getItem(KEPT + code); } catch { /* none kept */ }
  if (seed && crypto.subtle && (await digest(seed)) === commitment) {
    try { localStorage.removeItem(KEPT + code); } catch { /* it no longer matters */ }
    return { type: 'reveal', seed };
  }
  return { type: 'withhold' };
}

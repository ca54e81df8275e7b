// The signed heads this browser was shown at each table (docs/audit.md "Signed heads"): each
// is the service's own word about its log at that moment, so a player who keeps them can
// later prove what they were shown, and two that fork prove the service changed its log.
// Kept: the head at the end of each hand and at the end of the game, and the latest one.

const KEPT = 'euchre-heads:';
const MOST = 40;

function read(code) {
  try { return JSON.parse(localStorage.getItem(KEPT + code)) || { kept: [], last: null }; } catch { return { kept: [], last: null }; }
}

/** Note the signed head of a view of table `code`, if it carries one. */
export function keepHead(view) {
  const head = view.signed_head;
  if (!head) return;
  const heads = read(view.code);
  if (heads.last?.seq === head.seq) return;
  heads.last = head;
  const settled = view.phase === 'scored' || view.status === 'over';
  if (settled && !heads.kept.some((h) => h.seq === head.seq)) heads.kept = [...heads.kept, head].slice(-MOST);
  try { localStorage.setItem(KEPT + view.code, JSON.stringify(heads)); } catch { /* full or private: nothing kept */ }
}

/** The heads kept at table `code`, oldest first. */
export function keptHeads(code) {
  const { kept, last } = read(code);
  const all = last && !kept.some((h) => h.seq === last.seq) ? [...kept, last] : kept;
  return all.sort((a, b) => a.seq - b.seq);
}

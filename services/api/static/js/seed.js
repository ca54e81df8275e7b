// A seed of the player's own for the deals, made here in the browser and sent when they sit
// down: the server mixes it with its own, which it committed to before anyone sat, so neither
// side alone chose the cards (docs/audit.md "The seed").

export function newSeed() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

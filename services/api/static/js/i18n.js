// The page's words in the player's language. `t('Hello {name}', { name })` is the English text,
// or its translation from the server's catalogue (services/api/messages.py), with each
// `{placeholder}` filled by name. The English text is the key, so English needs no catalogue.
//
// The language is the player's pick in Options (kept in this browser), else the first of the
// browser's languages the page offers, else English. The server offers a language only when the
// whole page is translated into it, so a player never sees a page half in one language.
//
// The catalogue is fetched here, at the module's top level: every module that imports t()
// waits for it, so even words made when a module loads are in the player's language. A new
// pick reloads the page.

const KEY = 'euchre.language';
const ENGLISH = { code: 'en', name: 'English', offered: true };

let words = {};
let plural = {};
let current = 'en';

const fillIn = (said, values) => said.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(values, name) ? String(values[name]) : whole));

/** `text` (English, placeholders as `{name}`) in the player's language, `values` put in. */
export const t = (text, values = {}) => fillIn(words[text] || text, values);

/** t() for words said differently by count: `one` and `other` are the English singular and
 * plural, `n` picks the language's form (French says "0 carte", English "0 cards") and is put
 * in as `{count}` unless `values` gives its own (a number in words, say). */
export function tn(one, other, n, values = {}) {
  const forms = words[one];
  let said = n === 1 ? one : other;
  if (Array.isArray(forms)) {
    const category = new Intl.PluralRules(current).select(n);
    said = forms[plural[category] ?? forms.length - 1];
  }
  return fillIn(said, { count: n, ...values });
}

/** t() for words around elements: a `{name}` whose value is an element (or a list of them) is
 * put in as it is, so the words' order stays the language's own. The parts, for h(). */
export function tParts(text, values = {}) {
  return (words[text] || text).split(/(\{\w+\})/).filter(Boolean).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return name && Object.hasOwn(values, name) ? values[name] : part;
  });
}

/** t() for an English word that means two things ("Left": the bower, or a player gone):
 * `context` tells them apart in the catalogue (gettext's msgctxt). */
export const tc = (context, text, values = {}) => fillIn(words[`${context}\u0004${text}`] || text, values);

/** The language the page is in (a BCP 47 primary tag: `en`, `fr`). */
export const language = () => current;

function picked() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Keep the player's pick and show the page in it. */
export function pickLanguage(code) {
  try {
    localStorage.setItem(KEY, code);
  } catch {
    // storage refused (a private window): the pick lasts for this page only
  }
  location.reload();
}

async function json(path) {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

let known = null;
/** The languages the page offers, English first (asked of the server once a page). */
export function offeredLanguages() {
  known ??= json('/api/messages')
    .then((body) => body.languages.filter((l) => l.offered))
    .catch(() => [ENGLISH]);
  return known;
}

/** The languages wanted, most wanted first: the player's pick, else the browser's. */
function wanted() {
  const mine = picked();
  if (mine) return [mine];
  const browser = navigator.languages?.length ? navigator.languages : [navigator.language || 'en'];
  return browser.map((tag) => tag.toLowerCase().split('-')[0]);
}

async function start() {
  const want = wanted();
  // English first (or picked) needs nothing from the server.
  if (want[0] !== 'en') {
    const offered = await offeredLanguages();
    const code = want.find((c) => offered.some((l) => l.code === c)) ?? 'en';
    if (code !== 'en') {
      try {
        ({ messages: words, plural } = await json(`/api/messages/${encodeURIComponent(code)}`));
        current = code;
      } catch {
        // the catalogue didn't come: the page stays English
      }
    }
  }
  document.documentElement.lang = current;
}

await start();

// A rating's history as a small line chart: inline SVG, with the same story told in words.

import { h } from './dom.js';
import { t } from './i18n.js';

// The plot's own units. It stretches to its box (preserveAspectRatio none), so the line keeps
// its width by vector-effect, and the numbers beside it are HTML, not stretched SVG text.
const W = 600;
const H = 160;
const PAD = 10;

export function ratingChart(history) {
  const values = history.map((point) => point.display);
  const first = values[0];
  const last = values[values.length - 1];
  const high = Math.max(...values);
  const low = Math.min(...values);
  const x = (i) => (values.length === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (values.length - 1));
  const y = (d) => (high === low ? H / 2 : PAD + ((high - d) * (H - 2 * PAD)) / (high - low));
  const points = values.map((d, i) => `${x(i).toFixed(1)},${y(d).toFixed(1)}`).join(' ');
  const guide = (d) => h('line.chart-guide', { x1: 0, x2: W, y1: y(d), y2: y(d), 'vector-effect': 'non-scaling-stroke' });
  const summary = values.length === 1
    ? t('Rating after the first rated game: {first}', { first })
    : t('Rating over the last {count} games: from {first} to {last}', { count: values.length, first, last });
  return h('figure.chart', {},
    h('div.chart-box', {},
      h('svg.chart-plot', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
        guide(high), high === low ? null : guide(low),
        h('polyline.chart-line', { points, 'vector-effect': 'non-scaling-stroke' })),
      h('div.chart-scale', { 'aria-hidden': 'true' }, h('span', {}, String(high)), high === low ? null : h('span', {}, String(low)))),
    h('figcaption', {}, summary));
}

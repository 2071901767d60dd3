// Why an attempt at a drand round got no value, in the page's language (issue #43: the server's
// words are codes the pages translate). The server says it in one fixed English grammar
// (Sources/Beacon/BeaconClient.swift, BeaconValue.swift): the framing and every problem it
// names map to a key; a relay's URL and an HTTP status stay as they are; a transport error the
// list does not know (libcurl's own text) is shown as it came.

import { t } from './i18n.js';

const FRAMES = [
  [/^no relay answered round (\d+) in time \((.*)\)$/, 'beacon.fail.timeout'],
  [/^no relay served a valid round (\d+) \((.*)\)$/, 'beacon.fail.invalid'],
  [/^relays disagree on round (\d+)$/, 'beacon.fail.disagree'],
  [/^no relay configured$/, 'beacon.fail.none'],
];

const PROBLEMS = [
  [/^no answer$/, 'beacon.relay.noAnswer'],
  [/^Timeout was reached$/i, 'beacon.relay.timeout'],
  [/^Could(?:n't| not) connect to server$/i, 'beacon.relay.refused'],
  [/^Could(?:n't| not) resolve host ?name$/i, 'beacon.relay.dns'],
  [/^answer is not a JSON object$/, 'beacon.relay.notJSON'],
  [/^bad field (\w+)$/, 'beacon.relay.badField'],
  [/^answered round (\d+)$/, 'beacon.relay.wrongRound'],
  [/^randomness is not SHA-256\(signature\)$/, 'beacon.relay.randomness'],
  [/^signature does not verify under the chain's public key$/, 'beacon.relay.signature'],
  [/^answer larger than (\d+) bytes$/, 'beacon.relay.tooLarge'],
];

/** One relay's problem ("http://…: HTTP 503"), its URL kept. */
function relayText(part) {
  const at = part.lastIndexOf(': ');
  if (at < 0) return part;
  const relay = part.slice(0, at);
  const problem = part.slice(at + 2);
  if (/^HTTP \d{3}$/.test(problem)) return `${relay}: ${problem}`;
  for (const [pattern, key] of PROBLEMS) {
    const m = pattern.exec(problem);
    if (m) return `${relay}: ${t(key, { n: m[1] ?? '' })}`;
  }
  return part;
}

/** The reason of a `beacon` message (status waiting), said in the page's language. */
export function beaconReasonText(reason) {
  if (typeof reason !== 'string') return '';
  for (const [pattern, key] of FRAMES) {
    const m = pattern.exec(reason);
    if (m) return t(key, { r: m[1] ?? '', relays: (m[2] ?? '').split('; ').map(relayText).join(t('beacon.relay.separator')) });
  }
  return reason;
}

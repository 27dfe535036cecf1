/**
 * Nothing in the page parses a string as HTML (issue 6: "nothing from a delivery is ever
 * interpreted as HTML or script"). A grep over web/src that fails on any HTML sink.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, WEB, webSources } from '../helpers/web-build.js';

const SINKS: Array<[string, RegExp]> = [
  ['innerHTML', /\binnerHTML\b/],
  ['outerHTML', /\bouterHTML\b/],
  ['insertAdjacentHTML', /\binsertAdjacentHTML\b/],
  ['document.write', /\bdocument\s*\.\s*write(ln)?\b/],
  ['srcdoc', /\bsrcdoc\b/],
  ['createContextualFragment', /\bcreateContextualFragment\b/],
  ['DOMParser', /\bDOMParser\b/],
  ['setHTMLUnsafe', /\bsetHTMLUnsafe\b|\bparseHTMLUnsafe\b/],
  ['eval', /\beval\s*\(/],
  ['new Function', /\bnew\s+Function\s*\(/],
  ['string timers', /\bset(Timeout|Interval)\s*\(\s*['"`]/],
  ['inline handlers', /\.on[a-z]+\s*=\s*['"`]/],
  ['style attribute', /setAttribute\(\s*['"]style['"]/],
];

describe('web/src', () => {
  const files = webSources().filter((f) => /\.(ts|html)$/.test(f));

  it('has sources to check', () => {
    expect(files.map((f) => relative(WEB, f))).toEqual(expect.arrayContaining(['src/main.ts', 'src/dom.ts', 'index.html']));
  });

  it.each(SINKS)('never uses %s', (_name, pattern) => {
    const offenders = files.filter((file) => pattern.test(readFileSync(file, 'utf8'))).map((file) => relative(REPO, file));
    expect(offenders).toEqual([]);
  });

  it('index.html has no inline script or style', () => {
    const html = readFileSync(`${WEB}/index.html`, 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('the grep would catch a sink', () => {
    expect(SINKS.find(([name]) => name === 'innerHTML')![1].test('node.innerHTML = data')).toBe(true);
  });
});

/**
 * The accessibility audit every page test runs: axe-core (from npm, evaluated inside the page:
 * `page.evaluate` is not bound by the page's strict CSP, a script tag would be) with its WCAG
 * 2 A/AA and best-practice rules, any violation failing the test; then a small audit of our own: every
 * visible control has an accessible name, every form field a label, the document a language
 * and one h1, and visible text has a contrast of at least 4.5:1 (3:1 for large text) against
 * its nearest opaque background, computed from the rendered styles (WCAG 2 formula).
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's violations as one line each: rule, impact, what it means, where. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.map(
    (v) =>
      `axe ${v.id} (${v.impact}): ${v.help} at ${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 5)
        .join(', ')}`,
  );
}

export async function accessibilityIssues(page: Page): Promise<string[]> {
  return [...(await axeViolations(page)), ...(await ownAudit(page))];
}

async function ownAudit(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const issues: string[] = [];
    const visible = (el: Element) => {
      const box = (el as HTMLElement).getBoundingClientRect();
      const style = getComputedStyle(el);
      return (
        box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && !(el as HTMLElement).closest('[hidden]')
      );
    };
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${(el as HTMLElement).dataset?.code ? `[${(el as HTMLElement).dataset.code}]` : ''}`;

    if (!document.documentElement.lang) issues.push('html has no lang');
    if (document.querySelectorAll('h1').length !== 1)
      issues.push(`${document.querySelectorAll('h1').length} h1 elements`);

    for (const el of Array.from(document.querySelectorAll('a, button, summary'))) {
      if (!visible(el)) continue;
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
      if (!name) issues.push(`${describe(el)} has no accessible name`);
    }
    for (const el of Array.from(document.querySelectorAll('input:not([type="hidden"]), select, textarea'))) {
      const id = el.id;
      const labelled =
        el.getAttribute('aria-label') || (id && document.querySelector(`label[for="${id}"]`)) || el.closest('label');
      if (!labelled) issues.push(`${describe(el)} has no label`);
    }

    const channel = (v: number) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    const parse = (color: string) => {
      const m = color.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
      return m ? { r: +m[1]!, g: +m[2]!, b: +m[3]!, a: m[4] === undefined ? 1 : +m[4] } : null;
    };
    const luminance = (c: { r: number; g: number; b: number }) =>
      0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
    const background = (el: Element | null): { r: number; g: number; b: number } | null => {
      for (let node = el; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.backgroundImage !== 'none') return null; // patterned (taken seats): judged by eye
        const bg = parse(style.backgroundColor);
        if (bg && bg.a >= 0.99) return bg;
      }
      return { r: 255, g: 255, b: 255 };
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set<Element>();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || seen.has(el) || !node.textContent?.trim() || !visible(el)) continue;
      seen.add(el);
      const style = getComputedStyle(el);
      if (el.closest('button:disabled, .visually-hidden, .skip-link')) continue;
      const fg = parse(style.color);
      const bg = background(el);
      if (!fg || !bg) continue;
      const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a) as [number, number];
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        issues.push(`${describe(el)} "${node.textContent.trim().slice(0, 30)}" contrast ${ratio.toFixed(2)}`);
    }
    return issues;
  });
}

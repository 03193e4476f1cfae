/**
 * "Check my place" (/fairness): a form (showtime number, receipt) that works without script,
 * answered on the server with the verifier everyone else runs (lib/fairness-verify.ts). The
 * verdict and each check are said in words, never by colour alone.
 */
import type { Check, Verification } from '../../../lib/fairness-verify';
import type { Locale } from '../../../lib/i18n/locale';
import { translator, type MessageKey } from '../../../lib/i18n/translate';
import { html, layout, type Html } from './html';

export type CheckOutcome =
  | { kind: 'form' }
  | { kind: 'cannot'; reason: 'notEnded' | 'unknownShowtime' | 'noShowtime' | 'unavailable' | 'badLog' }
  | { kind: 'result'; result: Verification };

export interface FairnessForm {
  showtime: string;
  receipt: string;
}

function checkItem(t: ReturnType<typeof translator>, check: Check): Html {
  return html`<li class="${check.ok ? 'check-ok' : 'check-bad'}"><strong>${check.ok ? t('fairness.passed') : t('fairness.notPassed')}:</strong> ${t(`fairness.check.${check.id}` as MessageKey)}</li>`;
}

function resultPanel(t: ReturnType<typeof translator>, result: Verification): Html {
  const r = result.receipt;
  return html`<section class="panel" aria-labelledby="fairness-verdict">
  <h2 id="fairness-verdict" tabindex="-1" data-verdict="${result.verdict}">${result.verdict === 'verified' ? t('fairness.verified') : t('fairness.failed')}</h2>
  <ul id="fairness-checks" class="checks">${result.checks.map((check) => checkItem(t, check))}</ul>
  <p id="fairness-counts">${t('fairness.counts', { n: result.entries, admitted: result.admitted })}
  ${t('fairness.inversions', { n: result.inversions })}</p>
  ${
    r
      ? html`<p id="fairness-mine">${r.claims.stage === 'prequeue' ? t('fairness.yourPrequeue') : t('fairness.yourPlace', { rank: r.claims.rank })}
  ${r.admitted ? t('fairness.admitted') : t('fairness.notAdmitted')}
  ${r.overtakenBy > 0 ? t('fairness.overtaken', { n: r.overtakenBy }) : ''}</p>`
      : ''
  }
  <p class="mono" lang="en">${result.summary}</p>
</section>`;
}

export function fairnessPage(page: { locale: Locale; path: string }, form: FairnessForm, outcome: CheckOutcome): Html {
  const t = translator(page.locale);
  return layout(
    { title: `${t('fairness.title')} · ${t('site.name')}`, locale: page.locale, languageSwitch: page.path },
    html`<h1>${t('fairness.title')}</h1>
<p>${t('fairness.intro')}</p>
${outcome.kind === 'cannot' ? html`<p id="fairness-alert" class="alert" role="alert" tabindex="-1">${t('fairness.cannot')} ${t(`fairness.${outcome.reason}`)}</p>` : ''}
${outcome.kind === 'result' ? resultPanel(t, outcome.result) : ''}
<form class="panel" method="post" action="/fairness">
  <label for="showtime">${t('fairness.showtime')}</label>
  <input id="showtime" name="showtime" inputmode="numeric" autocomplete="off" value="${form.showtime}">
  <label for="receipt">${t('fairness.receipt')}</label>
  <p id="receipt-hint" class="muted">${t('fairness.receiptHint')}</p>
  <textarea id="receipt" name="receipt" rows="4" aria-describedby="receipt-hint" spellcheck="false">${form.receipt}</textarea>
  <p><button type="submit" class="button primary">${t('fairness.submit')}</button></p>
</form>
<p class="muted">${t('fairness.limits')}</p>
<p><a href="/">${t('page.allShowtimes')}</a></p>`,
  );
}

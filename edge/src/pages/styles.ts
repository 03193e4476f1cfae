/**
 * styles.css: one small stylesheet for every page. System fonts only (no external fonts),
 * text contrast of at least 4.5:1 on its background, focus always visible, a layout that
 * works from 320 px phones up, and seat types told apart by shape and pattern as well as
 * colour (couple seats are wide, wheelchair spaces are square with a thick border).
 */
export const styles = String.raw`
:root { --ink: #1b1b1f; --muted: #4a4a55; --paper: #ffffff; --wash: #f3f2f7; --brand: #5b1fa8; --brand-ink: #ffffff;
  --ok: #0b6b3a; --warn: #8a4b00; --bad: #a1152b; --line: #c9c7d3; --focus: #ffbf47;
  --seat: #2f6fb3; --couple: #a03a7a; --access: #0b6b3a; --taken: #8d8c96; --chosen: #f0b400; }
* { box-sizing: border-box; }
/* An author rule such as .button { display: inline-block } must never beat [hidden]. */
[hidden] { display: none !important; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; line-height: 1.5; color: var(--ink); background: var(--wash); }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; }
main { flex: 1; width: 100%; max-width: 60rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.3rem; margin: 0 0 0.75rem; }
h2:focus { outline: none; }
a { color: var(--brand); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 5px var(--ink); }
.skip-link { position: absolute; left: -999px; top: 0; background: var(--ink); color: #fff; padding: 0.5rem 1rem; z-index: 10; }
.skip-link:focus { left: 0.5rem; top: 0.5rem; }
.site-header { background: var(--brand); color: var(--brand-ink); padding: 0.75rem 1rem; display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; }
.site-header .brand { color: var(--brand-ink); font-weight: 700; font-size: 1.15rem; text-decoration: none; }
.site-header .area { opacity: 0.95; }
.site-header .header-link, .language-switch a { color: var(--brand-ink); }
.site-header .header-link { margin-left: auto; }
.language-switch { display: inline-flex; gap: 0.75rem; }
.site-header form { margin-left: auto; }
.site-footer { color: var(--muted); font-size: 0.9rem; text-align: center; padding: 1rem; }
.panel { background: var(--paper); border: 1px solid var(--line); border-radius: 0.5rem; padding: 1rem 1.25rem; margin: 0 0 1rem; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.muted { color: var(--muted); font-size: 0.95rem; }
.note { background: #fff4e0; color: var(--warn); border-left: 4px solid var(--warn); padding: 0.5rem 0.75rem; }
.alert { background: #fdecee; color: var(--bad); border: 2px solid var(--bad); border-radius: 0.5rem; padding: 0.75rem 1rem; font-weight: 600; }
.button { display: inline-block; font: inherit; font-weight: 600; padding: 0.6rem 1.1rem; min-height: 2.75rem; border-radius: 0.4rem;
  border: 2px solid var(--brand); background: var(--paper); color: var(--brand); cursor: pointer; text-decoration: none; }
.button.small { min-height: 2.25rem; padding: 0.3rem 0.8rem; }
.button.primary { background: var(--brand); color: var(--brand-ink); }
.button.danger { border-color: var(--bad); color: var(--bad); }
.button:disabled { opacity: 0.55; cursor: not-allowed; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; }
.cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 0.5rem; padding: 1rem; }
.card h2 { font-size: 1.2rem; }
.badge { display: inline-block; padding: 0.1rem 0.55rem; border-radius: 1rem; font-size: 0.9rem; font-weight: 600; background: #e7e4f0; color: var(--ink); }
.badge-on_sale, .badge-open { background: #d9f2e3; color: var(--ok); }
.badge-opening_soon, .badge-scheduled, .badge-opening { background: #fff0d1; color: var(--warn); }
.badge-sold_out, .badge-closed, .badge-paused { background: #fbe0e4; color: var(--bad); }
.countdown { font-size: 1.2rem; font-weight: 600; }
.position strong { font-size: 2rem; }
progress { width: 100%; height: 1.25rem; accent-color: var(--brand); }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; }
.legend li { display: flex; align-items: center; gap: 0.4rem; }
.swatch { display: inline-block; width: 1.2rem; height: 1.2rem; border-radius: 0.25rem; border: 2px solid transparent; }
.screen { text-align: center; background: #d8d6e0; color: var(--ink); border-radius: 0 0 50% 50% / 0 0 100% 100%; padding: 0.2rem; margin: 0.5rem auto 1rem; max-width: 30rem; font-size: 0.85rem; letter-spacing: 0.3em; text-transform: uppercase; }
.seat-scroll { overflow-x: auto; padding: 0.25rem; container-type: inline-size; }
.seat-grid { display: grid; gap: 0.3rem; justify-content: center; min-width: min-content; }
.seat-row { display: grid; grid-template-columns: 1.6rem repeat(var(--columns, 15), 2.1rem); gap: 0.25rem; align-items: center; }
/* The sticky label hides what scrolls under it, its gap and the box's padding included. */
.row-label { font-weight: 700; text-align: center; color: var(--muted); position: sticky; left: 0; z-index: 2; background: var(--paper);
  box-shadow: -0.3rem 0 0 var(--paper), 0.3rem 0 0 var(--paper); }
.scroll-hint { color: var(--muted); font-size: 0.9rem; }
.seat-mine { border-style: dashed; }
.check { display: flex; gap: 0.5rem; align-items: center; }
.check input { width: auto; }
.check label { font-weight: 400; display: inline; }
.seat { width: 2.1rem; height: 2.1rem; padding: 0; font: inherit; font-size: 0.75rem; font-weight: 600; border-radius: 0.45rem 0.45rem 0.2rem 0.2rem;
  border: 2px solid var(--seat); background: #e3eefa; color: var(--ink); cursor: pointer; }
.seat-standard { border-color: var(--seat); background: #e3eefa; }
.seat-couple { border-color: var(--couple); background: #f7e4f0; border-radius: 0.9rem 0.9rem 0.2rem 0.2rem; }
.seat-accessible { border-color: var(--access); background: #dff3e7; border-width: 3px; border-radius: 0.2rem; }
.seat-held, .seat-booked, .seat-taken { background: repeating-linear-gradient(45deg, #e4e3e8, #e4e3e8 3px, #cfced6 3px, #cfced6 6px); border-color: var(--taken); color: #4a4a55; cursor: not-allowed; text-decoration: line-through; }
.seat-selected { background: var(--chosen); border-color: var(--ink); color: var(--ink); }
/* Seats held for this buyer (best seats picked for them): their choice, not someone else's. */
.seat-held.seat-mine { background: var(--chosen); border-color: var(--ink); color: var(--ink); text-decoration: none; cursor: default; }
.best, .best-review { border: 1px solid var(--taken); border-radius: 0.5rem; padding: 0.5rem 0.75rem; margin: 0.5rem 0; }
.best h3, .best-review h3 { margin-top: 0.2rem; }
.best label { font-weight: 400; }
.best input[type=checkbox] { width: auto; }
.aisle { width: 2.1rem; }
.reference { font-size: 1.6rem; letter-spacing: 0.08em; }
.summary { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
.summary dt { font-weight: 600; }
.summary dd { margin: 0; }
.bookings { padding-left: 1.2rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.table-scroll { overflow-x: auto; }
/* Flex, not a grid: the last row's tiles widen to fill it, so no tile sits alone in a corner. */
.tiles { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 0; }
.tile { flex: 1 1 10.5rem; background: var(--paper); border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.6rem 0.75rem; }
.tile dt { font-size: 0.9rem; color: var(--muted); }
.tile dd { margin: 0; font-size: 1.6rem; font-weight: 700; }
.spark { width: 100%; height: 2.2rem; display: block; }
.spark polyline { fill: none; stroke: var(--brand); stroke-width: 2; }
.spark .axis-line { stroke: var(--muted); stroke-width: 1; vector-effect: non-scaling-stroke; }
.spark polyline { vector-effect: non-scaling-stroke; }
.tile .axis { font-size: 0.8rem; font-weight: 400; color: var(--muted); }
.form-grid { display: grid; gap: 0.75rem; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); align-items: end; }
label { display: block; font-weight: 600; }
input, select { font: inherit; padding: 0.45rem 0.5rem; border: 2px solid var(--muted); border-radius: 0.3rem; width: 100%; background: #fff; color: var(--ink); }
dialog { border: 2px solid var(--ink); border-radius: 0.5rem; padding: 1.25rem; max-width: 28rem; }
dialog::backdrop { background: rgba(0, 0, 0, 0.45); }
.live { font-weight: 600; color: var(--ok); }
.live.down { color: var(--bad); }
textarea { font: inherit; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; padding: 0.45rem 0.5rem; border: 2px solid var(--muted); border-radius: 0.3rem; width: 100%; box-sizing: border-box; }
.checks { padding-left: 1.25rem; }
.check-bad { color: var(--bad); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
@media (max-width: 40rem) {
  main { padding: 0.6rem; }
  .panel { padding: 0.75rem; }
  h1 { font-size: 1.4rem; }
  /* A whole row of up to 15 seats fits a 390 px phone: the map takes the screen's full width
     and each seat shares it, never below 24 px (the smallest comfortable target); wider halls scroll. */
  .seat-scroll { margin-inline: calc(-0.6rem - 0.75rem - 1px); padding-inline: 0; }
  .seat-row { --label: 14px; --gap: 1px;
    --seat: max(24px, min(2.1rem, calc((100cqw - var(--label) - var(--columns, 15) * var(--gap)) / var(--columns, 15))));
    grid-template-columns: var(--label) repeat(var(--columns, 15), var(--seat)); gap: var(--gap); }
  .row-label { font-size: 0.75rem; box-shadow: 0.1rem 0 0 var(--paper); }
  .seat, .aisle { width: var(--seat); height: 1.9rem; font-size: 0.62rem; border-width: 1.5px; }
}
@media (prefers-reduced-motion: reduce) { * { transition: none !important; animation: none !important; } }
`;

@_spi(Engine) import ViewLog

/// The inspector (`GET /`): one page of HTML, CSS and JavaScript, shipped in the binary — no build step, no npm.
/// It uses only the JSON API (`docs/serve.md`), and never loads the whole log or the whole view: the log in pages of
/// 50 transactions, a view in windows of 100 rows, a change set drawn 200 rows at a time, live mode as a windowed
/// `watch` over a WebSocket. The schema's relationships are written into the page (`<meta name="relationships">`)
/// so that it can draw a relationship's id as a link to the object it names.
enum InspectorPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ViewLog inspector</title>
<meta name="relationships" content="__RELATIONSHIPS__">
<style nonce="__NONCE__">
#diff-panel { margin-top: 12px; }
:root { --bg: #fafafa; --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --accent: #0a66c2;
        --insert: #d8f5dd; --delete: #fbdcdc; --move: #dbe9fb; --update: #fdf3c9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 16px; padding: 10px 16px; border-bottom: 1px solid var(--line); background: #fff; }
header h1 { font-size: 16px; margin: 0; }
header .meta { color: var(--muted); }
main { display: grid; grid-template-columns: minmax(320px, 30%) 1fr; gap: 12px; padding: 12px 16px; }
section.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
h2 { font-size: 14px; margin: 0 0 8px; }
.row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 6px; }
input[type=text], input[type=number], select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; }
input[type=text] { min-width: 160px; flex: 1; }
input[type=number] { width: 90px; }
button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 4px; background: #f5f5f7; cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
#slider { flex: 1; min-width: 200px; }
#position-bar { position: sticky; top: 0; z-index: 2; display: flex; gap: 10px; align-items: center; padding: 8px 16px; background: #fff; border-bottom: 1px solid var(--line); }
#view-table { max-height: 44vh; overflow: auto; border-top: 1px solid #eee; }
#diff-box { max-height: 22vh; overflow: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eee; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 240px; }
th { color: var(--muted); font-weight: 600; }
tr.section td { background: #f0f0f3; font-weight: 600; }
.null { color: var(--muted); font-style: italic; }
.log-entry { border-bottom: 1px solid #eee; padding: 4px 2px; cursor: pointer; }
.log-entry:hover { background: #f5f8fc; }
.log-entry.current { background: #e8f0fb; }
.log-entry .head { display: flex; gap: 8px; }
.log-entry .seq { font-weight: 600; min-width: 56px; }
.log-entry .author { color: var(--accent); }
.log-entry .time { color: var(--muted); }
.log-entry .change { color: var(--muted); font-family: ui-monospace, monospace; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.badge { display: inline-block; min-width: 52px; text-align: center; border-radius: 4px; padding: 0 6px; font-size: 12px; font-weight: 600; }
.badge.insert, tr.insert td { background: var(--insert); }
.badge.delete, tr.delete td { background: var(--delete); }
.badge.move, tr.move td { background: var(--move); }
.badge.update, tr.update td { background: var(--update); }
td.changed { outline: 2px solid #e0a800; outline-offset: -2px; }
tr.flash td { animation: flash 1.6s ease-out; }
@keyframes flash { from { background: #ffe27a; } to { background: transparent; } }
#error { color: #b00020; white-space: pre-wrap; }
.muted { color: var(--muted); }
.legend span { margin-right: 8px; }
#live-state.on { color: #0a7d28; font-weight: 600; }
.log-entry.target { outline: 2px solid var(--accent); outline-offset: -2px; }
th.path { font-style: italic; }
a.rel { color: var(--accent); }
#object-panel { margin-top: 12px; }
#object-table th { width: 30%; }
</style>
</head>
<body>
<header>
  <h1>ViewLog inspector</h1>
  <span class="meta" id="store-meta">…</span>
  <span id="error" role="alert"></span>
</header>
<div id="position-bar">
  <label for="slider">Position</label>
  <input id="slider" type="range" min="0" max="0" value="0">
  <input id="position" type="number" min="0" value="0" aria-label="position">
  <span class="muted">of <span id="head">0</span></span>
  <label><input id="live" type="checkbox"> live</label>
  <span id="live-state" class="muted"></span>
</div>
<main>
  <section class="panel" id="log-panel">
    <h2>Log</h2>
    <div class="row">
      <button id="log-newest">newest</button>
      <button id="log-newer">newer</button>
      <button id="log-older">older</button>
      <span class="muted" id="log-range"></span>
    </div>
    <div class="row">
      <input id="search-author" type="text" placeholder="author" aria-label="author">
      <input id="search-entity" type="text" placeholder="entity" aria-label="search entity">
      <input id="search-id" type="text" placeholder="id" aria-label="search id">
    </div>
    <div class="row">
      <button id="search">search</button>
      <button id="search-older" disabled>older matches</button>
      <button id="search-clear">clear</button>
      <input id="jump-seq" type="number" min="1" placeholder="seq" aria-label="jump to seq">
      <button id="jump">go to seq</button>
    </div>
    <div id="log"></div>
  </section>
  <div>
    <section class="panel" id="view-panel">
      <h2>View</h2>
      <div class="row">
        <select id="view-name" aria-label="named view"><option value="">(ad hoc)</option></select>
        <input id="entity" type="text" placeholder="entity" aria-label="entity">
        <input id="where" type="text" placeholder="where, e.g. height > 170" aria-label="where">
      </div>
      <div class="row">
        <input id="sort" type="text" placeholder="sort, e.g. sectionName, name" aria-label="sort">
        <input id="section" type="text" placeholder="section key" aria-label="section">
        <input id="include" type="text" placeholder="include, e.g. department.name" aria-label="include">
        <button id="show">show</button>
      </div>
      <div class="row">
        <button id="window-prev">◀ rows</button>
        <button id="window-next">rows ▶</button>
        <span class="muted" id="window-range"></span>
      </div>
      <div id="view-table"></div>
    </section>
    <section class="panel" id="diff-panel">
      <h2>Change set</h2>
      <div class="row">
        <label>from <input id="diff-from" type="number" min="0" value="0"></label>
        <label>to <input id="diff-to" type="number" min="0" value="0"></label>
        <button id="diff">diff</button>
        <span class="legend muted"><span class="badge insert">insert</span><span class="badge delete">delete</span><span class="badge move">move</span><span class="badge update">update</span></span>
      </div>
      <div id="diff-summary" class="muted"></div>
      <div class="row">
        <button id="diff-prev" disabled>◀ changes</button>
        <button id="diff-next" disabled>changes ▶</button>
        <span class="muted" id="diff-range"></span>
      </div>
      <div id="diff-box"><table id="diff-table"></table></div>
    </section>
    <section class="panel" id="object-panel">
      <h2>Object</h2>
      <div id="object-title" class="muted">click a related object's id in the view</div>
      <table id="object-table"></table>
    </section>
  </div>
</main>
<script nonce="__NONCE__">
"use strict";
// Everything comes from the server's JSON API (docs/serve.md): nothing loads the whole log or the whole view —
// the log in pages, a view in windows of WINDOW rows — and nothing draws more than DIFF_PAGE rows of a change set.
const WINDOW = 100, LOG_PAGE = 50, DIFF_PAGE = 200, SCAN_PAGE = 1000, SCAN_MAX = 10000;
const $ = (id) => document.getElementById(id);
// Each entity's relationships and the entity each names (the server writes them into the page).
const RELATIONSHIPS = JSON.parse(document.querySelector("meta[name=relationships]").content);
const state = { head: 0, position: 0, views: {}, offset: 0, logFrom: null, live: null, lastDiff: null, diffPage: 0,
                search: null, target: null };

// Each panel numbers its requests: an answer to any but the panel's latest is dropped (`Stale`), so an answer
// that arrives late never overwrites a newer one.
class Stale extends Error {}
const latest = {};
function supersede(panel) { latest[panel] = (latest[panel] || 0) + 1; return latest[panel]; }
async function api(path, panel) {
  const n = panel ? supersede(panel) : 0;
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (panel && latest[panel] !== n) throw new Stale();
  if (!response.ok) throw new Error(body.error ? `${body.error.code}: ${body.error.message}` : response.statusText);
  return body;
}
function showError(e) { if (!(e instanceof Stale)) $("error").textContent = e ? String(e.message || e) : ""; }
function text(v) { return v === null || v === undefined ? "null" : typeof v === "string" ? v : JSON.stringify(v); }
function cell(tag, value, cls) {
  const el = document.createElement(tag);
  el.textContent = text(value);
  if (value === null) el.className = "null";
  if (cls) el.classList.add(cls);
  return el;
}
/// A value of `entity`'s `key`: a relationship's ids are links to the objects they name.
function valueCell(entity, key, value, cls) {
  const target = (RELATIONSHIPS[entity] || {})[key];
  if (!target || value === null || value === undefined) return cell("td", value, cls);
  const td = document.createElement("td");
  if (cls) td.classList.add(cls);
  for (const id of Array.isArray(value) ? value : [value]) {
    if (td.childNodes.length) td.append(", ");
    const a = cell("a", id, "rel");
    a.href = "#";
    a.dataset.entity = target;
    a.dataset.id = JSON.stringify(id);
    td.append(a);
  }
  return td;
}

/// The view parameters of the form: a named view or entity/where/sort/section/include.
function viewParams() {
  const p = new URLSearchParams();
  const name = $("view-name").value;
  if (name) { p.set("view", name); return p; }
  for (const key of ["entity", "where", "sort", "section", "include"]) { const v = $(key).value.trim(); if (v) p.set(key, v); }
  return p;
}
function viewEntity() {
  const v = state.views[$("view-name").value];
  return v ? v.entity : $("entity").value.trim();
}

async function loadStats() {
  const stats = await api("/v1/stats");
  setHead(stats.head);
  $("store-meta").textContent = `${stats.objects} objects · ${Object.entries(stats.entities).map(([k, v]) => `${k} ${v}`).join(", ")}`;
}
function setHead(head) {
  state.head = head;
  $("head").textContent = head;
  $("slider").max = head;
  $("position").max = head;
}

async function loadViews() {
  const { views } = await api("/v1/views");
  for (const v of views) {
    state.views[v.name] = v;
    const option = document.createElement("option");
    option.value = v.name;
    option.textContent = v.name;
    $("view-name").append(option);
  }
  if (views.length) { $("view-name").value = views[0].name; fillFromNamed(); }
}
function fillFromNamed() {
  const v = state.views[$("view-name").value];
  for (const key of ["entity", "where", "sort", "section", "include"]) { $(key).value = v ? (v[key] || "") : $(key).value; $(key).disabled = !!v; }
}

// The log: pages of LOG_PAGE transactions; `logFrom` is the page's from (null: the newest page).
async function loadLog() {
  const from = state.logFrom === null ? Math.max(0, state.head - LOG_PAGE) : state.logFrom;
  const page = await api(`/v1/log?from=${from}&limit=${LOG_PAGE}`, "log");
  state.search = null;
  renderLog(page.transactions);
  const last = page.transactions.length ? page.transactions[page.transactions.length - 1].seq : from;
  $("log-range").textContent = page.transactions.length ? `${from + 1}…${last}` : "empty";
  $("log-newer").disabled = last >= state.head;
  $("log-older").disabled = from === 0;
  $("search-older").disabled = true;
}
function renderLog(transactions) {
  const log = $("log");
  log.replaceChildren();
  for (const t of transactions.slice().reverse()) {
    const entry = document.createElement("div");
    entry.className = "log-entry" + (t.seq === state.position ? " current" : "") + (t.seq === state.target ? " target" : "");
    entry.dataset.seq = t.seq;
    const head = document.createElement("div");
    head.className = "head";
    head.append(cell("span", `#${t.seq}`, "seq"), cell("span", t.author, "author"), cell("span", t.time, "time"));
    entry.append(head);
    for (const c of t.changes.slice(0, 3)) {
      const line = c.op === "schema" ? "schema updated" : `${c.op} ${c.entity} ${text(c.id)} ${c.values ? JSON.stringify(c.values) : ""}`;
      entry.append(cell("div", line, "change"));
    }
    if (t.changes.length > 3) entry.append(cell("div", `… ${t.changes.length - 3} more changes`, "change"));
    entry.addEventListener("click", () => { showDiff(t.seq - 1, t.seq).then(() => setPosition(t.seq, { quiet: true })).catch(showError); });
    log.append(entry);
  }
  const target = log.querySelector(".target");
  if (target) target.scrollIntoView({ block: "nearest" });
}

// Search: the log endpoint takes no filter (DESIGN §12), so the page reads the log newest first in pages of
// SCAN_PAGE transactions and keeps those that match, at most LOG_PAGE matches and SCAN_MAX transactions a step;
// "older matches" goes on from where the step stopped.
function searchFilter() {
  const f = { author: $("search-author").value.trim(), entity: $("search-entity").value.trim(), id: $("search-id").value.trim() };
  return f.author || f.entity || f.id ? f : null;
}
function matches(t, f) {
  if (f.author && t.author !== f.author) return false;
  return !f.entity && !f.id || t.changes.some((c) => (!f.entity || c.entity === f.entity) && (!f.id || text(c.id) === f.id));
}
async function searchLog(older) {
  const f = searchFilter();
  if (!f) { state.logFrom = null; return loadLog(); }
  let to = older && state.search ? state.search.to : state.head;
  const end = to;
  let found = [];
  while (to > 0 && end - to < SCAN_MAX && found.length < LOG_PAGE) {
    const from = Math.max(0, to - SCAN_PAGE);
    const page = await api(`/v1/log?from=${from}&to=${to}&limit=${SCAN_PAGE}`, "log");
    found = page.transactions.filter((t) => matches(t, f)).concat(found);
    to = from;
    if (found.length > LOG_PAGE) { found = found.slice(-LOG_PAGE); to = found[0].seq - 1; }
  }
  state.search = { to };
  renderLog(found);
  const what = [f.author && `by ${f.author}`, f.entity, f.id && `id ${f.id}`].filter(Boolean).join(" ");
  $("log-range").textContent = `${found.length} ${found.length === 1 ? "match" : "matches"} (${what}) in ${to + 1}…${end}`;
  $("log-newer").disabled = true;
  $("log-older").disabled = true;
  $("search-older").disabled = to === 0;
}
function jumpTo(seq) {
  seq = Math.max(1, Math.min(state.head, Number(seq) || 1));
  state.target = seq;
  state.logFrom = Math.max(0, Math.min(seq + Math.floor(LOG_PAGE / 2), state.head) - LOG_PAGE);
  return loadLog();
}

// The view at the position, one window of rows, as a sectioned table: the row's values, then its path values.
async function loadView(highlight) {
  const params = viewParams();
  if (!params.has("view") && !params.has("entity")) return;
  params.set("at", state.position);
  params.set("limit", WINDOW);
  params.set("offset", state.offset);
  renderView(await api("/v1/query?" + params, "view"), highlight);
}
function clearView(message) {
  supersede("view");
  $("view-table").replaceChildren(cell("div", message, "muted"));
  $("window-range").textContent = "";
}
function renderView(doc, highlight) {
  const rows = doc.sections.flatMap((s) => s.rows);
  const columns = [], paths = [];
  for (const r of rows) {
    for (const k of Object.keys(r.values)) if (!columns.includes(k)) columns.push(k);
    for (const k of Object.keys(r.paths || {})) if (!paths.includes(k)) paths.push(k);
  }
  const entity = viewEntity();
  const table = document.createElement("table");
  const header = document.createElement("tr");
  header.append(cell("th", "id"), ...columns.map((c) => cell("th", c)), ...paths.map((p) => cell("th", p, "path")));
  table.append(header);
  const marks = new Map();
  if (highlight) for (const r of highlight.rows) marks.set(JSON.stringify(r.id), r);
  for (const s of doc.sections) {
    if (doc.sections.length > 1 || s.name !== null) {
      const tr = document.createElement("tr");
      tr.className = "section";
      const td = cell("td", s.name === null ? "(null)" : s.name);
      td.colSpan = columns.length + paths.length + 1;
      td.textContent += ` (${s.rows.length} ${s.rows.length === 1 ? "row" : "rows"} in this window)`;
      tr.append(td);
      table.append(tr);
    }
    for (const r of s.rows) {
      const tr = document.createElement("tr");
      tr.dataset.id = JSON.stringify(r.id);
      const mark = marks.get(JSON.stringify(r.id));
      const changed = (c) => mark && (mark.changed || []).includes(c) ? "changed" : null;
      if (mark && mark.type !== "delete") tr.classList.add(mark.type, "flash");
      tr.append(cell("td", r.id));
      for (const c of columns) tr.append(valueCell(entity, c, r.values[c], changed(c)));
      for (const p of paths) tr.append(cell("td", (r.paths || {})[p], changed(p)));
      table.append(tr);
    }
  }
  const box = $("view-table");
  box.replaceChildren(table);
  // The first row the batch touched, in sight (inside the table's box, not by scrolling the page).
  const touched = table.querySelector("tr.insert, tr.move, tr.update");
  if (touched) box.scrollTop = Math.max(0, touched.offsetTop - box.clientHeight / 2);
  $("window-range").textContent = rows.length ? `rows ${state.offset + 1}…${state.offset + rows.length} at position ${doc.position}` : `no rows at position ${doc.position} in this window`;
  $("window-prev").disabled = state.offset === 0;
  $("window-next").disabled = rows.length < WINDOW;
}

// The change set between two positions, as the rows that enter, leave, move and change, DIFF_PAGE rows at a time.
async function showDiff(from, to) {
  if (from < 0) from = 0;
  $("diff-from").value = from;
  $("diff-to").value = to;
  const params = viewParams();
  if (!params.has("view") && !params.has("entity")) return;
  params.set("from", from);
  params.set("to", to);
  params.set("seq", "true");
  clearDiff(`${from} → ${to}: …`);
  renderDiff(await api("/v1/diff?" + params, "diff"));
}
function clearDiff(message) {
  supersede("diff");
  state.lastDiff = null;
  $("diff-summary").textContent = message;
  $("diff-table").replaceChildren();
  $("diff-range").textContent = "";
  $("diff-prev").disabled = $("diff-next").disabled = true;
}
function renderDiff(diff) {
  state.lastDiff = diff;
  state.diffPage = 0;
  const count = (items) => { const n = {}; for (const i of items) n[i.type] = (n[i.type] || 0) + 1; return Object.entries(n); };
  const parts = count(diff.rows).map(([k, n]) => `${n} ${k}`);
  // A few sections by name; more as counts.
  if (diff.sections.length <= 5) for (const s of diff.sections) parts.push(`section ${s.type} ${s.name === null ? "(null)" : s.name}`);
  else for (const [k, n] of count(diff.sections)) parts.push(`${n} section ${k}s`);
  $("diff-summary").textContent = `${diff.from} → ${diff.to}: ` + (parts.length ? parts.join(", ") : "no changes to this view");
  drawDiffPage();
}
function drawDiffPage() {
  const rows = state.lastDiff.rows, start = state.diffPage * DIFF_PAGE, page = rows.slice(start, start + DIFF_PAGE);
  const table = $("diff-table");
  table.replaceChildren();
  const header = document.createElement("tr");
  header.append(cell("th", "change"), cell("th", "id"), cell("th", "from"), cell("th", "to"), cell("th", "changed"), cell("th", "seq"));
  table.append(header);
  for (const r of page) {
    const tr = document.createElement("tr");
    tr.className = r.type;
    tr.dataset.id = JSON.stringify(r.id);
    const badge = document.createElement("td");
    badge.append(cell("span", r.type, "badge"));
    badge.firstChild.classList.add(r.type);
    tr.append(badge, cell("td", r.id), cell("td", r.from ? r.from.join(", ") : ""), cell("td", r.to ? r.to.join(", ") : ""),
              cell("td", (r.changed || []).join(", ")), cell("td", r.seq === undefined ? "" : r.seq));
    table.append(tr);
  }
  $("diff-range").textContent = rows.length > DIFF_PAGE ? `rows ${start + 1}…${start + page.length} of ${rows.length}` : "";
  $("diff-prev").disabled = start === 0;
  $("diff-next").disabled = start + DIFF_PAGE >= rows.length;
  $("diff-box").scrollTop = 0;
}

// An object at the position, and its history: the log searched for its entity and id.
async function showObject(entity, id) {
  $("object-title").textContent = `${entity} ${text(id)} at position ${state.position} (its history: in the log)`;
  $("object-table").replaceChildren();
  $("search-author").value = "";
  $("search-entity").value = entity;
  $("search-id").value = text(id);
  const history = searchLog(false).catch(showError);
  try {
    const doc = await api(`/v1/objects/${encodeURIComponent(entity)}/${encodeURIComponent(text(id))}?at=${state.position}`, "object");
    const rows = Object.entries(doc.values).map(([k, v]) => { const tr = document.createElement("tr"); tr.append(cell("th", k), valueCell(entity, k, v)); return tr; });
    $("object-table").replaceChildren(...rows);
  } catch (e) {
    if (!(e instanceof Stale)) $("object-title").textContent = `${entity} ${text(id)} at position ${state.position}: ${e.message}`;
  }
  await history;
}
function clearObject() {
  supersede("object");
  $("object-title").textContent = "click a related object's id in the view";
  $("object-table").replaceChildren();
}

/// Marks the page as showing `position` (for the browser test: `data-position`, and `data-shown` counts the loads).
function shown(position) {
  document.body.dataset.position = position;
  document.body.dataset.shown = Number(document.body.dataset.shown || 0) + 1;
}

let positionTimer = null;
/// Moves to `p`: what showed the old position is cleared at once (the change set too, unless `quiet`: it was
/// drawn for this move), and the view and log are asked for once the slider rests.
function setPosition(p, { quiet } = {}) {
  p = Math.max(0, Math.min(state.head, Number(p) || 0));
  state.position = p;
  $("slider").value = p;
  $("position").value = p;
  clearView(`loading position ${p}…`);
  clearObject();
  if (!quiet) clearDiff("");
  clearTimeout(positionTimer);
  positionTimer = setTimeout(async () => {
    try {
      showError(null);
      state.logFrom = Math.max(0, Math.min(p + Math.floor(LOG_PAGE / 2), state.head) - LOG_PAGE);
      await Promise.all([loadView(quiet ? state.lastDiff : null), loadLog()]);
      shown(p);
    } catch (e) { showError(e); }
  }, 120);
}
/// Another view was chosen: nothing of the old one stays on screen.
function viewChanged() {
  state.offset = 0;
  clearDiff("");
  setPosition(state.position);
}

// Live: follow `watch` over a WebSocket (the view's window at the head); each batch is drawn and its rows flash.
function startLive() {
  stopLive();
  const params = viewParams();
  params.set("limit", WINDOW);
  params.set("offset", state.offset);
  params.set("seq", "true");
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/watch?${params}`;
  const socket = new WebSocket(url);
  state.live = socket;
  $("live-state").textContent = "connecting…";
  socket.onopen = () => { $("live-state").textContent = "following the head"; $("live-state").className = "on"; };
  socket.onclose = () => { if (state.live === socket) { $("live-state").textContent = "stopped"; $("live-state").className = "muted"; $("live").checked = false; state.live = null; } };
  socket.onmessage = (event) => {
    if (state.live !== socket) return;
    const doc = JSON.parse(event.data);
    if (doc.error) { showError(new Error(`${doc.error.code}: ${doc.error.message}`)); return; }
    if (doc.reload) return;  // a fresh query document follows
    if (doc.sections && doc.position !== undefined && doc.rows === undefined) {
      setHead(Math.max(state.head, doc.position));
      state.position = doc.position;
      $("slider").value = doc.position;
      $("position").value = doc.position;
      supersede("view");
      renderView(doc, null);
      shown(doc.position);
      return;
    }
    // A diff document: the view moved from diff.from to diff.to.
    setHead(Math.max(state.head, doc.to));
    state.position = doc.to;
    $("slider").value = doc.to;
    $("position").value = doc.to;
    supersede("diff");
    renderDiff(doc);
    $("diff-from").value = doc.from;
    $("diff-to").value = doc.to;
    state.logFrom = null;
    Promise.all([loadView(doc), loadLog()]).then(() => shown(doc.to)).catch(showError);
  };
}
function stopLive() {
  if (state.live) { const s = state.live; state.live = null; s.close(); }
  $("live-state").textContent = "";
}

function wire() {
  $("slider").addEventListener("input", (e) => { if ($("live").checked) { $("live").checked = false; stopLive(); } setPosition(e.target.value); });
  $("position").addEventListener("change", (e) => setPosition(e.target.value));
  $("view-name").addEventListener("change", () => { fillFromNamed(); viewChanged(); });
  $("show").addEventListener("click", () => { viewChanged(); if ($("live").checked) startLive(); });
  $("window-prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - WINDOW); loadView().catch(showError); });
  $("window-next").addEventListener("click", () => { state.offset += WINDOW; loadView().catch(showError); });
  // A change set is drawn on the view at its `to` position: the slider goes there.
  $("diff").addEventListener("click", () => { const to = Number($("diff-to").value); showDiff(Number($("diff-from").value), to).then(() => setPosition(to, { quiet: true })).catch(showError); });
  $("diff-prev").addEventListener("click", () => { state.diffPage -= 1; drawDiffPage(); });
  $("diff-next").addEventListener("click", () => { state.diffPage += 1; drawDiffPage(); });
  $("log-newest").addEventListener("click", () => { state.logFrom = null; loadLog().catch(showError); });
  $("log-newer").addEventListener("click", () => { state.logFrom = Math.min(Math.max(0, state.head - LOG_PAGE), (state.logFrom ?? 0) + LOG_PAGE); loadLog().catch(showError); });
  $("log-older").addEventListener("click", () => { const from = state.logFrom === null ? Math.max(0, state.head - LOG_PAGE) : state.logFrom; state.logFrom = Math.max(0, from - LOG_PAGE); loadLog().catch(showError); });
  $("search").addEventListener("click", () => searchLog(false).catch(showError));
  $("search-older").addEventListener("click", () => searchLog(true).catch(showError));
  $("search-clear").addEventListener("click", () => { for (const k of ["author", "entity", "id"]) $(`search-${k}`).value = ""; state.logFrom = null; loadLog().catch(showError); });
  $("jump").addEventListener("click", () => jumpTo($("jump-seq").value).catch(showError));
  $("view-table").addEventListener("click", followLink);
  $("object-table").addEventListener("click", followLink);
  $("live").addEventListener("change", (e) => { if (e.target.checked) startLive(); else stopLive(); });
}
function followLink(e) {
  const a = e.target.closest("a.rel");
  if (!a) return;
  e.preventDefault();
  showObject(a.dataset.entity, JSON.parse(a.dataset.id)).catch(showError);
}

(async () => {
  wire();
  try {
    await Promise.all([loadStats(), loadViews()]);
    setPosition(state.head);
    if (state.head > 0) await showDiff(state.head - 1, state.head);
    document.body.dataset.ready = "true";
  } catch (e) { showError(e); }
})();
</script>
</body>
</html>
"""#
}

extension InspectorPage {
    /// ``html`` cut where each answer puts the schema's relationships, then each half where it puts its nonce.
    static let parts = html.split(separator: "__RELATIONSHIPS__", omittingEmptySubsequences: false).map {
        $0.split(separator: "__NONCE__", omittingEmptySubsequences: false).map(String.init)
    }

    /// The page of one answer (``ViewLogServer/page(relationships:)``): `nonce` on its script and style,
    /// `relationships` in its `<meta name="relationships">`.
    static func page(nonce: String, relationships: String) -> String {
        parts.map { $0.joined(separator: nonce) }.joined(separator: relationships)
    }

    /// Each entity's relationships and the entity each names, `{"Employee": {"department": "Department"}}`, as the
    /// text of an HTML attribute: the page draws a relationship's value as a link to the object it names.
    static func relationships(of schema: Schema) -> String {
        let json = JSONValue.object(schema.entityNames.compactMap { name in
            let relationships = schema.entities[name]?.relationships ?? []
            if relationships.isEmpty { return nil }
            return (name, .object(relationships.map { ($0.name, .string($0.relationship?.target ?? "")) }))
        })
        var escaped = json.text
        for (raw, entity) in [("&", "&amp;"), ("\"", "&quot;"), ("<", "&lt;"), (">", "&gt;")] as [(Character, String)] {
            escaped = escaped.split(separator: raw, omittingEmptySubsequences: false).joined(separator: entity)
        }
        return escaped
    }
}

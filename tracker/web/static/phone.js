// A player's phone: her character as the players know it, a roll form of what her sheet and
// her system let a player give, the GM's request filled in, and the players' feed.
"use strict";

const { el } = Feed;
let me = null;      // the last "me" message
let asked = null;   // the GM's request waiting, or null

// What her roll did, in its outcome's tone as the feed colours it, or why it was refused.
function say(doc) {
  const result = document.getElementById("result");
  if (!doc.ok) {
    result.replaceChildren(el("div", "", doc.error));
    result.className = "result refused";
    return;
  }
  // Drawn afresh, so its fade starts again from full.
  result.className = "result";
  void result.offsetWidth;
  const lines = doc.lines || doc.text.map((text) => ({ text }));
  result.replaceChildren(...lines.map((l) =>
    el("div", "line " + (l.tone || "") + (l.critical ? " critical" : ""), l.text)));
  const tone = lines.map((l) => l.tone).find(Boolean);
  result.className = "result done" + (tone ? " " + tone : "");
}

function field(part) {
  if (part.kind === "bool") {
    const box = el("input"); box.type = "checkbox"; box.name = part.name;
    const wrap = el("label", "flag"); wrap.append(box, el("span", "", part.label)); wrap.title = part.help;
    return wrap;
  }
  const wrap = el("label", "field");
  const make = () => {
    let box;
    if (part.choices) {
      box = el("select"); box.append(el("option", "", ""));
      for (const c of part.choices) { const o = el("option", "", c); o.value = c; box.append(o); }
    } else {
      box = el("input"); box.type = part.kind === "int" ? "number" : "text";
      box.placeholder = part.placeholder || part.metavar || "";
      if (part.limits) { box.min = part.limits[0]; box.max = part.limits[1]; }
    }
    box.name = part.name;
    return box;
  };
  if (part.multiple && part.picks && part.picks.length) return picked(part);
  let field = make();
  if (part.multiple) {
    // Repeatable: one box per value (a label may hold spaces); filling the last adds another.
    const list = el("span", "many");
    const grow = () => {
      const box = make();
      // A choice made in a select may say so by "change" alone.
      const more = () => { if (box === list.lastElementChild && box.value) grow(); };
      box.addEventListener("input", more);
      box.addEventListener("change", more);
      list.append(box);
    };
    grow();
    field = list;
  }
  wrap.append(el("span", "name", part.label), field);
  wrap.title = part.help || "";
  return wrap;
}

// A repeatable option's declared choices (Glintlock's tags) as buttons to tap: each tap adds
// one, shown as a chip that a tap takes off again; nothing to type.
function picked(part) {
  const wrap = el("div", "field picked");
  const chosen = el("span", "many chosen");
  chosen.dataset.name = part.name;
  chosen.add = (value) => {
    const pick = part.picks.find(([v]) => v === value);
    const chip = el("button", "chip", `${pick ? pick[1] : value} \u00d7`); chip.type = "button";
    const hidden = el("input"); hidden.type = "hidden"; hidden.name = part.name; hidden.value = value;
    chip.addEventListener("click", () => { chip.remove(); hidden.remove(); });
    chosen.append(hidden, chip);
  };
  const offer = el("span", "picks");
  for (const [value, words] of part.picks) {
    const b = el("button", "pick", words); b.type = "button"; b.dataset.value = value;
    b.addEventListener("mousedown", (e) => e.preventDefault());   // Enter still rolls
    b.addEventListener("click", () => chosen.add(value));
    offer.append(b);
  }
  wrap.append(el("span", "name", part.label), offer, chosen);
  wrap.title = part.help || "";
  return wrap;
}

// Back to one empty box per repeatable option, and no chip chosen.
function shrink(form) {
  for (const list of form.querySelectorAll(".many")) {
    if (list.classList.contains("chosen")) { list.replaceChildren(); continue; }
    while (list.children.length > 1) list.lastElementChild.remove();
  }
}

// The roll form of her sheet and her system's options, drawn again whenever either changes (a
// trait gained in play, a new tag): what she had filled in stays where its field still is.
function build(state) {
  const form = document.getElementById("roll");
  const key = JSON.stringify([state.traits, state.trait_groups, state.form.options]);
  if (form.dataset.key === key) return;
  const filled = form.dataset.key ? gather(form) : null;
  form.dataset.key = key;
  form.replaceChildren();
  // Her traits, grouped, each with its level: a thumb picks "Lockpicking 12", not a name to
  // remember.
  const trait = el("select"); trait.name = "trait"; trait.required = true;
  const groups = state.trait_groups || [{ group: "", traits: state.traits.map((t) => [t, null]) }];
  for (const g of groups) {
    const holder = g.group ? el("optgroup") : trait;
    if (g.group) { holder.label = g.group; trait.append(holder); }
    for (const [name, level] of g.traits) {
      const o = el("option", "", level === null ? name : `${name} ${level}`); o.value = name;
      holder.append(o);
    }
  }
  const wrap = el("label", "field"); wrap.append(el("span", "name", "trait"), trait);
  const fields = el("div", "fields");
  // What a player gives at most rolls (her dice, modifiers, tags) shows; the rest is behind
  // "more".
  const often = (o) => o.name === "dice" || o.multiple || o.kind === "difficulty";
  fields.append(wrap, ...state.form.options.filter(often).map(field));
  const rare = state.form.options.filter((o) => !often(o));
  if (rare.length) {
    const more = el("details", "more");
    more.append(el("summary", "", "more"));
    const inner = el("div", "fields");
    inner.append(...rare.map(field));
    more.append(inner);
    fields.append(more);
  }
  const row = el("div", "buttons");
  const go = el("button", "primary", "Roll"); go.type = "submit"; row.append(go);
  form.append(fields, row);
  if (filled) refill(form, filled);
}

// What the form holds: the trait, and the options by name (a repeatable one as a list).
function gather(form) {
  const values = {};
  let trait = "";
  for (const f of form.querySelectorAll("input, select")) {
    if (f.name === "trait") { trait = f.value; continue; }
    if (f.type === "checkbox") { if (f.checked) values[f.name] = true; continue; }
    const v = f.value.trim();
    if (f.parentElement.classList.contains("many")) {
      if (v) (values[f.name] = values[f.name] || []).push(v);
      continue;
    }
    if (v) values[f.name] = v;
  }
  return { trait, values };
}

function refill(form, { trait, values }) {
  const select = form.elements.trait;
  if ([...select.options].some((o) => o.value === trait)) select.value = trait;
  for (const [name, value] of Object.entries(values)) {
    const chosen = form.querySelector(`.chosen[data-name="${CSS.escape(name)}"]`);
    if (chosen) { for (const v of value) chosen.add(v); continue; }
    const boxes = form.querySelectorAll(`[name="${CSS.escape(name)}"]`);
    if (!boxes.length) continue;
    if (boxes[0].type === "checkbox") { boxes[0].checked = !!value; continue; }
    const many = boxes[0].parentElement.classList.contains("many");
    for (const [i, v] of (many ? value : [value]).entries()) {
      const box = form.querySelectorAll(`[name="${CSS.escape(name)}"]`)[i];
      if (!box) break;
      box.value = v;
      box.dispatchEvent(new Event("input"));   // a repeatable option grows its next box
    }
  }
}

async function roll(form, once) {
  const { trait, values } = gather(form);
  const doc = await Feed.post("phone/roll", { trait, values }, once);
  say(doc);
  if (doc.ok) {
    // Dice typed in are for one roll only; the trait stays chosen.
    for (const f of form.querySelectorAll("input")) {
      if (f.type === "checkbox") f.checked = false; else f.value = "";
    }
    for (const f of form.querySelectorAll("select")) if (f.name !== "trait") f.value = "";
    shrink(form);
  }
}

// One press, one nonce (every retry of it sends the same); a press while one is on its way is
// that press.
async function press(form, run) {
  if (form.dataset.busy) return;
  form.dataset.busy = "1";
  try { await run(Feed.nonce()); } finally { delete form.dataset.busy; }
}

// Her character is not in the campaign the table is playing now: the page says so and waits;
// the server sends her character again when the table comes back to it.
function away(doc) {
  document.body.classList.add("away");
  document.getElementById("away").hidden = false;
  document.getElementById("away-text").textContent = doc.said;
  document.getElementById("campaign").textContent = doc.campaign;
  document.getElementById("where").textContent = `${doc.character}'s phone`;
  document.title = `${doc.character} · tracker`;
  showAsked(null);
}

function showMe(state) {
  me = state;
  document.body.classList.remove("away");
  document.getElementById("away").hidden = true;
  const c = state.character;
  document.getElementById("campaign").textContent = state.campaign;
  document.getElementById("where").textContent = `${state.system_title} · ${c.name}'s phone`;
  document.title = `${c.name} · tracker`;
  document.getElementById("me-name").textContent = c.name;
  document.getElementById("me-tracks").replaceChildren(Feed.tracks(c));
  document.getElementById("me-conditions").textContent =
    (c.conditions || []).map((x) => x.name).join(", ");
  const sheet = document.getElementById("sheet-list");
  sheet.replaceChildren(...Object.entries({ ...c.stats, ...c.skills }).flatMap(([k, v]) =>
    [el("dt", "", k), el("dd", "", String(v))]));
  build(state);
}

function showAsked(request) {
  asked = request;
  const box = document.getElementById("asked");
  box.hidden = !request;
  if (!request) return;
  document.getElementById("asked-text").textContent =
    `The GM asks: ${request.said}` + (request.secret ? " (a blind roll: the GM sees the result)" : "");
  document.getElementById("answer").elements.dice.focus();
}

// What the last roll said, gone: the table has moved on (a new session, another campaign).
function forget() {
  const result = document.getElementById("result");
  result.replaceChildren();
  result.className = "result";
}

function start() {
  document.getElementById("desk").hidden = false;
  // The forms' listeners are bound once, here: a form drawn again gains none.
  const form = document.getElementById("roll");
  form.addEventListener("submit", (e) => { e.preventDefault(); press(form, (once) => roll(form, once)); });
  // Enter held down repeats: one press is one roll, however long the key is held.
  document.addEventListener("keydown", (e) => { if (e.key === "Enter" && e.repeat) e.preventDefault(); });
  const answer = document.getElementById("answer");
  answer.addEventListener("submit", (e) => {
    e.preventDefault();
    press(answer, async (once) => {
      if (!asked) return;
      const dice = answer.elements.dice.value.trim();
      const doc = await Feed.post("phone/roll", { request: asked.id, values: dice ? { dice } : {} }, once);
      say(doc);
      if (doc.ok) { answer.reset(); showAsked(null); }
    });
  });
  const source = Feed.follow("phone/events", document.getElementById("feed"), false, {
    me: showMe,
    // The campaign's own tracks, as the TV shows them to the table.
    board: (b) => Feed.shared(document.getElementById("shared"), b),
    request: showAsked,
    away,
    // Another campaign, or a new session: what the last one said is gone with it.
    reset: forget,
    session: forget,
  }, true);
  // A feed that keeps failing: if her link was revoked, say so rather than "reconnecting…"
  // for ever above a form that would only be refused.
  source.addEventListener("error", async () => {
    const state = await fetch("phone/state", { credentials: "same-origin" }).catch(() => null);
    if (state && state.status === 403) {
      source.close();
      document.body.classList.add("refused");
      document.getElementById("refused").hidden = false;
    }
  });
}

if (document.body.dataset.view === "refused") {
  document.body.classList.add("refused");
  document.getElementById("refused").hidden = false;
} else {
  start();
}

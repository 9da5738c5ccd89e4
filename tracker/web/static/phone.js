// A player's phone: her character as the players know it, a roll form of what her sheet and
// her system let a player give, the GM's request filled in, and the players' feed.
"use strict";

const { el } = Feed;
let me = null;      // the last "me" message
let asked = null;   // the GM's request waiting, or null

function say(lines, bad) {
  const result = document.getElementById("result");
  result.replaceChildren(...lines.map((l) => el("div", "", l)));
  result.className = bad ? "refused" : "done";
}

function field(part) {
  if (part.kind === "bool") {
    const box = el("input"); box.type = "checkbox"; box.name = part.name;
    const wrap = el("label", "flag"); wrap.append(box, el("span", "", part.flag.replace(/^--/, ""))); wrap.title = part.help;
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
      box.placeholder = part.metavar || "";
    }
    box.name = part.name;
    return box;
  };
  let field = make();
  if (part.multiple) {
    // Repeatable: one box per value (a label may hold spaces); filling the last adds another.
    const list = el("span", "many");
    const grow = () => {
      const box = make();
      box.addEventListener("input", () => { if (box === list.lastElementChild && box.value) grow(); });
      list.append(box);
    };
    grow();
    field = list;
  }
  wrap.append(el("span", "name", part.flag.replace(/^--/, "")), field);
  wrap.title = part.help || "";
  return wrap;
}

// Back to one empty box per repeatable option.
function shrink(form) {
  for (const list of form.querySelectorAll(".many")) {
    while (list.children.length > 1) list.lastElementChild.remove();
  }
}

function build(state) {
  const form = document.getElementById("roll");
  if (form.dataset.built) return;
  form.dataset.built = "1";
  const trait = el("select"); trait.name = "trait"; trait.required = true;
  for (const t of state.traits) { const o = el("option", "", t); o.value = t; trait.append(o); }
  const wrap = el("label", "field"); wrap.append(el("span", "name", "trait"), trait);
  const fields = el("div", "fields");
  fields.append(wrap, ...state.form.options.map(field));
  const row = el("div", "buttons");
  const go = el("button", "primary", "Roll"); go.type = "submit"; row.append(go);
  form.append(fields, row);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
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
    const doc = await Feed.post("/phone/roll", { trait, values });
    say(doc.ok ? doc.text : [doc.error], !doc.ok);
    if (doc.ok) {
      // Dice typed in are for one roll only; the trait stays chosen.
      for (const f of form.querySelectorAll("input")) {
        if (f.type === "checkbox") f.checked = false; else f.value = "";
      }
      for (const f of form.querySelectorAll("select")) if (f.name !== "trait") f.value = "";
      shrink(form);
    }
  });
}

function showMe(state) {
  me = state;
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

function start() {
  document.getElementById("desk").hidden = false;
  document.getElementById("answer").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!asked) return;
    const dice = e.target.elements.dice.value.trim();
    const doc = await Feed.post("/phone/roll", { request: asked.id, values: dice ? { dice } : {} });
    say(doc.ok ? doc.text : [doc.error], !doc.ok);
    if (doc.ok) { e.target.reset(); showAsked(null); }
  });
  Feed.follow("/phone/events", document.getElementById("feed"), false, {
    me: showMe,
    request: showAsked,
  });
}

if (document.body.dataset.view === "refused") {
  document.body.classList.add("refused");
  document.getElementById("refused").hidden = false;
} else {
  start();
}

// The GM's console: forms made from the command declarations the server sends (/gm/state),
// each action a POST to /gm/act; the GM's feed beside them. Keyboard first: focus starts in
// the roll form, Enter rolls, Escape comes back to it.
"use strict";

const { el } = Feed;
let desk = null;          // the last /gm/state
const lists = {};         // datalist id -> values

function datalist(id, values) {
  let dl = document.getElementById(id);
  if (!dl) { dl = el("datalist"); dl.id = id; document.body.append(dl); }
  const key = values.join("\u0000");
  if (lists[id] === key) return id;
  lists[id] = key;
  dl.replaceChildren(...values.map((v) => { const o = el("option"); o.value = v; return o; }));
  return id;
}

function character(name) {
  const wanted = (name || "").trim().toLowerCase();
  return desk.characters.find((c) => c.name.toLowerCase() === wanted);
}

// The values a field's completion offers, given the form it is in.
function offered(complete, form) {
  if (!complete) return null;
  const [what, of] = complete.split(":");
  const other = () => character(form.elements[of || "character"]?.value);
  switch (what) {
    case "characters": return desk.characters.map((c) => c.name);
    case "traits": return other()?.traits || [];
    case "conditions": return other()?.conditions || [];
    case "campaigns": return desk.campaigns;
    case "spend_kinds": return desk.lists.spend_kinds;
    case "difficulties": return desk.lists.difficulties;
    default: return null;
  }
}

function label(text, field, help) {
  const wrap = el("label", "field");
  wrap.append(el("span", "name", text), field);
  if (help) wrap.title = help;
  return wrap;
}

function input(part, form, prefix) {
  if (part.kind === "bool") {
    const box = el("input"); box.type = "checkbox"; box.name = part.name;
    const wrap = el("label", "flag"); wrap.append(box, el("span", "", part.label || part.name));
    wrap.title = part.help || "";
    return wrap;
  }
  const choose = () => {
    const select = el("select"); select.name = part.name;
    if (!part.required || part.multiple) select.append(el("option", "", ""));
    for (const c of part.choices) { const o = el("option", "", c); o.value = c; select.append(o); }
    return select;
  };
  if (part.choices && !part.multiple) {
    const select = choose();
    if (part.default !== null && part.default !== undefined) select.value = String(part.default);
    return label(part.label || part.name, select, part.help);
  }
  const make = () => {
    if (part.choices) return choose();  // repeatable: one choice per box
    const box = el("input"); box.name = part.name;
    box.type = part.kind === "int" ? "number" : "text";
    box.placeholder = part.placeholder || part.metavar || "";
    // A number's declared lowest and highest, as the command line holds it to them.
    if (part.limits) { box.min = part.limits[0]; box.max = part.limits[1]; }
    if (part.required) box.required = true;
    const values = offered(part.complete, form);
    if (values) {
      box.setAttribute("list", datalist(`dl-${prefix}-${part.name}`, values));
      // Traits follow the character chosen: refreshed when the field is entered.
      box.addEventListener("focus", () => datalist(`dl-${prefix}-${part.name}`, offered(part.complete, form)));
    }
    return box;
  };
  if (part.multiple && part.parts && part.parts.length) {
    // Each word it takes in a box of its own, named, from the start (a breaking point's
    // result and consequence).
    const group = el("div", "parts");
    for (const name of part.parts) group.append(label(name, make(), part.help));
    return group;
  }
  if (part.multiple) {
    // Repeatable: one box per value; typing in the last adds another.
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
    const field = label(part.label || part.name, list, part.help);
    if (part.picks && part.picks.length) {
      // The declared choices a tap away (Glintlock's tags): each fills the next empty box.
      const picks = el("span", "picks");
      for (const [value, words] of part.picks) {
        const b = el("button", "pick", words); b.type = "button"; b.tabIndex = -1;
        b.dataset.value = value;
        // Clicked, it leaves the focus where it was: Enter then rolls, not taps it again.
        b.addEventListener("mousedown", (e) => e.preventDefault());
        b.addEventListener("click", () => {
          const box = [...list.children].find((x) => !x.value);
          box.value = value;
          box.dispatchEvent(new Event("input"));
        });
        picks.append(b);
      }
      field.append(picks);
    }
    return field;
  }
  return label(part.label || part.name.replace("_", " "), make(), part.help);
}

// A form for a declaration; ``values`` fills it in.
function build(form, decl, values, buttons) {
  form.replaceChildren();
  form.dataset.path = JSON.stringify(decl.path);
  const prefix = decl.path.join("-");
  if (decl.help) form.append(el("p", "help", decl.help));
  const fields = el("div", "fields");
  // The table's dice come right after what is rolled: one Tab from the trait, not ten.
  const options = [...decl.options].sort((a, b) => (b.name === "dice") - (a.name === "dice"));
  for (const part of [...decl.arguments, ...options]) fields.append(input(part, form, prefix));
  form.append(fields);
  const row = el("div", "buttons");
  for (const [text, cls, type] of buttons) {
    const b = el("button", cls, text); b.type = type || "submit"; row.append(b);
  }
  form.append(row);
  fill(form, values || {});
}

function fill(form, values) {
  for (const [name, value] of Object.entries(values)) {
    const field = form.elements[name];
    if (!field) continue;
    if (field.type === "checkbox") field.checked = !!value; else field.value = value;
  }
}

// What a form holds, by name: repeatable boxes as a list, empty ones left out.
function values(form) {
  const out = {};
  for (const field of form.querySelectorAll("input, select")) {
    if (!field.name) continue;
    const many = field.parentElement.classList.contains("many");
    if (field.type === "checkbox") { if (field.checked) out[field.name] = true; continue; }
    const v = field.value.trim();
    // Words in their places: an empty one stays, so a part left out is not read as the next.
    if (field.closest(".parts")) { (out[field.name] = out[field.name] || []).push(v); continue; }
    if (many) { out[field.name] = out[field.name] || []; if (v) out[field.name].push(v); continue; }
    if (v !== "") out[field.name] = v;
  }
  return out;
}

// What an action did, or why it was refused, in the result line beside its form (``where``):
// each event's line in its outcome's tone, as the feed colours it, with what it moved and why
// the rules kept it secret.
function say(where, doc) {
  const result = document.getElementById(where);
  if (!doc.ok) {
    result.replaceChildren(el("div", "", doc.error));
    result.className = "result refused";
  } else {
    const lines = doc.lines || (doc.text || []).map((text) => ({ text }));
    const shown = lines.length ? lines.map((line) => {
      const div = el("div", "line " + (line.tone || "") + (line.critical ? " critical" : ""), line.text);
      if (line.secret) div.append(el("span", "mark", " · secret"));
      if (line.why && line.why.length) div.append(el("small", "why", line.why.join(" · ")));
      if (line.changes && line.changes.length) div.append(el("small", "moved", line.changes.join(" · ")));
      return div;
    }) : [el("div", "", "Done.")];
    for (const note of doc.notes || []) shown.push(el("div", "note", note));
    result.replaceChildren(...shown);
    // The form's result reads in the tone of the roll it made: a critical failure is not green.
    const tone = lines.map((l) => l.tone).find(Boolean);
    result.className = "result done" + (tone ? " " + tone : "");
  }
  result.scrollIntoView({ block: "nearest" });
}

function clear() {
  for (const result of document.querySelectorAll(".result")) {
    result.replaceChildren();
    result.className = "result";
  }
}

// One press of a form or a button: one nonce, however often the network makes it send again;
// a second press while the first is on its way is the same press.
async function press(holder, run) {
  if (holder.dataset.busy) return;
  holder.dataset.busy = "1";
  try { await run(Feed.nonce()); } finally { delete holder.dataset.busy; }
}

async function act(path, vals, where, once) {
  const doc = await Feed.post("gm/act", { path, values: vals }, once);
  // The table read first: a new session or another campaign clears the old results, not this.
  if (doc.ok) await refresh();
  say(where, doc);
  return doc.ok;
}

function formDecl(path) {
  return desk.forms.find((f) => JSON.stringify(f.path) === JSON.stringify(path));
}

// The roll form, drawn afresh (for another system, another campaign); ``keep`` the character
// selected. Its listeners are the form's own, bound once (``start``): a form drawn again
// gains none, so one Enter is one roll.
function rollForm(keep) {
  const form = document.getElementById("roll");
  build(form, formDecl(["roll"]), keep ? { character: keep } : {},
        [["Roll", "primary"], ["Ask her phone", "ask", "button"]]);
  form.querySelector(".help")?.remove();
  askLabel(form);
  form.elements.character.focus();
  form.elements.character.select();
}

// "Ask Mira's phone": the button names whose phone it sends the roll to.
function askLabel(form) {
  const who = character(form.elements.character?.value);
  const ask = form.querySelector("button.ask");
  if (ask) ask.textContent = who ? `Ask ${who.name}'s phone` : "Ask a player's phone";
}

// Ready for the next roll: the same character selected, the rest cleared (a secret box left
// ticked would make the next roll secret unseen).
function ready(form) {
  rollForm(form.elements.character.value);
}

async function ask(form, once) {
  const vals = values(form);
  const { character: who, trait, secret, ...rest } = vals;
  const doc = await Feed.post("gm/ask", { character: who || "", trait: trait || "", secret: !!secret, values: rest }, once);
  say("result", doc);
  if (doc.ok) { ready(form); refresh(); }
}

// A button that acts: one press, one nonce, its result in ``where``.
function button(text, cls, onclick, where) {
  const b = el("button", cls, text); b.type = "button";
  b.addEventListener("click", () => press(b, (once) => onclick(once, where)));
  return b;
}

function history() {
  const box = document.getElementById("history");
  const undo = desk.undo.length ? `Undo: ${desk.undo.join("; ")}` : "Undo: nothing to take back";
  const redo = desk.redo.length ? `Redo: ${desk.redo.join("; ")}` : "Redo: nothing to put back";
  const here = "table-result";
  const u = button(undo, "undo", (once) => act(["undo"], {}, here, once));
  u.disabled = !desk.undo.length;
  const r = button(redo, "redo", (once) => act(["redo"], {}, here, once));
  r.disabled = !desk.redo.length;
  const session = desk.session
    ? button(`End session ${desk.session}`, "session", (once) => act(["session", "end"], {}, here, once))
    : button("Start a session", "session", (once) => act(["session", "start"], {}, here, once));
  box.replaceChildren(u, r, session);
}

function owed() {
  const list = document.getElementById("owed");
  list.replaceChildren(...(desk.obligations.length ? desk.obligations.map((o) => {
    const li = el("li", o.severity === "immediate" ? "now" : "", o.what);
    const row = el("div", "buttons");
    // Every command that meets it, each starting its form filled in from what is owed.
    for (const a of o.actions) {
      const b = el("button", "", a.action.join(" ") + "…"); b.type = "button";
      b.addEventListener("click", () => pick(a.action, a.values));
      row.append(b);
    }
    row.append(button("Dismiss", "", (once) => act(["obligations", "dismiss"], { obligation: o.id }, "owed-result", once)));
    li.append(row);
    return li;
  }) : [el("li", "none", "nothing is owed")]));
  const secrets = document.getElementById("secrets");
  secrets.replaceChildren(...(desk.secrets.length ? desk.secrets.map((s) => {
    const li = el("li", s.waits ? "waits" : "", s.text);
    if (s.waits) li.append(el("small", "why", " shown after the older secret it counted"));
    li.append(button("Reveal", "", (once) => act(["reveal"], { event: s.event }, "secrets-result", once)));
    return li;
  }) : [el("li", "none", "none")]));
}

function pick(path, prefill) {
  const picker = document.getElementById("picker");
  picker.value = JSON.stringify(path);
  const form = document.getElementById("other");
  build(form, formDecl(path), prefill, [[path.join(" "), "primary"]]);
  // Filled in from what is owed: the first box left to fill, or the button, so Enter acts.
  if (prefill) {
    const empty = [...form.querySelectorAll("input, select")].find((f) => f.type !== "checkbox" && !f.value);
    (empty || form.querySelector("button.primary")).focus();
  }
}

function picker() {
  const select = document.getElementById("picker");
  const wanted = desk.forms.filter((f) => !["roll", "undo", "redo"].includes(f.path.join(" ")) &&
                                         !f.path.join(" ").startsWith("session") &&
                                         f.path.join(" ") !== "campaign use" &&
                                         // One campaign's console keeps to it.
                                         (desk.campaigns.length || f.path[0] !== "campaign"));
  const key = wanted.map((f) => f.title).join("|");
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  select.replaceChildren(...wanted.map((f) => { const o = el("option", "", f.title); o.value = JSON.stringify(f.path); return o; }));
  pick(wanted[0].path, null);
}

function campaigns() {
  // One campaign's console (its own address, or a key made for it) keeps to that campaign.
  document.getElementById("campaign-box").hidden = !desk.campaigns.length;
  const form = document.getElementById("campaigns");
  if (form.dataset.built) return;
  form.dataset.built = "1";
  build(form, formDecl(["campaign", "use"]), {}, [["Switch", ""]]);
}

const opened = new Set();   // characters whose phone link is shown

// A character's phone link, folded: its QR code and the link to copy when this server made it
// (the database keeps no link, so one given before this start is not shown again), and
// "Make a new link" (the ones given before still work) or "Revoke and make a new link".
// The players' page of a public server has one too, drawn the same way (``tvLink``).
function phoneLink(c, label = `${c.name}'s phone link`, asked = { character: c.id }) {
  const phone = el("details", "phone");
  phone.open = opened.has(c.id);
  phone.addEventListener("toggle", () => { if (phone.open) opened.add(c.id); else opened.delete(c.id); });
  phone.append(el("summary", "", label));
  if (c.phone) {
    const img = el("img", "qr"); img.alt = `QR code of the ${label}`;
    img.src = `gm/qr/${encodeURIComponent(c.id)}?v=${encodeURIComponent(c.phone.slice(-6))}`;
    const link = el("input", "link"); link.readOnly = true; link.value = c.phone;
    link.setAttribute("aria-label", label);
    phone.append(img, link);
  } else {
    phone.append(el("p", "given", "Given before this start, and still working where it was opened; a new phone needs a new link."));
  }
  const made = async (route, once) => {
    opened.add(c.id);
    say("phones-result", await Feed.post(route, asked, once));
    refresh();
  };
  if (!c.phone) phone.append(button("Make a new link", "invite", (once) => made("gm/invite", once)));
  phone.append(button("Revoke and make a new link", "revoke", (once) => made("gm/revoke", once)));
  return phone;
}

// On a public server the TV opens the players' page by a link of its own, shown here with its
// QR code; at home the page is the room's and this stays hidden.
function tvLink() {
  const box = document.getElementById("tv");
  box.hidden = !desk.public;
  if (!desk.public) return;
  const tv = { id: "players", name: "players", phone: desk.players_link };
  box.replaceChildren(phoneLink(tv, "The players' page link (the TV's)", { players: true }));
}

// A moment as a list of invitations says it: "6 Dec, 21:30", in the GM's own time.
function day(iso) {
  const when = new Date(iso);
  return isNaN(when) ? "" : when.toLocaleString([], { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hour12: false });
}

// Every live invitation into the console and the phones, each revocable: a lost phone, or a
// player who left the table.
function invitations() {
  const list = document.getElementById("invitations-list");
  const live = desk.invitations || [];
  document.getElementById("invitations-count").textContent = `${live.length} live`;
  list.replaceChildren(...live.map((inv) => {
    const li = el("li");
    const until = inv.expires ? `until ${day(inv.expires)}` : "until revoked";
    li.append(el("span", "who", inv.who + (inv.yours ? " · this browser" : "")));
    li.append(el("small", "since", `made ${day(inv.made)}, ${until}`));
    li.append(button(inv.yours ? "Revoke (locks this console out)" : "Revoke", "revoke", async (once) => {
      say("invitations-result", await Feed.post("gm/uninvite", { invitation: inv.id }, once));
      refresh();
    }));
    return li;
  }));
}

// The other campaigns' phones: a player can open hers before the table turns to it.
function elsewhere() {
  const box = document.getElementById("elsewhere");
  const groups = desk.elsewhere || [];
  box.hidden = !groups.length;
  document.getElementById("elsewhere-list").replaceChildren(...groups.map((g) => {
    const li = el("li");
    li.append(el("div", "name", g.campaign));
    for (const c of g.characters) li.append(phoneLink(c));
    return li;
  }));
}

let table = null;   // the last board the GM's feed sent: every track, secrets included

// What the table stands at, on the cards: the shared tracks (Threat) above them, and each
// character's tracks and conditions on its card, as the TV shows them to the players.
function characters() {
  Feed.shared(document.getElementById("shared"), table || {});
  const list = document.getElementById("characters");
  list.replaceChildren(...desk.characters.map((c) => {
    const li = el("li");
    const head = el("div", "name", c.name);
    if (c.npc) head.append(el("span", "npc", "NPC"));
    li.append(head);
    const tracked = table && table.characters.find((t) => t.name === c.name);
    if (tracked) {
      li.append(Feed.tracks(tracked));
      if (tracked.conditions.length) {
        li.append(el("div", "conditions", tracked.conditions.map((x) => x.name).join(", ")));
      }
    }
    if (!c.npc) li.append(phoneLink(c));
    if (c.asked) li.append(el("div", "asked", `asked: ${c.asked}`));
    return li;
  }));
}

async function refresh() {
  const response = await fetch("gm/state", { credentials: "same-origin" });
  if (!response.ok) return;
  const was = desk;
  desk = await response.json();
  // A new session or another campaign: the console starts afresh on it, as every page does.
  const moved = was && (was.campaign !== desk.campaign || was.session !== desk.session);
  if (moved && desk.session) clear();
  document.getElementById("campaign").textContent = desk.campaign;
  document.getElementById("where").textContent =
    `${desk.system_title} · ${desk.session ? "session " + desk.session : "no session running"}`;
  document.title = `${desk.campaign} · GM console`;
  datalist("dl-characters", desk.characters.map((c) => c.name));
  const roll = document.getElementById("roll");
  if (!was || roll.dataset.system !== desk.system || roll.dataset.campaign !== desk.campaign) {
    const keep = was && was.campaign === desk.campaign ? roll.elements.character?.value : "";
    rollForm(keep);
    roll.dataset.system = desk.system;
    roll.dataset.campaign = desk.campaign;
    document.getElementById("picker").dataset.key = "";
  }
  history(); owed(); picker(); campaigns(); tvLink(); characters(); elsewhere(); invitations();
}

function start() {
  document.getElementById("desk").hidden = false;
  document.getElementById("picker").addEventListener("change", (e) => pick(JSON.parse(e.target.value), null));
  // Each form's listeners are bound here, once: drawing a form again adds none.
  const roll = document.getElementById("roll");
  roll.addEventListener("submit", (e) => {
    e.preventDefault();
    press(roll, async (once) => { if (await act(["roll"], values(roll), "result", once)) ready(roll); });
  });
  roll.addEventListener("input", (e) => { if (e.target.name === "character") askLabel(roll); });
  roll.addEventListener("click", (e) => {
    if (e.target.closest("button.ask")) press(roll, (once) => ask(roll, once));
  });
  const other = document.getElementById("other");
  other.addEventListener("submit", (e) => {
    e.preventDefault();
    press(other, async (once) => {
      const path = JSON.parse(other.dataset.path);
      const sent = values(other);
      if (await act(path, sent, "other-result", once)) {
        // Who and what stay for the next one (a contest's next round); dice typed in, a note,
        // a secret are for the one action only.
        const kept = {};
        for (const a of formDecl(path)?.arguments || []) if (a.name in sent) kept[a.name] = sent[a.name];
        if (formDecl(path)) pick(path, kept);
      }
    });
  });
  const switcher = document.getElementById("campaigns");
  switcher.addEventListener("submit", (e) => {
    e.preventDefault();
    press(switcher, (once) => act(["campaign", "use"], values(switcher), "campaign-result", once));
  });
  document.addEventListener("keydown", (e) => {
    // Alt+U undoes, Alt+R redoes, Alt+V reveals the newest secret: the buttons, by keyboard.
    const keyed = e.altKey && !e.ctrlKey && !e.metaKey && { u: "#history button.undo",
      r: "#history button.redo", v: "#secrets li:not(.waits) button" }[e.key.toLowerCase()];
    if (keyed) {
      e.preventDefault();
      // The newest of them: for Alt+V, the newest secret that can be shown by itself (one
      // that counted an older sealed one waits for it).
      const b = [...document.querySelectorAll(keyed)].pop();
      if (b && !b.disabled) b.click();
      else {
        const none = { u: ["table-result", "Nothing to undo."], r: ["table-result", "Nothing to redo."],
          v: ["secrets-result", "No secret to reveal."] }[e.key.toLowerCase()];
        say(none[0], { ok: false, error: none[1] });
      }
      return;
    }
    // Enter held down repeats: one press is one action, however long the key is held.
    if (e.key === "Enter" && e.repeat) { e.preventDefault(); return; }
    if (e.key !== "Escape") return;
    // Back to the roll, afresh: the character selected (typing replaces it), what a refused
    // roll left in the other fields cleared, so it cannot refuse the next one too.
    const roll = document.getElementById("roll");
    if (roll.elements.character) ready(roll);
  });
  let pending = null;
  Feed.follow("gm/events", document.getElementById("feed"), true, {
    // After each batch the console's forms read the table again (undo's words, what is owed).
    board: (b) => {
      table = b;
      if (desk) characters();
      clearTimeout(pending); pending = setTimeout(refresh, 150);
    },
    reset: clear,
  }, true);
  refresh();
}

if (document.body.dataset.view === "refused") {
  document.body.classList.add("refused");
  document.getElementById("refused").hidden = false;
} else {
  start();
}

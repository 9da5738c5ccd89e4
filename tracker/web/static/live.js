// The table's live view: a feed of Server-Sent Events, newest first, and the board after each
// batch. Everything from the log is set as text, never as markup.
"use strict";

const view = document.body.dataset.view;
const items = new Map();   // event id -> its <li>

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function clock(iso) {
  const when = new Date(iso);
  return isNaN(when) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
}

function render(item) {
  const li = el("li");
  li.dataset.version = item.version;
  const marks = [item.tone || ""];
  if (item.sealed) marks.push("sealed");
  else if (item.secret && view === "gm") marks.push("secret");
  if (item.undone) marks.push("undone");
  li.className = marks.join(" ").trim();
  const text = el("span", "text", item.text);
  // What the event moved on the tracks: "Wren Mettle +1 · Threat +2".
  if (item.changes && item.changes.length) text.append(el("small", "moved", item.changes.join(" · ")));
  li.append(el("span", "v", "#" + item.version), el("span", "t", clock(item.time)), text);
  return li;
}

function strike(ids, undone) {
  for (const id of ids || []) {
    const li = items.get(id);
    if (li) li.classList.toggle("undone", undone);
  }
}

function add(item) {
  if (items.has(item.id)) return;
  const feed = document.getElementById("feed");
  // A new session begins: the last one's recap gives way to it.
  if (item.type === "SessionStarted" && !item.undone) {
    items.clear();
    feed.replaceChildren();
  }
  const li = render(item);
  li.classList.add("fresh");
  items.set(item.id, li);
  // Newest first: before the first entry with a lower version.
  const after = [...feed.children].find((n) => Number(n.dataset.version) < item.version);
  feed.insertBefore(li, after || null);
  strike(item.undoes, true);
  strike(item.restores, false);
  // A revealed secret, or a roll a buy-up (or its undo) changed: shown again as it reads now.
  for (const shown of [...(item.reveals || []), ...(item.amends || [])]) {
    const old = items.get(shown.id);
    if (old) {
      const li2 = render(shown);
      items.set(shown.id, li2);
      old.replaceWith(li2);
    }
  }
}

function track(name, value, max) {
  const span = el("span", "", name + " ");
  span.append(el("b", "", max === undefined ? String(value) : value + "/" + max));
  return span;
}

function board(b) {
  document.getElementById("campaign").textContent = b.campaign;
  let session = "no session yet";
  if (b.session) {
    session = `session ${b.session.number}` + (b.session.title ? ` · ${b.session.title}` : "");
    // After its end the session stays up as the night's recap until the next one starts.
    if (!b.running) session += " · ended: the night's recap";
  }
  document.getElementById("where").textContent = `${b.system_title} · ${session}`;
  document.body.classList.toggle("recap", Boolean(b.session && !b.running));
  document.getElementById("feed-title").textContent = b.session && !b.running
    ? `Session ${b.session.number}, as it went (newest first)` : "The session, newest first";
  document.getElementById("luck-title").textContent = b.session && !b.running
    ? `Luck in session ${b.session.number}` : "Luck this session";
  document.title = `${b.campaign} · tracker`;
  const shared = document.getElementById("shared");
  const kept = Object.entries(b.shared || {});
  shared.hidden = kept.length === 0;
  // What secret events not yet revealed added is not the players' to know: "+ ? sealed".
  const hidden = (b.sealed && b.sealed.campaign) || 0;
  shared.replaceChildren(...kept.flatMap(([name, value], i) => {
    const parts = [i ? " · " : "", name + " ", el("b", "", String(value))];
    if (hidden) parts.push(el("span", "sealed", " + ? sealed"));
    return parts;
  }));
  shared.title = hidden ? `${hidden} secret event${hidden > 1 ? "s" : ""} not yet revealed ` +
    "may have changed it" : "";
  const chars = document.getElementById("characters");
  chars.replaceChildren(...b.characters.filter((c) => c.retired_at === undefined).map((c) => {
    const li = el("li");
    const head = el("div", "name", c.name);
    if (c.npc) head.append(el("span", "npc", "NPC"));
    const tracks = el("div", "tracks");
    if ("mettle" in c) tracks.append(track("Mettle", c.mettle));
    if ("stress" in c) tracks.append(track("stress", c.stress));
    if ("hp" in c) tracks.append(track("HP", c.hp, c.hp_max));
    if ("fp" in c) tracks.append(track("FP", c.fp, c.fp_max));
    if (c.points) tracks.append(track("CP", c.points));
    li.append(head, tracks);
    const sealed = (b.sealed && b.sealed.characters[c.name]) || 0;
    if (sealed) {
      li.append(el("div", "sealed", `${sealed} secret roll${sealed > 1 ? "s" : ""} not yet ` +
                                    "revealed: these may have moved since"));
    }
    if (c.conditions.length) {
      li.append(el("div", "conditions", c.conditions.map((x) => x.name).join(", ")));
    }
    return li;
  }));
  // After a session ends: what it changed, as `tracker recap` says it.
  const recap = document.getElementById("recap");
  recap.hidden = !b.recap;
  if (b.recap) {
    const lines = b.recap.map((c) => {
      const li = el("li");
      li.append(el("b", "", c.character || b.campaign));
      const moved = c.tracks.map((x) => `${x.track} ${x.before ?? "—"} → ${x.after ?? "—"}`);
      li.append(el("span", "", " " + [...moved, ...c.lasting].join(" · ")));
      return li;
    });
    document.getElementById("recap-list").replaceChildren(
      ...(lines.length ? lines : [el("li", "none", "nothing changed")]));
  }
  const owed = document.getElementById("owed");
  owed.replaceChildren(...(b.obligations.length
    ? b.obligations.map((o) => el("li", "", o.what))
    : [el("li", "none", "nothing is owed")]));
  const luck = document.getElementById("luck");
  const rows = Object.values(b.luck || {}).filter((l) => l.rolls);
  luck.replaceChildren(...(rows.length ? rows.map((l) => {
    const li = el("li");
    const sign = l.luck >= 0 ? "+" : "−";
    // Successes against what the exact odds of these very rolls expected.
    const who = el("span", "who", l.character);
    who.append(el("small", "", `${l.successes} of ${l.rolls} succeeded, ` +
                                `${l.expected.toFixed(1)} expected`));
    li.append(who, el("span", l.luck >= 0 ? "up" : "down",
                      `${sign}${Math.abs(l.luck).toFixed(1)}`));
    li.title = l.luck >= 0 ? "luckier than the odds" : "unluckier than the odds";
    return li;
  }) : [el("li", "none", "no rolls yet")]));
}

function connect() {
  const status = document.getElementById("connection");
  const source = new EventSource(view === "gm" ? "/gm/events" : "/events");
  source.addEventListener("item", (e) => add(JSON.parse(e.data)));
  source.addEventListener("board", (e) => board(JSON.parse(e.data)));
  // Another campaign, or a log that is not the one this page saw: start afresh.
  source.addEventListener("reset", () => {
    items.clear();
    document.getElementById("feed").replaceChildren();
  });
  source.onopen = () => { status.textContent = "live"; status.className = "live"; };
  // The browser reconnects by itself, sending the last id it saw.
  source.onerror = () => { status.textContent = "reconnecting…"; status.className = "lost"; };
}

if (view === "refused") {
  document.body.classList.add("refused");
  document.getElementById("refused").hidden = false;
} else {
  document.getElementById("view-label").textContent =
    view === "gm" ? "GM's view · secrets shown" : "players' view";
  connect();
}

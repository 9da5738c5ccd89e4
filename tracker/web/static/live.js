// The table's live view: the feed (feed.js, as the console's and the phones') and the board
// after each batch. Everything from the log is set as text, never as markup.
"use strict";

const view = document.body.dataset.view;
const el = Feed.el;

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
  // What secret events not yet revealed added is not the players' to know: "+ ? sealed".
  Feed.shared(document.getElementById("shared"), b);
  const chars = document.getElementById("characters");
  chars.replaceChildren(...b.characters.filter((c) => c.retired_at === undefined).map((c) => {
    const li = el("li");
    const head = el("div", "name", c.name);
    if (c.npc) head.append(el("span", "npc", "NPC"));
    li.append(head, Feed.tracks(c));
    const sealed = (b.sealed && b.sealed.characters[c.name]) || 0;
    if (sealed) {
      li.append(el("div", "sealed", `${sealed} secret event${sealed > 1 ? "s" : ""} not yet ` +
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
    // A luck that rounds to nothing is even, whichever side of zero it fell: "±0.0", in no tone.
    const figure = Math.abs(l.luck).toFixed(1);
    const tone = figure === "0.0" ? "even" : l.luck > 0 ? "up" : "down";
    const sign = { even: "±", up: "+", down: "−" }[tone];
    // Successes against what the exact odds of these very rolls expected.
    const who = el("span", "who", l.character);
    who.append(el("small", "", `${l.successes} of ${l.rolls} succeeded, ` +
                                `${l.expected.toFixed(1)} expected`));
    li.append(who, el("span", tone, `${sign}${figure}`));
    li.title = { even: "as lucky as the odds", up: "luckier than the odds",
                 down: "unluckier than the odds" }[tone];
    return li;
  }) : [el("li", "none", "no rolls yet")]));
}

// The newest roll, large: who rolled what, and its outcome readable across the room, a
// critical one set apart; a secret roll is only that, until revealed. Read from the feed as
// the page has it, so an undo or a reveal shows here too.
function lastRoll() {
  const box = document.getElementById("last");
  const roll = [...document.querySelectorAll("#feed li")].find(
    (li) => li.dataset.outcome || li.classList.contains("sealed"));
  box.hidden = !roll;
  if (!roll) return;
  const sealed = roll.classList.contains("sealed");
  // Who rolled what, at what, with which dice; the outcome is said below, large.
  const line = roll.querySelector(".text").firstChild.textContent;
  document.getElementById("last-who").textContent = sealed ? line : line.split(" → ")[0];
  const outcome = document.getElementById("last-outcome");
  outcome.textContent = sealed ? "sealed until the GM reveals it" : roll.dataset.outcome;
  const marks = ["tone"];
  for (const c of ["good", "mixed", "bad", "undone", "sealed"]) if (roll.classList.contains(c)) marks.push(c);
  if (roll.dataset.critical === "true") marks.push("critical");
  outcome.className = marks.join(" ");
}

// A TV shows the whole board on one screen: what does not fit is left out whole, the least
// needed first (the luck's detail, its hint, then the luck), and the feed ends at its last
// line that fits, never with one cut in half.
const TV = matchMedia("(min-width: 1600px) and (min-height: 900px)");

function fit() {
  for (const n of document.querySelectorAll(".squeezed")) n.classList.remove("squeezed");
  if (!TV.matches) return;
  const table = document.getElementById("table");
  const spare = [
    ...document.querySelectorAll("#luck .who small"),
    document.querySelector("#table .hint"),
    [document.getElementById("luck-title"), document.getElementById("luck")],
  ];
  for (const nodes of spare) {
    if (table.scrollHeight <= table.clientHeight) break;
    for (const n of [nodes].flat()) n.classList.add("squeezed");
  }
  const end = document.getElementById("feed-section").getBoundingClientRect().bottom;
  let over = false;   // from the first line that does not fit, every older one goes too
  for (const li of document.querySelectorAll("#feed li")) {
    over = over || li.getBoundingClientRect().bottom > end + 1;
    if (over) li.classList.add("squeezed");
  }
}

function connect() {
  const feed = document.getElementById("feed");
  const fitted = (b) => { board(b); fit(); };
  const source = Feed.follow(view === "gm" ? "gm/events" : "events", feed, view === "gm", { board: fitted }, true);
  // On a public server a feed that keeps failing may be a link the GM revoked: say so rather
  // than "reconnecting…" for ever.
  source.addEventListener("error", async () => {
    const page = await fetch("./", { credentials: "same-origin" }).catch(() => null);
    if (page && page.status === 403) {
      source.close();
      document.body.classList.add("refused");
      document.getElementById("refused").hidden = false;
    }
  });
  new MutationObserver(lastRoll).observe(feed, { childList: true, subtree: true, attributes: true });
  // Lines added or taken away only: fit's own marks are attributes, which would call it again.
  new MutationObserver(fit).observe(feed, { childList: true });
  addEventListener("resize", fit);
}

if (view === "refused") {
  document.body.classList.add("refused");
  document.getElementById("refused").hidden = false;
} else {
  document.getElementById("view-label").textContent =
    view === "gm" ? "GM's view · secrets shown" : "players' view";
  connect();
}

// The feed shared by the GM's console and the players' phones: Server-Sent Events, newest
// first, and the board after each batch. Everything from the log is set as text, never markup.
"use strict";

const Feed = (() => {
  const items = new Map();   // event id -> its <li>

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function clock(iso) {
    const when = new Date(iso);
    return isNaN(when) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
  }

  function render(item, gm) {
    const li = el("li");
    li.dataset.version = item.version;
    if (item.outcome) { li.dataset.outcome = item.outcome; li.dataset.critical = String(!!item.critical); }
    const marks = [item.tone || ""];
    if (item.sealed) marks.push("sealed");
    else if (item.secret && gm) marks.push("secret");
    if (item.undone) marks.push("undone");
    if (item.critical) marks.push("critical");
    li.className = marks.join(" ").trim();
    const text = el("span", "text", item.text);
    // The GM's mark of a secret line, on the line itself, before what it moved.
    if (marks.includes("secret")) text.append(el("span", "mark", " · secret"));
    // What the event moved on the tracks ("Wren Mettle +1 · Threat +2"), and what it did not
    // apply ("12 HP of backlash, not applied": a sheet with no HP).
    // Why its number is what it is: the modifiers, whose dice, an HP line's cause.
    if (item.why && item.why.length) text.append(el("small", "why", item.why.join(" · ")));
    const moved = [...(item.changes || []), ...(item.not_applied || [])];
    if (moved.length) text.append(el("small", "moved", moved.join(" · ")));
    li.append(el("span", "v", "#" + item.version), el("span", "t", clock(item.time)), text);
    return li;
  }

  function strike(ids, undone) {
    for (const id of ids || []) {
      const li = items.get(id);
      if (li) li.classList.toggle("undone", undone);
    }
  }

  // ``bySession``: a new session's start clears what the list showed (the TV's recap of the
  // last one gives way to it).
  function add(list, item, gm, bySession) {
    if (items.has(item.id)) return;
    if (bySession && item.type === "SessionStarted" && !item.undone) {
      items.clear();
      list.replaceChildren();
    }
    const li = render(item, gm);
    li.classList.add("fresh");
    items.set(item.id, li);
    const after = [...list.children].find((n) => Number(n.dataset.version) < item.version);
    list.insertBefore(li, after || null);
    strike(item.undoes, true);
    strike(item.restores, false);
    for (const shown of [...(item.reveals || []), ...(item.amends || [])]) {
      const old = items.get(shown.id);
      if (old) {
        const again = render(shown, gm);
        items.set(shown.id, again);
        old.replaceWith(again);
      } else if ((item.reveals || []).includes(shown)) {
        // A secret of an earlier session, not on this page: the reveal's line says it whole.
        li.querySelector(".text").append(el("small", "shown", `#${shown.version} ${shown.text}`));
      }
    }
  }

  // Follow ``url`` into the <ol> ``list``; ``on`` maps other message names to handlers.
  function follow(url, list, gm, on, bySession) {
    const status = document.getElementById("connection");
    const source = new EventSource(url);
    source.addEventListener("item", (e) => {
      const item = JSON.parse(e.data);
      // A new session: what the page said of the last one (a phone's result) goes with it.
      if (item.type === "SessionStarted" && !item.undone && !items.has(item.id)) {
        on?.session?.();
      }
      add(list, item, gm, bySession);
    });
    source.addEventListener("reset", () => { items.clear(); list.replaceChildren(); });
    for (const [name, handler] of Object.entries(on || {})) {
      if (name === "session") continue;   // not a message: called on a session's start, above
      source.addEventListener(name, (e) => handler(JSON.parse(e.data)));
    }
    source.onopen = () => { status.textContent = "live"; status.className = "live"; };
    // The browser reconnects by itself, sending the last id it saw.
    source.onerror = () => { status.textContent = "reconnecting…"; status.className = "lost"; };
    return source;
  }

  // One nonce per press of a button: every retry of that press sends it again, so the server
  // logs the press once however many times it arrives.
  function nonce() {
    return Array.from(crypto.getRandomValues(new Uint8Array(16)),
                      (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const RETRIES = [300, 1000, 2500];   // ms before each retry of a press the network lost

  // A POST as the server takes one: JSON, the page's token, the press's nonce (``once``, made
  // here when not given). A request the network lost is sent again with the same nonce; the
  // server answers a repeat of one it logged 409, and then the press is done, logged once.
  async function post(url, body, once) {
    const sent = once || nonce();
    const token = document.querySelector('meta[name="csrf-token"]').content;
    let response = null;
    let tries = 0;
    for (;;) {
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
          body: JSON.stringify({ ...body, nonce: sent }),
          credentials: "same-origin",
        });
        break;
      } catch (err) {
        if (tries >= RETRIES.length) {
          return { ok: false, error: "The server cannot be reached; press again when it is back." };
        }
        await new Promise((done) => setTimeout(done, RETRIES[tries++]));
      }
    }
    let doc;
    try { doc = await response.json(); } catch (err) { doc = null; }
    // The page's token is a day old: a reload brings a new one (the form is sent anew).
    if (doc && doc.reload) { location.reload(); return { ok: false, error: doc.error }; }
    // Sent already (a retry whose first try got through): what it answered then.
    if (response.status === 409 && doc && doc.first) {
      return doc.first.ok ? doc.first : { ok: false, error: doc.first.error };
    }
    if (response.status === 409 && tries > 0 && doc && /sent already/.test(doc.error)) {
      // An earlier try of this press reached the server and its answer was not kept: the press
      // is logged, once.
      return { ok: true, text: ["Logged once; its line is in the feed."] };
    }
    if (!response.ok || !doc) {
      return { ok: false, error: (doc && doc.error) || `Refused (${response.status}).` };
    }
    return doc;
  }

  // A character's tracks as a row of small figures, as the server reads them for every
  // system (``readings``: [name, figure] pairs), so a system's own tracks show as Mettle does.
  function tracks(c) {
    const row = el("div", "tracks");
    for (const [name, figure] of c.readings || []) {
      const span = el("span", "track", name + " ");
      span.append(el("b", "", figure));
      row.append(span);
    }
    return row;
  }

  // The campaign's own tracks (Threat, a system's pool) as the board reads them; in the
  // players' view "+ ? sealed" beside them while a secret not yet revealed may have moved them.
  function shared(node, b) {
    const kept = Object.entries(b.shared || {});
    node.hidden = kept.length === 0;
    const hidden = (b.sealed && b.sealed.campaign) || 0;
    node.replaceChildren(...kept.flatMap(([name, value], i) => {
      const parts = [i ? " · " : "", name + " ", el("b", "", String(value))];
      if (hidden) parts.push(el("span", "sealed", " + ? sealed"));
      return parts;
    }));
    node.title = hidden ? `${hidden} secret event${hidden > 1 ? "s" : ""} not yet revealed ` +
      "may have changed it" : "";
  }

  return { el, follow, post, nonce, shared, tracks };
})();

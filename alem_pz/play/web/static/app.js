// The alem-serve page: take a seat, see its view, press alem-play's keys, chat.
// Protocol: alem_pz/play/web/app.py. No libraries: plain DOM and one WebSocket.
"use strict";

const ACCENTS = ["#40d8f2", "#5ae65a", "#ffb833", "#b273f2", "#ff73b2"];
const $ = (id) => document.getElementById(id);
const game = { seat: null, token: null, keys: new Map(), welcome: null, frame: null,
               pressedAt: null, shownAt: performance.now(), latencies: [] };
window.alem = game;  // read by tests and by curious people in the console
let socket = null;
// A room's page is /room/NAME (its socket /room/NAME/ws); "/" serves the only room at /ws.
const ROOM = location.pathname.startsWith("/room/") ? location.pathname.replace(/\/+$/, "") : "";
const TOKEN_KEY = `alem-token${ROOM}`;  // a tab may visit several rooms: one token each

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}${ROOM}/ws`);
  socket.onopen = () => {
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) send({ type: "rejoin", token: saved });
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => { $("room").textContent = "disconnected: reconnecting…"; setTimeout(connect, 1000); };
}

function receive(m) {
  if (m.type === "welcome") return onWelcome(m);
  if (m.type === "joined") return onJoined(m);
  if (m.type === "frame") { game.frame = m; drawFrame(m); return drawStatus(m); }
  if (m.type === "status") return drawStatus(m);
  if (m.type === "chat") return addChat(m.message);
  if (m.type === "error") {
    $("error").textContent = m.message;
    if (m.message.startsWith("unknown seat token")) sessionStorage.removeItem(TOKEN_KEY);
  }
}

function onWelcome(w) {
  game.welcome = w;
  game.keys.clear();
  const rows = [];
  for (const k of w.keys) {
    game.keys.set(k.code + "|" + k.mods.join("+"), k.action);
    rows.push(`<tr><td><kbd>${k.label}</kbd></td><td title="${k.name.toLowerCase()}">${k.name.toLowerCase()}</td></tr>`);
  }
  document.querySelector("#keys tbody").innerHTML = rows.join("");
  $("room").textContent = `${ROOM ? `room ${w.room} · ` : ""}${w.players} players · ${w.difficulty} · ` +
    (w.mode === "tick" ? `real time, a step every ${w.tick_ms} ms` : "turn mode: the world steps when everyone has chosen") +
    ` · AI: ${w.ai}`;
  const buttons = [];
  for (let j = 0; j < w.comm_channels; j++) buttons.push(`<button data-action="${w.comm_base + j}">channel ${j}</button>`);
  for (let k = 0; k < w.give_slots; k++) buttons.push(`<button data-action="${w.give_base + k}">give slot ${k}</button>`);
  $("buttons").innerHTML = buttons.join("");
}

function onJoined(j) {
  game.seat = j.seat;
  game.token = j.token;
  sessionStorage.setItem(TOKEN_KEY, j.token);
  $("error").textContent = "";
  if (game.frame) { drawFrame(game.frame); drawStatus(game.frame); }
}

function seatName(i) { return `P${i + 1}`; }

function drawStatus(s) {
  const mine = game.seat;
  $("seats").innerHTML = s.seats.map((x) => {
    const who = x.human ? (x.ai ? x.ai : x.taken ? (x.connected ? "person" : "person (away)") : "free") : x.ai;
    const take = x.human && !x.taken ? `<button data-seat="${x.seat}">Take seat</button>` : "";
    const chose = s.chosen.includes(x.seat) ? " ✓" : "";
    return `<span class="seat${x.seat === mine ? " mine" : ""}" style="--accent:${ACCENTS[x.seat % 5]}">` +
      `${seatName(x.seat)} ${x.role}: ${who}${x.seat === mine ? " (you)" : ""}${chose}${take}</span>`;
  }).join("");
  let turn = "";
  if (s.over) turn = "Episode over.";
  else if (mine === null) turn = "Take a free seat to play (you are watching).";
  else if (s.waiting.includes(mine)) turn = "Your move.";
  else if (s.waiting.length) turn = `Waiting for ${s.waiting.map(seatName).join(", ")}.`;
  else if (game.welcome && game.welcome.mode === "tick") turn = s.started ? "Real time: keys act at the next tick." : "Waiting for every seat to be taken.";
  $("turn").textContent = `step ${s.step} · ${turn}`;
  document.body.dataset.step = s.step;
}

function drawFrame(f) {
  const focus = game.seat === null ? 0 : game.seat;
  const view = $("view");
  view.onload = () => {
    game.shownAt = performance.now();
    if (game.pressedAt !== null) {
      game.latencies.push(game.shownAt - game.pressedAt);
      game.pressedAt = null;
      const sorted = [...game.latencies.slice(-50)].sort((a, b) => a - b);
      $("latency").textContent = `key → view ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms`;
    }
  };
  view.src = f.views[focus];
  view.style.setProperty("--accent", ACCENTS[focus % 5]);
  $("mates").innerHTML = f.views.map((url, i) => i === focus ? "" :
    `<div class="mate" style="--accent:${ACCENTS[i % 5]}"><img src="${url}" alt="${seatName(i)}'s view"><span>${seatName(i)} ${f.seats[i].role}</span></div>`).join("");
  $("hud").textContent = f.hud[focus].join("\n") + (f.last.who ? `\nlast step: ${f.last.actions.map((a, i) => `${seatName(i)} ${a.toLowerCase()} (${f.last.who[i]})`).join(", ")}` : "");
  $("events").textContent = f.events.join("   ");
  $("summary").hidden = !f.summary;
  if (f.summary) {
    $("summary").querySelector("pre").textContent = f.summary.join("\n");
    $("gif").href = `/api/room/${game.welcome ? game.welcome.room : "1"}/gif`;  // made on request
  }
  $("log").innerHTML = "";
  f.chat.forEach(addChat);
}

function addChat(c) {
  const line = document.createElement("div");
  line.style.color = ACCENTS[c.seat % 5];
  const who = c.from ? `${seatName(c.seat)} [${c.from}]` : seatName(c.seat);  // llm:MODEL
  line.textContent = `${who} (step ${c.step}): ${c.text}`;
  $("log").appendChild(line);
  $("log").scrollTop = $("log").scrollHeight;
}

function act(action) {
  if (game.token === null) { $("error").textContent = "take a seat first"; return; }
  const now = performance.now();
  game.pressedAt = now;
  send({ type: "act", token: game.token, action, client_ms: Math.round(now - game.shownAt) });
}

document.addEventListener("keydown", (e) => {
  if (e.target === $("text") || e.repeat && game.welcome && game.welcome.mode === "turn") return;
  const mods = [e.altKey && "alt", e.ctrlKey && "ctrl", e.shiftKey && "shift"].filter(Boolean);
  let action = game.keys.get(e.code + "|" + mods.join("+"));
  if (action === undefined && e.shiftKey) action = game.keys.get(e.code + "|" + mods.filter((m) => m !== "shift").join("+"));
  if (action === undefined) return;
  e.preventDefault();
  act(action);
});

document.addEventListener("click", (e) => {
  const t = e.target;
  if (t.tagName === "BUTTON") t.blur();  // Space must not click it again
  if (t.dataset.seat !== undefined) send({ type: "take", seat: Number(t.dataset.seat) });
  if (t.dataset.action !== undefined) act(Number(t.dataset.action));
  if (t.id === "next") send({ type: "next" });
});

$("say").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("text").value.trim();
  if (text && game.token) send({ type: "chat", token: game.token, text });
  $("text").value = "";
  $("text").blur();
});

connect();

// The lobby of alem-serve --rooms K: every room, its free seats, a link to its page.
// Reads GET /api/rooms (alem_pz/play/web/app.py) every two seconds. No libraries.
"use strict";

function row(r) {
  const free = r.free.length ? r.free.map((i) => `P${i + 1}`).join(", ") : "none";
  const state = r.over ? `episode ${r.episode} over` : `${r.step}`;
  return `<tr data-room="${r.name}"><td><a href="${r.url}">room ${r.name}</a></td><td>${r.players}</td>` +
    `<td class="free">${free}</td><td>${r.mode}</td><td>${r.ai}</td><td>${state}</td>` +
    `<td><a href="${r.url}">${r.free.length ? "join" : "watch"}</a></td></tr>`;
}

async function refresh() {
  try {
    const rooms = await (await fetch("/api/rooms")).json();
    document.querySelector("#rooms tbody").innerHTML = rooms.map(row).join("");
    document.getElementById("error").textContent = "";
  } catch (error) {
    document.getElementById("error").textContent = `server unreachable: ${error}`;
  }
}

refresh();
setInterval(refresh, 2000);

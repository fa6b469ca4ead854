// brett's web app: the engine protocol over HTTP (POST api), one page, no build step.
"use strict";
const $ = (id) => document.getElementById(id);
let gameId = null, state = null, clicks = [], lastActor = "human", nextId = 0, flash = [];

async function api(request) {
  const response = await fetch("api", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ id: ++nextId, ...request }),
  });
  const reply = await response.json();
  if (!reply.ok) throw new Error(`${reply.error.type}: ${reply.error.message}`);
  return reply;
}

let depth = 0;  // while an action runs, body[data-busy] is "1" (tests wait for "0")
function busy(action) {
  return async (...args) => {
    document.body.dataset.busy = String(++depth > 0 ? 1 : 0);
    try { return await action(...args); }
    finally { document.body.dataset.busy = String(--depth > 0 ? 1 : 0); }
  };
}

function showError(error) { $("error").textContent = error ? String(error.message || error) : ""; }

async function newGame() {
  showError("");
  let options;
  try { options = JSON.parse($("options").value || "{}"); }
  catch (e) { return showError(`Options: ${e.message}`); }
  try {
    if (gameId) await api({ cmd: "close", game_id: gameId });
    state = await api({ cmd: "new", game: $("game").value, options });
    gameId = state.game_id; clicks = []; lastActor = "random";
    await autoplay();
  } catch (e) { showError(e); }
}

function randomSeat(player) { return $("opponent").value === "random" && player !== 0; }

async function autoplay() {  // the random players' moves, and the dice they need
  while (state && !state.outcome) {
    const chance = state.to_move === "chance";
    if (chance ? lastActor !== "human" || $("opponent").value !== "random"
               : !randomSeat(state.to_move)) break;
    state = await api({ cmd: "random_move", game_id: gameId });
    if (!chance) lastActor = "random";
    flash = squaresOf(state.effects);
  }
  await render();
}

async function render() {
  const next = gameId && !state.outcome && state.to_move !== "chance"
    ? (await api({ cmd: "legal", game_id: gameId, prefix: clicks, limit: 50 })).next : [];
  const picture = await api({ cmd: "svg", game_id: gameId,
    options: { size: 560, highlight: clicks.filter((c) => isSquare(c)), last_move: true,
               targets: next.filter((c) => isSquare(c)) } });
  $("board").innerHTML = picture.svg;
  for (const cell of $("board").querySelectorAll("[data-square]")) {
    cell.addEventListener("click", () => onClick(cell.dataset.square));
    if (flash.includes(cell.dataset.square)) cell.classList.add("flash");
  }
  flash = [];
  $("choices").replaceChildren(...next.filter((c) => !isSquare(c)).map((token) => {
    const button = document.createElement("button");
    button.textContent = token;
    button.addEventListener("click", () => onClick(token));
    return button;
  }));
  $("dice").hidden = state.to_move !== "chance" || !!state.outcome;
  $("status").textContent = statusText();
  $("moves").replaceChildren(...state.moves_played.map((m) => {
    const item = document.createElement("li"); item.textContent = m; return item;
  }));
  $("position").textContent = state.position;
}

let squares = new Set();
function isSquare(token) {
  if (!squares.size || !squares.has(token)) {
    squares = new Set([...document.querySelectorAll("#board [data-square]")]
      .map((e) => e.dataset.square));
  }
  return squares.has(token);
}

function statusText() {
  if (state.outcome) return `Game over: ${state.outcome.reason}`;
  if (state.to_move === "chance") return "Roll the dice";
  return `${state.players[state.to_move]} to move` + (clicks.length ? ` (${clicks.join(" ")})` : "");
}

function squaresOf(effects) {
  return JSON.stringify(effects || {}).match(/[a-z]:?[a-z0-9]+|\b\d+\b/g) || [];
}

async function click(token) {
  if (!state || state.outcome || state.to_move === "chance" || randomSeat(state.to_move)) return;
  showError("");
  try {
    let prefix = [...clicks, token];
    let reply = await api({ cmd: "legal", game_id: gameId, prefix });
    if (!reply.moves.length && !reply.next.length && clicks.length) {
      prefix = [token];  // a fresh start on another square
      reply = await api({ cmd: "legal", game_id: gameId, prefix });
    }
    if (!reply.moves.length && !reply.next.length) { clicks = []; await render(); return; }
    clicks = prefix;
    if (reply.moves.length === 1 && !reply.next.length) return play(reply.moves[0]);
    if (reply.next.length === 1 && !isSquare(reply.next[0]) && !reply.moves.length)
      return click(reply.next[0]);  // the only way on (a count, "stop"): take it
    await render();
  } catch (e) { showError(e); clicks = []; }
}

async function play(move) {
  state = await api({ cmd: "move", game_id: gameId, move });
  clicks = []; lastActor = "human"; flash = squaresOf(state.effects);
  await autoplay();
}

async function roll(given) {
  showError("");
  try {
    state = given ? await api({ cmd: "roll", game_id: gameId, roll: $("roll").value.trim() })
                  : await api({ cmd: "random_move", game_id: gameId });
    await autoplay();
  } catch (e) { showError(e); }
}

async function undo() {
  showError("");
  try {
    do {  // back to the last position where a person was to move
      state = await api({ cmd: "undo", game_id: gameId });
    } while (state.moves_played.length && (state.to_move === "chance" ||
             randomSeat(state.to_move)));
    clicks = [];
    await render();
  } catch (e) { showError(e); }
}

const onClick = busy(click);
$("new").addEventListener("click", busy(newGame));
$("undo").addEventListener("click", busy(undo));
$("given").addEventListener("click", busy(() => roll(true)));
$("random-roll").addEventListener("click", busy(() => roll(false)));
$("game").addEventListener("change", busy(() => { $("options").value = "{}"; return newGame(); }));
busy(newGame)();

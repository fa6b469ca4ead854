// brett's web app: the engine protocol over HTTP (POST api), one page, no build step.
"use strict";
const $ = (id) => document.getElementById(id);
let gameId = null, state = null, clicks = [], nextId = 0, flash = [], hints = [];
const HINT_SECONDS = 1, HINT_MOVES = 5, HINTS_SHOWN = 3;

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
    gameId = state.game_id; clicks = []; hints = [];
    $("info").textContent = "";
    seatChoices();
    await autoplay();
  } catch (e) { showError(e); }
}

// ---- the computer's seats
function seatChoices() {  // "Computer plays": nobody, each seat, all but the first
  const select = $("computer"), kept = select.value;
  const choices = [["nobody", "nobody"], ...state.players.map((name, i) => [String(i), name])];
  if (state.players.length > 2) choices.push(["others", `all but ${state.players[0]}`]);
  select.replaceChildren(...choices.map(([value, text]) => new Option(text, value)));
  select.value = choices.some(([value]) => value === kept) ? kept : "nobody";
}

function computerSeats() {
  const chosen = $("computer").value;
  if (!state || chosen === "nobody") return [];
  if (chosen === "others") return state.players.map((_, i) => i).slice(1);
  return [Number(chosen)];
}

function computerSeat(player) { return computerSeats().includes(player); }

function personToMove() {
  return state && !state.outcome && state.to_move !== "chance" && !computerSeat(state.to_move);
}

async function autoplay() {  // the computer's moves, and the dice its turns need
  while (state && !state.outcome) {
    if (state.to_move === "chance") {
      if (!computerSeats().length) break;  // people roll their own dice
      state = await api({ cmd: "play", game_id: gameId });  // at a chance node: a roll
      if (state.to_move !== "chance" && !computerSeat(state.to_move)) {
        state = await api({ cmd: "undo", game_id: gameId });  // a person's roll: theirs to make
        break;
      }
      continue;
    }
    if (!computerSeat(state.to_move)) break;
    await computerMove();
    await render();
  }
  await render();
}

async function computerMove() {
  const who = state.players[state.to_move], strength = $("strength").value;
  $("status").textContent = `${who} is thinking…`;
  const controls = ["new", "undo", "hint", "game", "computer"].map($);
  for (const control of controls) control.disabled = true;
  hints = [];
  try {
    if (strength === "random") {
      state = await api({ cmd: "random_move", game_id: gameId });
      $("info").textContent = `${who} played ${state.played} (random player)`;
    } else {
      state = await api({ cmd: "play", game_id: gameId, level: Number(strength) });
      $("info").textContent = `${who} played ${state.played} (level ${strength}: ` +
        `${state.iterations.toLocaleString("en")} iterations, value ${state.value.toFixed(2)})`;
    }
  } finally {
    for (const control of controls) control.disabled = false;
  }
  flash = squaresOf(state.effects);
}

async function hint() {
  if (!personToMove()) return;
  showError("");
  try {
    const reply = await api({ cmd: "hint", game_id: gameId, seconds: HINT_SECONDS,
                              limit: HINT_MOVES });
    hints = reply.moves;
    await render();
  } catch (e) { showError(e); }
}

// ---- the page
async function render() {
  const next = gameId && !state.outcome && state.to_move !== "chance"
    ? (await api({ cmd: "legal", game_id: gameId, prefix: clicks, limit: 50 })).next : [];
  const shown = hints.slice(0, HINTS_SHOWN).map((h) => h.move);
  const picture = await api({ cmd: "svg", game_id: gameId,
    options: { size: 560, last_move: true, arrows: shown,
               highlight: [...clicks, ...shown].filter((c) => isSquare(c)),
               targets: next.filter((c) => isSquare(c)) } });
  $("board").innerHTML = picture.svg;
  squares = new Set();
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
  $("hint").disabled = !personToMove();
  $("hints").hidden = !hints.length;
  $("hint-moves").replaceChildren(...hints.map((h) => {
    const item = document.createElement("li"), button = document.createElement("button");
    button.textContent = h.move;
    button.title = "play this move";
    button.addEventListener("click", () => onHint(h.move));
    item.append(button, ` value ${h.value.toFixed(2)}, ${h.visits.toLocaleString("en")} visits`);
    return item;
  }));
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

// ---- a person's actions
async function click(token) {
  if (!personToMove()) return;
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
  clicks = []; hints = []; flash = squaresOf(state.effects);
  $("info").textContent = "";
  await autoplay();
}

async function playHint(move) {
  if (!personToMove()) return;
  showError("");
  try { await play(move); } catch (e) { showError(e); }
}

async function roll(given) {
  showError("");
  try {
    state = given ? await api({ cmd: "roll", game_id: gameId, roll: $("roll").value.trim() })
                  : await api({ cmd: "play", game_id: gameId });  // the roll alone
    await autoplay();
  } catch (e) { showError(e); }
}

async function undo() {
  showError("");
  try {
    do {  // back to the last position where a person was to move
      state = await api({ cmd: "undo", game_id: gameId });
    } while (state.moves_played.length && (state.to_move === "chance" ||
             computerSeat(state.to_move)));
    clicks = []; hints = [];
    $("info").textContent = "";
    await autoplay();
  } catch (e) { showError(e); }
}

async function seatsChanged() {
  clicks = []; hints = [];
  try { await autoplay(); } catch (e) { showError(e); }
}

const onClick = busy(click), onHint = busy(playHint);
$("new").addEventListener("click", busy(newGame));
$("undo").addEventListener("click", busy(undo));
$("hint").addEventListener("click", busy(hint));
$("computer").addEventListener("change", busy(seatsChanged));
$("given").addEventListener("click", busy(() => roll(true)));
$("random-roll").addEventListener("click", busy(() => roll(false)));
$("game").addEventListener("change", busy(() => { $("options").value = "{}"; return newGame(); }));
busy(newGame)();

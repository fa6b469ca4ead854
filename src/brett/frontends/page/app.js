// brett's web app: one page that speaks the engine protocol (docs/protocol.md) over
// one WebSocket.  Plain script, no build step, nothing from the network.
"use strict";

const $ = (id) => document.getElementById(id);
const BOARD_SIZE = 560, HINT_SECONDS = 1, HINT_MOVES = 5, HINTS_SHOWN = 3;
const LEVELS = 10, DEFAULT_LEVEL = "3";
const STORE = "brett.web";            // sessionStorage: the game survives a reload
const RECONNECT_MAX = 8000;           // ms between two tries at most

// ------------------------------------------------------------------ the connection
class ServerError extends Error {
  constructor(error) { super(error.message); this.type = error.type; }
}

// One WebSocket: requests carry an id, answers are matched to them by it (a search's
// answer comes when it ends, others at once); messages with "event" go to onEvent.
class Connection {
  constructor(handlers) {
    this.handlers = handlers;
    this.pending = new Map();
    this.lastId = 0;
    this.failures = 0;
    this.ws = null;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = this.ws = new WebSocket(`${scheme}//${location.host}/ws`);
    ws.onopen = () => { this.failures = 0; this.handlers.open(); };
    ws.onmessage = (message) => this.receive(message.data);
    ws.onclose = () => this.lost(ws);  // an error is always followed by close
  }

  receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if ("event" in message) { this.handlers.event(message); return; }
    const waiting = this.pending.get(message.id);
    if (!waiting) {  // no request of ours: the server refused the connection itself
      if (!message.ok) this.handlers.refused(new ServerError(message.error));
      return;
    }
    this.pending.delete(message.id);
    if (message.ok) waiting.resolve(message);
    else waiting.reject(new ServerError(message.error));
  }

  // Sends a request: its id (for stop) and the promise of its answer.
  send(cmd, fields = {}) {
    const id = ++this.lastId;
    const answer = new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error("not connected to the server (it reconnects by itself)"));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, cmd, ...fields }));
    });
    return { id, answer };
  }

  request(cmd, fields) { return this.send(cmd, fields).answer; }

  lost(ws) {
    if (ws !== this.ws) return;
    for (const waiting of this.pending.values())
      waiting.reject(new Error("the connection to the server was lost"));
    this.pending.clear();
    const delay = Math.min(500 * 2 ** this.failures++, RECONNECT_MAX);
    this.handlers.lost(delay);
    setTimeout(() => this.connect(), delay);
  }
}

const conn = new Connection({ open: connected, lost: disconnected, event: onEvent,
                              refused: (error) => showError(error, "Server") });
const req = (cmd, fields) => conn.request(cmd, fields);

// ------------------------------------------------------------------ the app's state
const app = {
  limits: null,        // the server's limits (hello)
  games: null,         // name -> {chance, options} (games)
  gameId: null,        // the live game: its id, name and last state answer
  game: null,
  state: null,
  view: null,          // the ply shown when looking back; null: the live position
  shown: null,         // the state on the board (the live one or the viewed one)
  clicks: [],          // squares clicked so far towards a move
  hints: null,         // the last hint answer ({ply, moves})
  redo: [],            // groups of moves that Undo took back, the last on top
  flash: [],           // squares the last move changed
  search: null,        // the running play or hint: {id, kind, who, level, stopping}
  squares: null,       // the names of the live game's squares (its board's cells)
  restored: false,     // the stored game was tried (first connection)
};

// ------------------------------------------------------------------ actions
// Every action runs after the previous one has finished, so clicks never overlap;
// a search runs outside this queue (its answer comes back as an action of its
// own), so the page stays usable while the computer thinks.
let queue = Promise.resolve(), queued = 0;

function act(label, action, { user = true } = {}) {
  queued++;
  markBusy();
  queue = queue.then(async () => {
    if (user) showError(null);  // the next action clears the last error
    try {
      await action();
    } catch (error) {
      showError(error, label);
      info("");  // the last success ("Loaded ...") is not this action's: it would mislead
      app.clicks = [];
      try { if (app.gameId) await render(); } catch { /* the error is already shown */ }
    } finally {
      queued--;
      markBusy();
    }
  });
  return queue;
}

// For tests: body[data-busy] is "1" while actions wait or run or no game is open,
// body[data-thinking] while the computer searches.
function markBusy() {
  document.body.dataset.busy = queued || !app.gameId ? "1" : "0";
  document.body.dataset.thinking = app.search ? "1" : "0";
}

function showError(error, label) {
  const text = !error ? "" : `${label ? label + ": " : ""}${error.message || error}`;
  $("error").textContent = text;
  const where = $("error").getBoundingClientRect();
  if (text && (where.top < 0 || where.bottom > innerHeight))  // said where it is seen
    $("error").scrollIntoView({ block: "nearest" });
}

function info(text) { $("info").textContent = text || ""; }

// ------------------------------------------------------------------ connecting
function connected() {
  $("connection").textContent = "connected";
  $("connection").className = "";
  act("Connecting", resume, { user: false });
}

function disconnected(delay) {
  $("connection").textContent = `connection lost: reconnecting in ${Math.ceil(delay / 1000)} s…`;
  $("connection").className = "lost";
  // The session and its games are gone with the connection; the game comes back
  // from its record when the socket is open again.
  app.search = null;
  app.gameId = null;
  markBusy();
  drawControls();
}

// After (re)connecting: the lists of games, then the game we had (or the stored
// one after a reload), or a new game.
async function resume() {
  if (!app.games) {
    app.limits = (await req("hello")).limits;
    const answer = await req("games");
    app.games = new Map(answer.games.map((g) => [g.name, g]));
    buildGameSelect();
  }
  const reconnect = app.state !== null;
  const stored = readStore();
  if (!app.restored && stored) restoreSettings(stored);
  const record = reconnect ? recordOf() : !app.restored && stored ? stored.record : null;
  app.restored = true;
  showError(null);
  let note = "";
  if (record) {
    try {
      const answer = await req("load", { record });
      await openGame(answer, reconnect ? "Reconnected: the game goes on." : "");
      return;
    } catch (error) {
      note = `The earlier game could not be restored: ${error.message}`;
    }
  }
  let answer;
  try {
    answer = await req("new", { game: $("game").value, options: readOptions() });
  } catch {
    answer = await req("new", { game: $("game").value });  // the game's defaults
  }
  await openGame(answer, note);
}

// Seconds as a person reads them: hundredths while they are few (a search's first
// report comes after half a second, and "0.0 s" would read as not counted).
const seconds = (value) => value.toFixed(value < 10 ? 2 : 1);

function onEvent(event) {
  if (event.event === "progress" && app.search && event.id === app.search.id) {
    $("progress").textContent =
      `${event.iterations.toLocaleString("en")} iterations, ${seconds(event.seconds)} s` +
      (app.search.stopping ? ": stopping…" : "");
  } else if (event.event === "closed" && event.game_id === app.gameId) {
    act("Reopening", async () => {  // the server closed the idle game: reopen it
      app.search = null;
      await openGame(await req("load", { record: recordOf() }),
                     "The server had closed the idle game: it was reopened.");
    }, { user: false });
  }
}

// ------------------------------------------------------------------ records and storage
function recordOf() {  // the live game as a JSON record (state answers carry its start)
  return { format: "brett-record", version: 1, game: app.game, start: app.state.start,
           moves: app.state.moves_played, result: null };
}

function readStore() {
  try { return JSON.parse(sessionStorage.getItem(STORE) || "null"); } catch { return null; }
}

function writeStore() {
  try {
    sessionStorage.setItem(STORE, JSON.stringify({
      record: recordOf(), game: $("game").value,
      computer: $("computer").value, strength: $("strength").value }));
  } catch { /* storage full or disabled: a reload starts afresh */ }
}

function restoreSettings(stored) {
  if (stored.game && app.games.has(stored.game)) { $("game").value = stored.game; buildOptions(); }
  if (stored.strength) $("strength").value = stored.strength;
  if (stored.computer) {  // the seat list is rebuilt for the game; keep the choice
    const seat = $("computer");
    if (![...seat.options].some((o) => o.value === stored.computer))
      seat.add(new Option(stored.computer, stored.computer));
    seat.value = stored.computer;
  }
}

// ------------------------------------------------------------------ the new-game form
const label = (name) => name.replace(/_/g, " ");
const title = (name) => name[0].toUpperCase() + name.slice(1);

function buildGameSelect() {
  const select = $("game"), kept = select.value;
  select.replaceChildren(...[...app.games.keys()].map((name) => new Option(title(name), name)));
  if (app.games.has(kept)) select.value = kept;
  buildOptions();
}

// One field per constructor option, its widget chosen by its JSON types; an empty
// field (or the default choice) sends nothing, so the game's default applies.
function buildOptions() {
  const fieldset = $("options"), game = app.games.get($("game").value);
  fieldset.replaceChildren(fieldset.querySelector("legend"));
  for (const option of game.options) {
    const row = document.createElement("div"), id = `option-${option.name}`;
    row.className = "option";
    const name = document.createElement("label");
    name.htmlFor = id;
    name.textContent = label(option.name);
    name.title = option.help;
    const input = optionInput(option);
    input.id = id;
    input.title = option.help;
    input.dataset.option = option.name;
    row.append(name, input);
    fieldset.append(row);
  }
  showDependentOptions();
}

// An option that means something only with certain values of others (Focus's
// teams with four players) shows only then; a hidden one is not sent.
function showDependentOptions() {
  const game = app.games.get($("game").value);
  for (const option of game.options) {
    if (!option.only_with) continue;
    const shown = Object.entries(option.only_with)
      .every(([name, values]) => values.includes(fieldValue(game, name)));
    $(`option-${option.name}`).closest(".option").hidden = !shown;
  }
}

function fieldValue(game, name) {  // the value a field asks for now (its default if empty)
  const option = game.options.find((o) => o.name === name), input = $(`option-${name}`);
  if (!option || !input) return undefined;
  if (input.type === "checkbox") return input.checked;
  const text = input.value.trim();
  if (text === "") return option.default;
  try { return optionValue(option, text); } catch { return undefined; }
}

function optionInput(option) {
  const types = option.types, ints = types.includes("integer");
  const shown = option.default === null ? "default" : String(option.default);
  if (types.includes("boolean")) {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = option.default === true;
    return box;
  }
  const choices = option.choices || [];
  const range = ints && option.minimum !== undefined && option.maximum !== undefined &&
    option.maximum - option.minimum <= 20;
  if (choices.length && (!ints || range)) {  // a list: the choices and any small integers
    const select = document.createElement("select");
    const values = [];
    if (ints) {
      select.add(new Option("default", ""));
      for (let n = option.minimum; n <= option.maximum; n += option.step || 1) values.push(String(n));
    }
    values.push(...choices);
    for (const value of values) select.add(new Option(value, value));
    if (!ints) select.value = String(option.default);
    return select;
  }
  const input = document.createElement("input");
  input.placeholder = shown;
  input.autocomplete = "off";
  if (ints && types.every((t) => t === "integer" || t === "null")) {
    input.type = "number";
    input.step = String(option.step || 1);
    if (option.minimum !== undefined) input.min = String(option.minimum);
    if (option.maximum !== undefined) input.max = String(option.maximum);
  } else {
    input.type = "text";
    input.spellcheck = false;
  }
  return input;
}

// The options the form asks for, as JSON values of the option's types.
function readOptions() {
  const game = app.games.get($("game").value), options = {};
  for (const option of game.options) {
    const input = $(`option-${option.name}`);
    if (!input || input.closest(".option").hidden) continue;
    if (input.type === "checkbox") {
      if (input.checked !== option.default) options[option.name] = input.checked;
      continue;
    }
    const text = input.value.trim();
    if (input.type === "number" && text === "" && input.validity.badInput)
      throw new Error(`${label(option.name)}: a whole number, please`);
    if (text === "" || (input.tagName === "SELECT" && text === String(option.default))) continue;
    options[option.name] = optionValue(option, text);
  }
  return options;
}

function optionValue(option, text) {
  const types = option.types;
  if (types.includes("integer") && /^[-+]?\d+$/.test(text)) return Number(text);
  if (types.includes("array") && text.startsWith("[")) {
    try { return JSON.parse(text); }
    catch { throw new Error(`${label(option.name)}: ${text} is not a JSON array`); }
  }
  if (types.includes("string")) return text;
  if (types.includes("integer")) throw new Error(`${label(option.name)}: a whole number, please`);
  throw new Error(`${label(option.name)}: ${option.help}`);
}

// ------------------------------------------------------------------ the computer's seats
function seatChoices() {  // nobody, each seat, all but the first
  const select = $("computer"), kept = select.value, players = app.state.players;
  const choices = [["nobody", "nobody"], ...players.map((name, i) => [String(i), name])];
  if (players.length > 2) choices.push(["others", `all but ${players[0]}`]);
  select.replaceChildren(...choices.map(([value, text]) => new Option(text, value)));
  select.value = choices.some(([value]) => value === kept) ? kept : "nobody";
}

function computerSeats() {
  const chosen = $("computer").value;
  if (!app.state || chosen === "nobody") return [];
  if (chosen === "others") return app.state.players.map((_, i) => i).slice(1);
  return [Number(chosen)];
}

const isComputer = (player) => computerSeats().includes(player);

// A position where a person acts: their move, or a roll when the people roll.
function personsTurn(state) {
  if (state.outcome) return false;
  if (state.to_move === "chance") return !computerSeats().length;
  return !isComputer(state.to_move);
}

// The person may click a move on the board now.
function canMove() {
  const s = app.state;
  return !!s && app.view === null && !app.search && !s.outcome && s.to_move !== "chance" &&
    !isComputer(s.to_move);
}

// ------------------------------------------------------------------ opening games
async function openGame(answer, note = "") {
  const old = app.gameId;
  Object.assign(app, { gameId: answer.game_id, game: answer.game, state: answer, view: null,
                       clicks: [], hints: null, redo: [], flash: [], search: null,
                       squares: null });
  if (old && old !== answer.game_id)  // closing it stops its search too
    req("close", { game_id: old }).catch(() => {});
  if ($("game").value !== answer.game) { $("game").value = answer.game; buildOptions(); }
  seatChoices();
  exportChoices();
  info(note);
  await render();
  await advance();
}

// The record formats this game can be saved in (the server's "records" of "games").
function exportChoices() {
  const select = $("export-format"), kept = select.value;
  const formats = app.games.get(app.game).records;
  const names = { sgf: "SGF", ggf: "GGF", json: "JSON", pos: "Position list",
                  txt: "Transcript" };
  select.replaceChildren(...formats.map((f) => new Option(names[f] || f, f)));
  select.value = formats.includes(kept) ? kept : formats[formats.length > 1 ? 1 : 0];
}

async function newGame() {
  const options = readOptions();
  const answer = await req("new", { game: $("game").value, options });
  await openGame(answer);  // only now: a refused game leaves the current one as it was
}

// A file's format by its extension; pasted text: the format chosen, or the server's guess.
const FORMAT_OF_EXTENSION = { json: "json", sgf: "sgf", ggf: "ggf", pos: "pos", txt: "txt" };

async function loadRecord(text, source, format) {
  if (!text.trim()) throw new Error("paste a record (SGF, GGF or JSON) into the box first");
  const limit = app.limits ? app.limits.request_bytes - 1024 : Infinity;
  if (text.length > limit) throw new Error(`the record is too long for the server (${text.length.toLocaleString("en")} characters)`);
  const answer = await req("load", { record: text, ...(format ? { format } : {}) });
  const more = answer.records > 1 ? ` (the first of its ${answer.records} games)` : "";
  await openGame(answer, `Loaded ${source}${more}.`);
}

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error || new Error(`could not read ${file.name}`));
    reader.readAsText(file);
  });
}

async function exportRecord(show) {
  const format = $("export-format").value;
  const answer = await req("save", { game_id: app.gameId, format });
  const text = format === "json" ? JSON.stringify(answer.record, null, 2) + "\n" : answer.record;
  if (show) { $("record-text").value = text; return; }
  const url = URL.createObjectURL(new Blob([text], { type: format === "json"
    ? "application/json" : "text/plain" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `${app.game}-${app.state.ply}-moves.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  info(`Downloaded ${link.download}.`);
}

// ------------------------------------------------------------------ moves
function afterMove(answer, redoKept = false) {
  app.state = answer;
  app.clicks = [];
  app.hints = null;
  app.view = null;
  app.flash = squaresOf(answer.effects);
  if (!redoKept) app.redo = [];
}

function squaresOf(effects) {  // the square names in a move's effects record
  return JSON.stringify(effects || {}).match(/[a-z]:?[a-z0-9]+|\b\d+\b/g) || [];
}

async function playMove(move) {
  afterMove(await req("move", { game_id: app.gameId, move }));
  info("");
  await render();    // the person's move shows before the computer answers
  await advance();
}

async function click(token) {
  if (app.view !== null) { app.view = null; await render(); return; }  // back to the game
  if (!canMove()) return;
  let prefix = [...app.clicks, token];
  let reply = await req("legal", { game_id: app.gameId, prefix, limit: 2 });
  if (!reply.count && !reply.next.length && app.clicks.length) {
    prefix = [token];  // a fresh start from this square
    reply = await req("legal", { game_id: app.gameId, prefix, limit: 2 });
  }
  if (!reply.count && !reply.next.length) { app.clicks = []; await render(); return; }
  app.clicks = prefix;
  if (reply.count === 1 && !reply.next.length) return playMove(reply.moves[0]);
  if (!reply.count && reply.next.length === 1 && !isSquare(reply.next[0]))
    return click(reply.next[0]);  // the only way on (a count, "stop"): take it
  await render();
}

async function roll(given) {
  if (app.state.to_move !== "chance" || app.search) return;
  const text = $("roll").value.trim();
  if (given && !text) throw new Error("type the dice, like 5-8-2, or click Roll dice");
  afterMove(given ? await req("roll", { game_id: app.gameId, roll: text })
                  : await req("play", { game_id: app.gameId }));  // at a chance node: a roll
  info("");
  await render();
  await advance();
}

async function undo() {
  if (app.search || !app.state.ply) return;
  const group = [];
  try {
    do {  // back to the last position where a person was to act
      const answer = await req("undo", { game_id: app.gameId });
      group.unshift(answer.undone);
      app.state = answer;
    } while (app.state.ply > 0 && !personsTurn(app.state));
  } finally {
    if (group.length) app.redo.push(group);
    Object.assign(app, { clicks: [], hints: null, view: null, flash: [] });
  }
  info("");
  await render();
  await advance();
}

async function redo() {
  const group = app.redo.pop();
  if (!group || app.search) return;
  let answer;
  for (const move of group) {
    answer = app.state.to_move === "chance"
      ? await req("roll", { game_id: app.gameId, roll: move })
      : await req("move", { game_id: app.gameId, move });
    app.state = answer;
  }
  afterMove(answer, true);
  info("");
  await render();
  await advance();
}

// ------------------------------------------------------------------ the computer
// The computer's turns, as long as it is to move: rolls and random moves at once,
// a tree search in the background (its answer continues this).
async function advance() {
  for (let turn = 0; turn < 10000; turn++) {  // bounded: a game with seats but no search
    const s = app.state;
    if (!s || s.outcome || app.search || app.view !== null) return;
    if (s.to_move === "chance") {
      if (!computerSeats().length) return;  // people roll their own dice
      const rolled = await req("play", { game_id: app.gameId });
      if (rolled.to_move !== "chance" && !isComputer(rolled.to_move)) {
        app.state = await req("undo", { game_id: app.gameId });  // a person's roll: theirs
        return render();
      }
      afterMove(rolled);
      await render();
      continue;
    }
    if (!isComputer(s.to_move)) return;
    const who = s.players[s.to_move];
    if ($("strength").value !== "random") return think("play", who);
    afterMove(await req("random_move", { game_id: app.gameId }));
    info(`${who} played ${app.state.played} (random player)`);
    await render();
  }
}

function think(kind, who) {
  const level = $("strength").value;
  const budget = kind === "play" ? { level: Number(level) }
    : { seconds: HINT_SECONDS, limit: HINT_MOVES };
  const { id, answer } = conn.send(kind, { game_id: app.gameId, progress: true, ...budget });
  const search = app.search = { id, kind, who, level, stopping: false };
  answer.then((reply) => act("Computer", () => searchEnded(search, reply), { user: false }),
              (error) => act(kind === "play" ? "Computer" : "Hint",
                             () => searchEnded(search, null, error), { user: false }));
  $("progress").textContent = "starting…";
  markBusy();
  drawStatus();
  drawControls();
}

async function searchEnded(search, reply, error) {
  if (app.search !== search) return;  // a search of a game that was closed or replaced
  app.search = null;
  markBusy();
  if (error) {
    await render();
    throw error;
  }
  if (search.kind === "hint") {
    app.hints = reply;
    if (reply.interrupted) info("The hint was stopped early: the best moves so far.");
    await render();
    return;
  }
  afterMove(reply);
  const how = `level ${search.level}: ${reply.iterations.toLocaleString("en")} iterations in ` +
    `${seconds(reply.seconds)} s, value ${reply.value.toFixed(2)}`;
  info(`${search.who} played ${reply.played} (${how})` +
       (reply.interrupted ? ": stopped, its best move so far" : ""));
  await render();
  await advance();
}

function stopSearch() {  // not queued: it must reach the server while the search runs
  const search = app.search;
  if (!search || search.stopping) return;
  search.stopping = true;
  $("stop").disabled = true;
  $("progress").textContent = "stopping…";
  req("stop", { request: search.id }).catch((error) => showError(error, "Stop"));
}

async function hint() {
  if (!canMove()) return;
  think("hint", app.state.players[app.state.to_move]);
}

// ------------------------------------------------------------------ drawing
// The board's squares, read from a drawing once a game: the clicks `legal` offers
// are squares (marked on the board) or other choices (buttons: counts, "stop").
async function boardSquares() {
  if (!app.squares) {
    const picture = await req("svg", { game_id: app.gameId,
                                       options: { size: 50, coordinates: false } });
    const doc = new DOMParser().parseFromString(picture.svg, "image/svg+xml");
    app.squares = new Set([...doc.querySelectorAll("[data-square]")]
      .map((e) => e.dataset.square));
  }
  return app.squares;
}

const isSquare = (token) => !!app.squares && app.squares.has(token);

async function render() {
  const live = app.view === null;
  app.shown = live ? app.state
    : await req("state", { game_id: app.gameId, ply: app.view });
  const squares = await boardSquares();
  const active = canMove();
  // every square of `next` takes a click; `marked` leaves out those a board need
  // not show (a Phutball man may go on any empty point: only the ball is marked)
  const { next, marked } = active
    ? await req("legal", { game_id: app.gameId, prefix: app.clicks, limit: 0 })
    : { next: [], marked: [] };
  const hinted = live && app.hints && app.hints.ply === app.state.ply
    ? app.hints.moves.slice(0, HINTS_SHOWN).map((h) => h.move) : [];
  const targets = marked.filter((t) => squares.has(t));
  const picture = await req("svg", {
    game_id: app.gameId, ...(live ? {} : { ply: app.view }),
    options: { size: BOARD_SIZE, last_move: true, arrows: hinted, targets,
               highlight: [...app.clicks, ...hinted].filter((t) => squares.has(t)) } });
  drawBoard(picture.svg, new Set(targets));
  drawChoices(next.filter((t) => !squares.has(t)));
  drawStatus();
  drawControls();
  drawHints(live ? hinted : []);
  drawMoves();
  showPosition();
  writeStore();
}

// The shown position's string: behind the copy button (it is long), in the
// field below it only when the clipboard refused it.
function showPosition() {
  const button = $("copy-position"), text = app.shown.position;
  if (button.dataset.position === text) return;
  button.dataset.position = text;
  $("copied").textContent = "";
  $("position-text").hidden = true;
}

async function copyPosition() {
  const text = $("copy-position").dataset.position || "";
  try {
    await navigator.clipboard.writeText(text);
    $("copied").textContent = "Copied.";
  } catch {  // no clipboard (a page not served from localhost or https): copy by hand
    const field = $("position-text");
    field.value = text;
    field.hidden = false;
    field.select();
    $("copied").textContent = "Select and copy:";
  }
}

function drawBoard(svg, targets) {
  const board = $("board");
  const active = document.activeElement;
  const focused = board.contains(active) ? active.dataset.square : null;
  const keyboard = !!focused && active.matches(":focus-visible");
  board.innerHTML = svg;  // the server's own drawing (a CSP forbids scripts in it)
  for (const cell of board.querySelectorAll("[data-square]")) {
    const square = cell.dataset.square;
    if (app.flash.includes(square)) cell.classList.add("flash");
    if (targets.has(square) || app.clicks.includes(square)) {  // reachable by keyboard
      cell.setAttribute("tabindex", "0");
      cell.setAttribute("role", "button");
      cell.setAttribute("aria-label", square);
    }
  }
  app.flash = [];
  if (focused) {  // the keyboard stays on the board
    const again = board.querySelector(`[tabindex][data-square="${CSS.escape(focused)}"]`) ||
      board.querySelector("[tabindex]");
    if (again) again.focus({ focusVisible: keyboard });
  }
}

// The keyboard's square, ringed on top of the drawing (an outline of the cell
// would be hidden under its neighbours, drawn after it).
function focusRing(cell) {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  for (const old of svg.querySelectorAll(".focus-ring")) old.remove();
  if (!cell || !cell.matches(":focus-visible")) return;
  const box = cell.getBBox();
  for (const kind of ["outer", "inner"]) {
    const ring = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    for (const [name, value] of Object.entries({ x: box.x, y: box.y, width: box.width,
                                                 height: box.height }))
      ring.setAttribute(name, String(value));
    ring.setAttribute("class", `focus-ring ${kind}`);
    svg.append(ring);
  }
}

// What the clicks that are not squares mean (a button's tooltip).
const CHOICES = { stop: "end the jump here", pass: "no move: pass", cw: "move clockwise",
                  ccw: "move counterclockwise" };

function drawChoices(tokens) {
  const box = $("choices");
  box.replaceChildren(...tokens.map((token) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = token;
    button.title = CHOICES[token] ||
      (/^\d+$/.test(token) ? `move ${token} piece${token === "1" ? "" : "s"} of the stack` : token);
    button.addEventListener("click", () => act("Move", () => click(token)));
    return button;
  }));
  if (tokens.length) box.prepend(Object.assign(document.createElement("span"),
                                               { textContent: "Choose:" }));
}

function drawStatus() {
  const s = app.state, search = app.search;
  let text = "";
  if (!s) text = "connecting…";
  else if (search) text = search.kind === "play" ? `${search.who} is thinking…`
    : `${search.who} to move: looking for the best moves…`;
  else if (s.outcome) text = "Game over";
  else if (s.to_move === "chance") text = "Roll the dice";
  else {
    const who = s.players[s.to_move];
    text = isComputer(s.to_move) ? `${who} (the computer) to move` : `${who} to move`;
    if (app.clicks.length) text += `: ${app.clicks.join(" → ")} …`;
  }
  $("status").textContent = text;
  $("thinking").hidden = !search;
  $("outcome").hidden = !s || !s.outcome;  // the game's result, whatever ply is shown
  $("summary").textContent = s && s.outcome ? s.outcome.summary : "";
  const viewing = app.view !== null && s;
  $("viewing").hidden = !viewing;
  if (viewing) {
    const move = app.view ? ` (${s.moves_played[app.view - 1]})` : "";
    $("viewing-text").textContent = app.view
      ? `The position after move ${app.view} of ${s.ply}${move}`
      : `The start position (${s.ply} move${s.ply === 1 ? "" : "s"} played)`;
  }
}

function drawControls() {
  const s = app.state, search = !!app.search, ready = !!s && !!app.gameId;
  $("undo").disabled = !ready || search || !s.ply;
  $("redo").disabled = !ready || search || !app.redo.length;
  $("hint").disabled = !ready || !canMove();
  $("stop").disabled = !search || app.search.stopping;
  $("resume").hidden = !ready || search || !!s.outcome || app.view !== null ||
    s.to_move === "chance" || !isComputer(s.to_move);
  $("dice").hidden = !ready || search || !!s.outcome || s.to_move !== "chance" ||
    app.view !== null;
  for (const id of ["move-text", "move-play"]) $(id).disabled = !ready || !canMove();
  $("back").disabled = !ready || (app.view ?? s.ply) === 0;
  $("forward").disabled = !ready || app.view === null;
  for (const id of ["download", "show-record"]) $(id).disabled = !ready;
}

function drawHints(hinted) {
  const hints = hinted.length ? app.hints.moves : [];
  $("hints").hidden = !hints.length;
  $("hint-moves").replaceChildren(...hints.map((h) => {
    const item = document.createElement("li"), button = document.createElement("button");
    button.type = "button";
    button.textContent = h.move;
    button.title = `play ${h.move}`;
    button.addEventListener("click", () => act("Move", async () => {
      if (canMove()) await playMove(h.move);
    }));
    item.append(button, ` value ${h.value.toFixed(2)}, ${h.visits.toLocaleString("en")} visits`);
    return item;
  }));
}

function drawMoves() {
  const s = app.state, current = app.view ?? s.ply, list = $("moves");
  const focused = list.contains(document.activeElement);
  const entries = ["start", ...s.moves_played];
  list.replaceChildren(...entries.map((move, ply) => {
    const item = document.createElement("li"), button = document.createElement("button");
    button.type = "button";
    button.dataset.ply = String(ply);
    const number = Object.assign(document.createElement("span"),
                                 { className: "ply", textContent: ply ? `${ply}.` : "" });
    const name = Object.assign(document.createElement("span"),
                               { className: "move", textContent: move });
    button.append(number, name);
    button.title = ply ? `show the position after move ${ply}` : "show the start position";
    if (ply === current) button.setAttribute("aria-current", "step");
    button.addEventListener("click", () => act("History", () => viewPly(ply)));
    item.append(button);
    return item;
  }));
  const mark = list.querySelector("[aria-current]");  // keep it in sight, in the list only
  if (mark && focused) mark.focus({ preventScroll: true });
  if (mark && mark.offsetTop < list.scrollTop) list.scrollTop = mark.offsetTop;
  else if (mark && mark.offsetTop + mark.offsetHeight > list.scrollTop + list.clientHeight)
    list.scrollTop = mark.offsetTop + mark.offsetHeight - list.clientHeight;
}

async function viewPly(ply) {
  if (!app.state) return;
  const target = Math.max(0, Math.min(ply, app.state.ply));
  app.view = target === app.state.ply ? null : target;
  app.clicks = [];
  await render();
  if (app.view === null) await advance();
}

// ------------------------------------------------------------------ wiring
function controls() {
  const strength = $("strength");
  for (let level = 1; level <= LEVELS; level++) strength.add(new Option(`level ${level}`, String(level)));
  strength.value = DEFAULT_LEVEL;

  $("new-form").addEventListener("submit", (e) => { e.preventDefault(); act("New game", newGame); });
  $("game").addEventListener("change", () => buildOptions());
  $("options").addEventListener("change", showDependentOptions);
  $("options").addEventListener("input", showDependentOptions);
  $("computer").addEventListener("change", () => act("Computer", async () => {
    app.clicks = [];
    await render();
    await advance();
  }));
  $("strength").addEventListener("change", () => { if (app.state) writeStore(); });
  $("undo").addEventListener("click", () => act("Undo", undo));
  $("redo").addEventListener("click", () => act("Redo", redo));
  $("hint").addEventListener("click", () => act("Hint", hint));
  $("stop").addEventListener("click", stopSearch);
  $("resume").addEventListener("click", () => act("Computer", advance));
  $("live").addEventListener("click", () => act("History", () => viewPly(Infinity)));
  $("back").addEventListener("click", () => act("History", () => viewPly((app.view ?? app.state.ply) - 1)));
  $("forward").addEventListener("click", () => act("History", () => viewPly((app.view ?? app.state.ply) + 1)));
  $("dice").addEventListener("submit", (e) => { e.preventDefault(); act("Roll", () => roll(true)); });
  $("random-roll").addEventListener("click", () => act("Roll", () => roll(false)));
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("move-text").value.trim();
    act("Move", async () => {
      if (!text || !canMove()) return;
      await playMove(text);
      $("move-text").value = "";
    });
  });
  $("load-text").addEventListener("click", () =>
    act("Load", () => loadRecord($("record-text").value, "the pasted record",
                                 $("import-format").value)));
  $("record-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";  // choosing the same file again loads it again
    const extension = file ? file.name.split(".").pop().toLowerCase() : "";
    if (file) act("Load", async () => loadRecord(await readFile(file), file.name,
                                                 FORMAT_OF_EXTENSION[extension]));
  });
  $("download").addEventListener("click", () => act("Export", () => exportRecord(false)));
  $("show-record").addEventListener("click", () => act("Export", () => exportRecord(true)));
  $("copy-position").addEventListener("click", copyPosition);

  const board = $("board");
  board.addEventListener("click", (e) => {
    const cell = e.target.closest("[data-square]");
    if (cell) act("Move", () => click(cell.dataset.square));
  });
  board.addEventListener("keydown", (e) => {
    const cell = e.target.closest && e.target.closest("[data-square]");
    if (cell && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      act("Move", () => click(cell.dataset.square));
    }
  });
  board.addEventListener("focusin", (e) => focusRing(e.target.closest("[data-square]")));
  board.addEventListener("focusout", () => focusRing(null));
  $("moves").addEventListener("keydown", (e) => {  // arrows step through the moves
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[e.key];
    if (!step || !app.state) return;
    e.preventDefault();
    act("History", () => viewPly((app.view ?? app.state.ply) + step));
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && app.clicks.length) act("Move", async () => { app.clicks = []; await render(); });
  });
}

controls();
markBusy();
conn.connect();

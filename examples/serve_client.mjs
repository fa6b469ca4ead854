// A client of `brett serve` in another language: plays one Reversi game by
// random moves through the JSON Lines protocol and prints the result.
// Usage: node examples/serve_client.mjs [command that starts the server...]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [cmd, ...args] = process.argv.length > 2 ? process.argv.slice(2) : ["brett", "serve"];
const server = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
let nextId = 0;

async function ask(request) {                 // one request line, one response line
  server.stdin.write(JSON.stringify({ id: ++nextId, ...request }) + "\n");
  const response = JSON.parse((await lines.next()).value);
  if (response.id !== nextId) throw new Error(`out of order: ${JSON.stringify(response)}`);
  return response;
}

const game = await ask({ cmd: "new", game: "reversi", options: { size: 6 } });
let state = game;
for (let seed = 1; state.outcome === null; seed++) {
  const legal = await ask({ cmd: "legal", game_id: game.game_id, limit: 100 });
  const move = legal.moves[seed % legal.moves.length];
  state = await ask({ cmd: "move", game_id: game.game_id, move });
  if (!state.ok) throw new Error(state.error.message);
}
console.log(`${state.moves_played.length} moves: ${state.outcome.reason}, ` +
            `discs ${state.outcome.scores.join("-")}`);
await ask({ cmd: "quit" });
server.stdin.end();

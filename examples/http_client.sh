#!/usr/bin/env bash
# A client of `brett serve --http` in bash, with curl and jq: opens a session,
# plays a game of 6x6 Reversi against the computer (level 2) by random moves,
# and prints the result.  Usage: examples/http_client.sh [URL]
# (start the server first: brett serve --http; the default URL is its default).
set -euo pipefail
url="${1:-http://127.0.0.1:8000/}api"
session=""

ask() {  # ask JSON: one request, its answer on stdout (an error answer stops the script)
    local answer
    answer=$(curl -sS -H 'Content-Type: application/json' ${session:+-H "Brett-Session: $session"} \
             -d "$1" "$url") || { echo "error: no brett server at $url" >&2; exit 1; }
    if [ "$(jq -r .ok <<<"$answer")" != true ]; then
        echo "error: $(jq -r '.error.type + ": " + .error.message' <<<"$answer")" >&2
        exit 1
    fi
    printf '%s\n' "$answer"
}

session=$(ask '{"cmd": "hello"}' | jq -r .session)
game=$(ask '{"cmd": "new", "game": "reversi", "options": {"size": 6}}' | jq -r .game_id)
while true; do
    state=$(ask "{\"cmd\": \"state\", \"game_id\": \"$game\"}")
    [ "$(jq -r .outcome <<<"$state")" = null ] || break
    if [ "$(jq -r .to_move <<<"$state")" = 0 ]; then   # our move: a random legal one
        move=$(ask "{\"cmd\": \"legal\", \"game_id\": \"$game\"}" |
               jq -r '.moves[(now * 1000 | floor) % (.moves | length)]')
        ask "{\"cmd\": \"move\", \"game_id\": \"$game\", \"move\": \"$move\"}" >/dev/null
    else                                                 # the computer's
        ask "{\"cmd\": \"play\", \"game_id\": \"$game\", \"level\": 2}" >/dev/null
    fi
done
jq -r '"\(.ply) moves: \(.outcome.summary)"' <<<"$state"
ask '{"cmd": "quit"}' >/dev/null

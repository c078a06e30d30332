// The explorer: one table's positions, drawn from the JSON API. The URL
// (/TABLE?position=...) is the state, so every position can be shared and the
// browser's back and forward buttons walk through the moves played.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

async function getJSON(url) {
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

// Games whose stones move: values are for the side to move, r + 1 for a win in r plies,
// -(r + 1) for a loss in r, 0 for a draw.
const moving = (info) => info.game === "teeko" || info.game === "quixo" || info.game === "morris";

// An answer's stored value: `value` for games of scores; games with results send
// `result`, `remoteness` and the stored `code` instead.
const stored = (a) => (a.value !== undefined ? a.value : a.code);

function valueInWords(info, value) {
  if (moving(info)) {
    if (value === 0) return "draw: neither side can force a win";
    const r = Math.abs(value) - 1;
    return value > 0 ? (r === 0 ? "won" : `wins in ${r}`) : (r === 0 ? "lost" : `loses in ${r}`);
  }
  if (info.game === "twins") {
    const total = [...info.spec.vert, ...info.spec.horiz].reduce((a, b) => a + b, 0);
    return `first finishes with ${value} of ${total}`;
  }
  // mnk and connect values are seen from x: N + 1 - p for a win by x at ply p,
  // negative for o.
  if (info.game === "mnk" || info.game === "connect") {
    if (value === 0) return "tie with best play";
    const ply = info.rows * info.cols + 1 - Math.abs(value);
    return `${value > 0 ? "x" : "o"} wins at ply ${ply}`;
  }
  if (value > 0) return `first leads by ${value}`;
  if (value < 0) return `second leads by ${-value}`;
  return "level: neither leads";
}

// ---- the list of tables (/) ----

async function listTables() {
  const body = $("tables").tBodies[0];
  for (const t of await getJSON("/api/tables")) {
    const row = body.insertRow();
    const link = document.createElement("a");
    link.href = "/" + encodeURIComponent(t.name);
    link.textContent = t.name;
    row.insertCell().append(link);
    // The root's stored number: a value in a game of scores, else a code.
    const root = t.root_value !== undefined ? t.root_value : t.root_code;
    for (const text of [t.game, t.board_words, t.positions.toLocaleString("en"),
                        t.entries.toLocaleString("en"), t.value_type,
                        // A table without a start has no root value: it opens elsewhere.
                        t.opening_note ? `none (no start; opens on ${t.opening})`
                          : `${root} (${valueInWords(t, root)})`]) {
      row.insertCell().textContent = text;
    }
  }
}

// ---- the explorer (/TABLE) ----

// A move as the page names it: its cell, or for connect (moves choose a column) its column.
// Teeko and Quixo name a move from one cell to another as it is written (`3,3-2,2`).
// A column is named as the list says it; every other move by its text (`move`).
const moveName = (m) => (m.column ? `column ${m.column}` : m.move);

const tableName = decodeURIComponent(location.pathname.slice(1));
let info = null;      // the table's entry in /api/tables
let current = null;   // the answer for the position shown
let playing = false;  // the best line is being played out
let selected = null;  // a move between cells: the cell clicked first ("r,c"), if any
let target = null;    // morris: where the stone goes, when the move still removes one ("r,c")

function positionInURL() {
  // No position asked for: where the table opens (its start, or for a table without one
  // a position of its own, `opening_note` saying so).
  return new URLSearchParams(location.search).get("position") || (info && info.opening) || "empty";
}

function shareable(position) {
  // `/` and `,` are fine in a query string and keep the URL readable.
  return encodeURIComponent(position).replace(/%2F/g, "/").replace(/%2C/g, ",");
}

async function show(position) {
  selected = null;
  target = null;
  // A note on the best line stays only while that line is on the board.
  if (!playing) $("line-note").hidden = true;
  try {
    current = await getJSON(`/api/${encodeURIComponent(tableName)}/${encodeURIComponent(position)}`);
    // The value history: each step of the trail keeps the value of the position it led to.
    const step = trail[trail.length - 1];
    if (step && step.position === position) {
      step.words = answerInWords(current);
      step.result = current.result || "";
    }
    $("error").hidden = true;
    $("position-error").hidden = true;
    render();
  } catch (e) {
    // The text stays in the box, to be mended, with what is wrong with it beside it.
    $("position-input").value = position;
    $("position-error").textContent = e.message;
    $("position-error").hidden = false;
    showError(e.message);
  }
}

// The moves played on this page, from the position it opened on: [{name, position}].
// The browser's history holds the same steps, so undo is going back.
let trail = [];

// Play a move (or jump to a position): a new history entry, then the new position.
async function go(position, name) {
  history.pushState(null, "", `?position=${shareable(position)}`);
  trail.push({ name: name || position, position });
  await show(position);
}

function undo() {
  stop();
  if (trail.length > 1) history.back();
}

// The history list: each step a button back to where it led, and the value there (the
// line's value history, ply by ply).
function renderTrail() {
  const list = $("history");
  list.replaceChildren();
  trail.forEach((step, i) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = i === 0 ? `start: ${step.position}` : step.name;
    button.title = step.position;
    button.onclick = () => { stop(); if (i < trail.length - 1) history.go(i - (trail.length - 1)); };
    item.append(button);
    if (step.words) {
      const value = document.createElement("span");
      value.className = `value ${step.result}`;
      value.textContent = step.words;
      item.append(" ", value);
    }
    list.append(item);
  });
  $("undo").disabled = trail.length < 2;
}

// What a move does for the side making it: its class (win, tie, draw, loss: the colour)
// and its words. Games with results say them per move (`result`, `remoteness`); for
// twins it is the final scores, for young the lead over the stones to come.
function outcome(m, firstToMove) {
  if (m.result !== undefined) {
    const words = m.result === "tie" || m.result === "draw" ? m.result : `${m.result} in ${m.remoteness}`;
    return { cls: m.result, words };
  }
  if (info.game === "twins") {
    const total = [...info.spec.vert, ...info.spec.horiz].reduce((a, b) => a + b, 0);
    const mine = firstToMove ? m.value : total - m.value, theirs = total - mine;
    const words = mine === theirs ? `tie (${mine} each)` : `${mine > theirs ? "win" : "loss"} by ${Math.abs(mine - theirs)} (${mine} to ${theirs})`;
    return { cls: mine > theirs ? "win" : mine === theirs ? "tie" : "loss", words };
  }
  // Young: the value is first's lead over the stones to come, this move's included.
  const lead = firstToMove ? m.value : -m.value;
  const who = m.value > 0 ? "first" : "second";
  return { cls: lead > 0 ? "win" : lead === 0 ? "tie" : "loss",
           words: m.value === 0 ? "level" : `${who} leads by ${Math.abs(m.value)}` };
}

// The games this page knows by name; a game from another crate (Hex) is described from its
// answers' `result` and `remoteness`.
const KNOWN = ["young", "twins", "mnk", "connect", "teeko", "quixo", "morris"];

// A position's value in words: a finished game names its winner; a game this page does not
// know by name is said from the answer's result for the side to move.
function answerInWords(a) {
  if (a.moves.length === 0 && a.winner) return `${a.winner} has won`;
  if (KNOWN.includes(info.game) || a.result === undefined) return valueInWords(info, stored(a));
  const side = a.to_move === "first" ? "x" : "o";
  switch (a.result) {
    case "win": return `${side} to move wins in ${a.remoteness}`;
    case "loss": return `${side} to move loses in ${a.remoteness}`;
    case "tie": return "tie with best play";
    default: return "draw: neither side can force a win";
  }
}

// What a click does in a game whose stones or cubes move, before the first: the page says
// it rather than leaving it to be found.
function howToMove(a) {
  if (info.game === "quixo") {
    return "Click a blank cube or one of yours on the border, then the end of its row or column where it goes back in (the cubes between slide along).";
  }
  if (info.game === "teeko" && a.moves.some((m) => m.from)) {
    return "Click one of your stones, then an empty cell beside it (diagonals too).";
  }
  return "";
}

// Why a cell clicked first cannot start a move (Teeko, Quixo).
function whyNot(a, cell, mark) {
  const [r, c] = cell.split(",").map(Number);
  const mine = a.to_move === "first" ? "x" : "o";
  if (info.game === "quixo") {
    const border = r === 1 || c === 1 || r === info.rows || c === info.cols;
    if (!border) return `${cell} is not on the border: take a cube from the edge.`;
    if (mark !== "." && mark !== mine) return `The cube at ${cell} shows ${mark}: take a blank cube or one of yours.`;
    return `The cube at ${cell} cannot move.`;
  }
  if (mark === ".") return `${cell} is empty: click one of your stones first.`;
  if (mark !== mine) return `${cell} is not one of your stones: you play ${mine}.`;
  return `The stone at ${cell} has no empty cell beside it.`;
}

// How good each move is for the side making it, to sort the list: higher is better.
function goodness(moves, firstToMove) {
  const rank = { win: 2, tie: 1, draw: 1, loss: 0 };
  return moves.map((m) => {
    if (m.result !== undefined) {
      // A faster win, a slower loss.
      const r = m.remoteness || 0;
      return rank[m.result] * 1e6 + (m.result === "win" ? -r : m.result === "loss" ? r : 0);
    }
    return firstToMove || moving(info) ? m.value : -m.value;
  });
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  parent.append(node);
  return node;
}

function text(content, attrs, parent) {
  el("text", attrs, parent).textContent = content;
}

function render() {
  const a = current;
  // A table without a start says what the position it opens on is.
  const opening = info.opening_note && a.position === info.opening;
  $("opening-note").textContent = opening ? `Opening position: ${info.opening_note}.` : "";
  $("opening-note").hidden = !opening;
  const first = a.to_move === "first";
  const good = goodness(a.moves, first);
  // Moves by the cell a click lands on: the stone's cell for a drop; for a move between
  // cells, the cell it comes from until one is selected, then where it goes.
  const byCell = new Map();
  // `best` lists the best moves by their text, as each move's `move` writes it.
  const isBest = (m) => a.best.includes(m.move);
  a.moves.forEach((m, i) => {
    const hit = { move: m, good: good[i], outcome: outcome(m, first), best: isBest(m) };
    const from = m.from ? m.from.join(",") : null;
    if (!from) byCell.set(m.cell.join(","), hit);
    else if (selected === null) {
      // A stone or cube is marked best if one of its moves is.
      const seen = byCell.get(from);
      const best = hit.best || (seen !== undefined && seen.best);
      if (!seen || seen.good < hit.good) byCell.set(from, { ...hit, select: from, best });
      else seen.best = best;
    } else if (selected === from) byCell.set(m.cell.join(","), hit);
  });

  document.title = `${tableName}: ${a.position}`;
  $("position").textContent = a.position;
  $("position-input").value = a.position;
  // Nobody moves on a full board, or where a line has ended the game (mnk, connect).
  const winner = a.winner === undefined ? "" : a.winner === null ? ": a tie" : `: ${a.winner} has won`;
  $("to-move").textContent = a.to_move === "none"
    ? (a.stones === info.rows * info.cols && !a.winner ? `game over: the board is full${winner}` : `game over${winner}`)
    : `${a.to_move} to move` + (info.game === "twins" ? (first ? " (o)" : " (x)") : "")
      + (moving(info) ? (first ? " (x)" : " (o)") + (info.points ? morrisStep(a) : selected ? `: from ${selected}, click where it goes` : "") : "")
      + (!KNOWN.includes(info.game) && a.result !== undefined ? (first ? " (x)" : " (o)") : "");
  $("value").textContent = answerInWords(a);

  const list = $("moves");
  list.replaceChildren();
  const order = a.moves.map((m, i) => i).sort((i, j) => good[j] - good[i]);
  for (const i of order) {
    const m = a.moves[i];
    const best = isBest(m);
    const o = outcome(m, first);
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.cell = m.cell.join(",");
    button.dataset.position = m.position;
    button.dataset.outcome = o.cls;
    button.className = `move ${o.cls}`;
    button.textContent = `${moveName(m)} → ${m.position}   ${o.words}` + (best ? "   ★ best" : "");
    button.title = `${m.value !== undefined ? "value" : "code"} ${stored(m)}: ${valueInWords(info, stored(m))}`;
    button.onclick = () => { stop(); go(m.position, moveName(m)); };
    const item = document.createElement("li");
    if (best) item.className = "best";
    item.append(button);
    list.append(item);
  }
  if (a.moves.length === 0) list.textContent = "none: the game is over";
  renderTrail();

  const svg = $("board");
  svg.replaceChildren();
  ({ young: drawYoung, twins: drawTwins, mnk: drawGrid, connect: drawGrid, morris: drawMorris }[info.game] || drawGrid)(svg, a, byCell);
}

function legalCell(rect, cell, byCell) {
  const hit = byCell.get(cell);
  if (!hit) return;
  rect.classList.add("legal", hit.outcome.cls);
  if (hit.best) rect.classList.add("has-best");
  rect.dataset.cell = cell;
  rect.dataset.outcome = hit.outcome.cls;
  if (hit.select) {
    // The first click of a move between cells: choose the stone or cube, then where it goes.
    rect.onclick = () => { selected = hit.select; render(); };
    return;
  }
  rect.onclick = () => { stop(); go(hit.move.position, moveName(hit.move)); };
  const title = document.createElementNS(SVG, "title");
  title.textContent = `${moveName(hit.move)}: ${hit.outcome.words}`;
  rect.append(title);
}

// Young: the staircase of stones; the cells where a stone may go are coloured by what
// the move does for the mover. Each cell shows its weights: first's a on top (blue),
// second's b below (red), the cell as wide as the longest weight needs.
function drawYoung(svg, a, byCell) {
  const { rows, cols, spec: weights } = info;
  const digits = Math.max(...[...weights.a, ...weights.b].map((w) => String(w).length));
  const S = Math.max(44, 8 * digits + 14), pad = 8;
  const lengths = a.position.split(",").map(Number);
  svg.setAttribute("width", cols * S + 2 * pad);
  svg.setAttribute("height", rows * S + 2 * pad);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const x = pad + j * S, y = pad + i * S;
      const stone = j < (lengths[i] || 0);
      const rect = el("rect", { x, y, width: S, height: S, class: stone ? "cell stone" : "cell" }, svg);
      if (!stone) legalCell(rect, `${i + 1},${j + 1}`, byCell);
      const k = i * cols + j;
      const shade = stone ? " label" : "";
      text(String(weights.a[k]), { x: x + S / 2, y: y + S * 0.32, class: `weight first${shade}`, "pointer-events": "none" }, svg);
      text(String(weights.b[k]), { x: x + S / 2, y: y + S * 0.7, class: `weight second${shade}`, "pointer-events": "none" }, svg);
    }
  }
  $("legend").textContent = "In each cell: top, first's weight a (earned by first playing there); bottom, second's weight b.";
}

// Twins: o and x in the cells; between two cells, the pair's weight, its line
// coloured once the pair is decided (blue: first's, red: second's).
function drawTwins(svg, a, byCell) {
  const { rows, cols, spec: weights } = info;
  const S = 76, C = 48, pad = 10;
  const marks = a.position.split("/");
  const at = (i, j) => marks[i][j];
  svg.setAttribute("width", (cols - 1) * S + C + 2 * pad);
  svg.setAttribute("height", (rows - 1) * S + C + 2 * pad);
  const centre = (i, j) => [pad + j * S + C / 2, pad + i * S + C / 2];
  const pair = (i1, j1, i2, j2, w) => {
    const [x1, y1] = centre(i1, j1), [x2, y2] = centre(i2, j2);
    const p = at(i1, j1), q = at(i2, j2);
    const cls = p === "." || q === "." ? "pair-open" : p === q ? "pair-first" : "pair-second";
    el("line", { x1, y1, x2, y2, class: cls }, svg);
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    el("rect", { x: mx - 11, y: my - 8, width: 22, height: 16, fill: "#fff" }, svg);
    text(String(w), { x: mx, y: my, class: "weight" }, svg);
  };
  $("legend").textContent = "Between two cells, their pair's weight: once both are filled it goes to first (blue line) if the marks match, to second (red line) if they differ.";
  for (let i = 0; i + 1 < rows; i++) for (let j = 0; j < cols; j++) pair(i, j, i + 1, j, weights.vert[i * cols + j]);
  for (let i = 0; i < rows; i++) for (let j = 0; j + 1 < cols; j++) pair(i, j, i, j + 1, weights.horiz[i * (cols - 1) + j]);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const rect = el("rect", { x: pad + j * S, y: pad + i * S, width: C, height: C, class: "cell" }, svg);
      const m = at(i, j);
      if (m === ".") legalCell(rect, `${i + 1},${j + 1}`, byCell);
      else text(m, { x: centre(i, j)[0], y: centre(i, j)[1], class: `mark ${m}` }, svg);
    }
  }
}

// A plain grid of marks (mnk, connect): rows of the position's notation, empty cells
// playable. Connect's moves choose a column: its numbers are drawn above the grid and a
// click anywhere in a column plays there (the coloured cell is where the stone lands).
function drawGrid(svg, a, byCell) {
  const { rows, cols } = info;
  const S = 56, C = 48, pad = 10;
  const how = selected === null && a.moves.length ? howToMove(a) : "";
  $("legend").textContent = a.winning_line && a.winning_line.length ? "The winning line is marked." : how;
  // Column numbers above the grid; row numbers beside it where moves name cells (connect's
  // name columns). Hex's rows each sit half a cell right of the one above: a rhombus.
  const top = 24;
  const left = info.game === "connect" ? 0 : 24;
  const shift = info.game === "hex" ? S / 2 : 0;
  const x0 = (i, j) => left + pad + j * S + i * shift, y0 = (i) => top + pad + i * S;
  // Teeko and Quixo put the side to move after the grid (`:x`).
  const marks = a.position.split(":")[0].split("/");
  svg.setAttribute("width", (cols - 1) * S + C + 2 * pad + left + (rows - 1) * shift);
  svg.setAttribute("height", (rows - 1) * S + C + 2 * pad + top);
  for (let j = 0; j < cols; j++) text(String(j + 1), { x: x0(0, j) + C / 2, y: pad + 8, class: "weight label-col" }, svg);
  if (left) for (let i = 0; i < rows; i++) text(String(i + 1), { x: x0(i, 0) - 14, y: y0(i) + C / 2, class: "weight label-row" }, svg);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const rect = el("rect", { x: x0(i, j), y: y0(i), width: C, height: C, class: "cell" }, svg);
      const m = marks[i][j];
      const cell = `${i + 1},${j + 1}`;
      // Any cell may start or end a move in a moving game: a stone that slides, a cube
      // pushed, an occupied end a cube goes back in at.
      if (m === "." || moving(info)) legalCell(rect, cell, byCell);
      if (moving(info) && selected === null && !byCell.has(cell) && a.moves.length && a.moves[0].from) {
        // A stone or cube that cannot start a move says why.
        rect.onclick = () => { $("legend").textContent = whyNot(a, cell, m); };
      }
      if (cell === selected) rect.classList.add("selected");
      if ((a.winning_line || []).some(([r, c]) => r === i + 1 && c === j + 1)) rect.classList.add("won");
      if (m !== ".") text(m, { x: x0(i, j) + C / 2, y: y0(i) + C / 2, class: `mark ${m}`, "pointer-events": "none" }, svg);
      if (rect.classList.contains("has-best")) text("★", { x: x0(i, j) + C - 8, y: y0(i) + 9, class: "best-mark", "pointer-events": "none" }, svg);
    }
  }
  if (selected) {
    // A click outside the targets puts the stone back.
    svg.onclick = (e) => { if (!e.target.classList.contains("legal")) { selected = null; render(); } };
  } else svg.onclick = null;
  if (info.game !== "connect") return;
  for (let j = 0; j < cols; j++) {
    const hit = [...byCell.values()].find((h) => h.move.column === j + 1);
    if (!hit) continue;
    const column = el("rect", { x: pad + j * S, y: top + pad, width: C, height: (rows - 1) * S + C,
                                class: "column", "data-column": j + 1 }, svg);
    column.onclick = () => { stop(); go(hit.move.position, moveName(hit.move)); };
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${moveName(hit.move)}: ${hit.outcome.words}`;
    column.append(title);
  }
}

// Morris: what the next click does, in words.
function morrisStep(a) {
  const hands = a.in_hand ? `; in hand x ${a.in_hand.x}, o ${a.in_hand.o}` : "";
  if (target) {
    // The stones the move may take, as `play` names them.
    const takes = a.moves
      .filter((m) => m.take && m.cell.join(",") === target && (!selected || (m.from && m.from.join(",") === selected)))
      .map((m) => pointName(m.take.join(",")));
    return `${hands}: to ${pointName(target)} closes a mill, so it takes one of the other side's stones: click one of ${takes.join(", ")}`;
  }
  if (selected) return `${hands}: from ${pointName(selected)}, click where it goes`;
  return hands;
}

// A point's name (`d2`) from its cell ("r,c"): files a.. from the left, ranks from the
// bottom, as morris writes its moves.
function pointName(cell) {
  const [r, c] = cell.split(",").map(Number);
  const size = Math.max(...info.points.map((p) => p[0]));
  return String.fromCharCode(96 + c) + (size + 1 - r);
}

// Morris: the board's points and lines; a move is one to three clicks: the stone to move
// (unless it comes from the hand), where it goes, and the stone it removes if it closes a
// mill. The points a click may choose are coloured by the best of the moves it leads to.
function drawMorris(svg, a) {
  const S = 56, R = 17, pad = 30;
  const size = Math.max(...info.points.map((p) => p[0]));
  const at = ([r, c]) => [pad + (c - 1) * S, pad + (r - 1) * S];
  const key = (cell) => (cell ? cell.join(",") : null);
  const first = a.to_move === "first";
  const good = goodness(a.moves, first);
  // The moves still open after the clicks made, and what the next click chooses in each.
  const open = a.moves.map((m, i) => ({ m, i })).filter(({ m }) =>
    (!selected || key(m.from) === selected) && (!target || key(m.cell) === target));
  const next = ({ m }) => (!selected && m.from ? key(m.from) : !target ? key(m.cell) : key(m.take));
  const hits = new Map();
  for (const o of open) {
    const cell = next(o);
    const seen = hits.get(cell);
    if (!seen || good[seen[0].i] < good[o.i]) hits.set(cell, [o, ...(seen || [])]);
    else seen.push(o);
  }
  $("legend").textContent = a.moves.some((m) => m.take) ? "A move that closes a mill takes one of the other side's stones: click the point it goes to, then the stone it takes." : "";
  const marks = a.position.trim().split(/\s+/).slice(0, -3).join("").replace(/\//g, "");
  svg.setAttribute("width", (size - 1) * S + 2 * pad);
  // Room below the bottom row for the file letters, descenders (g) included.
  svg.setAttribute("height", (size - 1) * S + 2 * pad + 14);
  for (const [i, j] of info.links) {
    const [x1, y1] = at(info.points[i]), [x2, y2] = at(info.points[j]);
    el("line", { x1, y1, x2, y2, class: "link" }, svg);
  }
  for (let c = 1; c <= size; c++) {
    text(String.fromCharCode(96 + c), { x: at([size, c])[0], y: at([size, c])[1] + 26, class: "weight" }, svg);
    text(String(size + 1 - c), { x: at([c, 1])[0] - 22, y: at([c, 1])[1], class: "weight" }, svg);
  }
  info.points.forEach((p, n) => {
    const [x, y] = at(p);
    const cell = p.join(",");
    const dot = el("circle", { cx: x, cy: y, r: R, class: "cell point" }, svg);
    dot.dataset.point = pointName(cell);
    const hit = hits.get(cell);
    if (hit) {
      const best = hit[0];
      const o = outcome(best.m, first);
      dot.classList.add("legal", o.cls);
      dot.dataset.cell = cell;
      dot.dataset.outcome = o.cls;
      const title = document.createElementNS(SVG, "title");
      title.textContent = `${hit.length === 1 ? moveName(best.m) : pointName(cell)}: best ${moveName(best.m)}, ${o.words}`;
      dot.append(title);
      dot.onclick = (e) => {
        e.stopPropagation();
        // One move left through this point: play it; else this click narrows them.
        const moves = new Set(hit.map((h) => h.m));
        if (moves.size === 1) { stop(); go(best.m.position, moveName(best.m)); return; }
        if (!selected && best.m.from && !target && cell === key(best.m.from)) selected = cell;
        else target = cell;
        render();
      };
    }
    if (cell === selected || cell === target) dot.classList.add("selected");
    const m = marks[n];
    if (m === "x" || m === "o") text(m, { x, y, class: `mark ${m}`, "pointer-events": "none" }, svg);
  });
  // A click beside the points takes the clicks back.
  svg.onclick = selected || target ? () => { selected = null; target = null; render(); } : null;
}

function stop() {
  playing = false;
  $("play-pv").textContent = "Play the best line";
}

// Follow the best line the server gave, one step every half second, until play ends or,
// in a drawn game whose positions repeat, until the line comes back to a position it has
// been at: its last step then says which (`note`: "the position after ply 6 repeats ply 2:
// a draw"), and so does the page.
async function playBestLine() {
  if (playing) return stop();
  playing = true;
  $("play-pv").textContent = "Stop";
  $("line-note").hidden = true;
  const line = (current && current.pv) || [];
  for (const step of line) {
    if (!playing) break;
    await go(step.position, moveName(step));
    await new Promise((r) => setTimeout(r, 500));
  }
  const last = line[line.length - 1];
  if (playing && last && last.note) {
    $("line-note").textContent = `The best line goes round: ${last.note}.`;
    $("line-note").hidden = false;
  }
  stop();
}

async function explore() {
  $("name").textContent = tableName;
  try {
    info = (await getJSON("/api/tables")).find((t) => t.name === tableName);
  } catch (e) {
    return showError(e.message);
  }
  if (!info) return showError(`no table named ${tableName}`);
  $("board-info").textContent = `${info.game}, ${info.board_words}`;
  if (info.opening_note) $("start").textContent = "Opening position";
  $("start").onclick = () => { stop(); go(info.opening || "empty", info.opening_note ? "opening position" : "empty board"); };
  $("play-pv").onclick = playBestLine;
  $("undo").onclick = undo;
  $("position-form").onsubmit = (e) => {
    e.preventDefault();
    stop();
    const typed = $("position-input").value.trim();
    if (typed) go(typed, `typed ${typed}`);
  };
  window.addEventListener("popstate", () => {
    stop();
    const position = positionInURL();
    // Back (or undo) returns to a step of the trail; anything else starts a new one.
    let at = -1;
    for (let i = trail.length - 1; i >= 0; i--) if (trail[i].position === position) { at = i; break; }
    trail = at >= 0 ? trail.slice(0, at + 1) : [{ name: position, position }];
    show(position);
  });
  trail = [{ name: positionInURL(), position: positionInURL() }];
  await show(positionInURL());
}

(document.getElementById("tables") ? listTables() : explore()).catch((e) => showError(e.message));

// The replay of a game: draws the positions the server read from the game's PDN (with the rules engine), one at a
// time. First, previous, next and last buttons; the arrow keys, Home and End do the same. A reviewed game also gets its
// evaluation graph: Black's expected score at every position (up is good for Black), the inaccuracies, mistakes and
// blunders marked on the position they led to; a click on a point shows that position. A game still being played opens
// on its newest position and follows it: the page asks for the game again every few seconds and adds the new moves
// (staying on the newest position if it was there), until the game ends.
"use strict";
(function () {
  let data = JSON.parse(document.getElementById("game-data").textContent);
  const replay = data.replay;
  let positions = replay.positions;
  const size = replay.size;
  const FOLLOW_EVERY = 3000;
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const moveList = document.getElementById("moves");
  const buttons = {
    first: document.getElementById("first"),
    prev: document.getElementById("prev"),
    next: document.getElementById("next"),
    last: document.getElementById("last"),
  };
  let ply = 0;

  board.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
  const squares = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const cell = document.createElement("div");
      const number = replay.numbers[row][col];
      cell.className = "sq " + (number === null ? "light" : "dark");
      if (number !== null) {
        cell.dataset.square = String(number);
        const label = document.createElement("span");
        label.className = "num";
        label.textContent = String(number);
        cell.appendChild(label);
      }
      board.appendChild(cell);
      squares.push(cell);
    }
  }

  // the move list: one entry per ply, numbered by full moves
  const moveItems = [];
  function listMoves() {
    moveList.textContent = "";
    moveItems.length = 0;
    for (let i = 1; i < positions.length; i++) {
      const p = positions[i];
      const span = document.createElement("span");
      span.className = "mv";
      span.textContent = p.move;
      span.dataset.ply = String(i);
      span.addEventListener("click", () => show(i));
      moveItems.push(span);
      if (i % 2 === 0 && moveList.lastChild) {
        moveList.lastChild.appendChild(span);
      } else {
        const li = document.createElement("li");
        li.appendChild(span);
        li.value = Math.ceil(i / 2);
        moveList.appendChild(li);
      }
    }
  }
  listMoves();

  function show(target) {
    ply = Math.max(0, Math.min(positions.length - 1, target));
    const p = positions[ply];
    const path = new Set(p.path);
    const taken = new Set(p.captures);
    for (let i = 0; i < squares.length; i++) {
      const cell = squares[i];
      const symbol = p.cells[i];
      const old = cell.querySelector(".piece");
      if (old) old.remove();
      const number = Number(cell.dataset.square || 0);
      cell.classList.toggle("trail", path.has(number));
      cell.classList.toggle("taken", taken.has(number));
      cell.dataset.piece = symbol === " " || symbol === "." ? "" : symbol;
      if (cell.dataset.piece) {
        const piece = document.createElement("div");
        const king = symbol === "B" || symbol === "W";
        piece.className = "piece " + (symbol.toLowerCase() === "b" ? "black" : "white") + (king ? " king" : "");
        piece.textContent = king ? "♛" : "";
        cell.appendChild(piece);
      }
    }
    board.dataset.ply = String(ply);
    board.setAttribute("aria-label", `position after ${ply} moves: ${p.fen}`);
    const total = positions.length - 1;
    status.textContent = ply === 0
      ? `Start position (0 of ${total})`
      : `Move ${ply} of ${total}: ${p.mover} played ${p.move}` + (ply === total && data.end ? ` · ${data.end}` : "")
        + (ply === total && data.live ? " · being played" : "");
    moveItems.forEach((item, index) => item.classList.toggle("current", index + 1 === ply));
    const current = moveItems[ply - 1];
    if (current) {
      const top = current.offsetTop - moveList.clientHeight / 2;
      moveList.scrollTop = Math.max(0, top);
    } else {
      moveList.scrollTop = 0;
    }
    graphPoints.forEach((point, index) => point.classList.toggle("current", index === ply));
    buttons.first.disabled = buttons.prev.disabled = ply === 0;
    buttons.next.disabled = buttons.last.disabled = ply === total;
  }

  // the evaluation graph, when the game has a review
  const graphPoints = [];
  if (data.review) {
    const SVG = "http://www.w3.org/2000/svg";
    const width = 320, height = 120, pad = 6;
    const evals = data.review.positions;
    const judged = {};
    data.review.moves.forEach((m) => { judged[m.ply] = m; });
    const x = (i) => pad + (evals.length > 1 ? i * (width - 2 * pad) / (evals.length - 1) : (width - 2 * pad) / 2);
    const y = (value) => pad + (1 - value) * (height - 2 * pad);
    const element = (name, attributes, parent) => {
      const node = document.createElementNS(SVG, name);
      Object.entries(attributes).forEach(([key, value]) => node.setAttribute(key, String(value)));
      parent.appendChild(node);
      return node;
    };
    const graph = document.getElementById("graph");
    graph.textContent = "";
    const svg = element("svg", {viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": "evaluation graph: Black's expected score after each move"}, graph);
    element("rect", {class: "area", x: 0, y: 0, width, height}, svg);
    element("line", {class: "even", x1: pad, x2: width - pad, y1: y(0.5), y2: y(0.5)}, svg);
    element("polyline", {class: "curve", points: evals.map((e, i) => `${x(i)},${y(e.expected)}`).join(" ")}, svg);
    evals.forEach((e, i) => {
      const move = judged[e.ply];
      const mark = move && ["inaccuracy", "mistake", "blunder"].includes(move.judgement) ? move.judgement : "";
      const point = element("circle", {class: `point ${mark}`.trim(), cx: x(i), cy: y(e.expected),
        r: mark === "blunder" ? 5 : mark ? 4 : 2.5, "data-ply": e.ply}, svg);
      const title = document.createElementNS(SVG, "title");
      const what = move ? `Move ${Math.ceil(e.ply / 2)}: ${move.move}${mark ? ` (${mark})` : ""}` : "Start";
      title.textContent = `${what} · Black ${Math.round(e.expected * 100)}%`;
      point.appendChild(title);
      point.addEventListener("click", () => show(e.ply));
      graphPoints.push(point);
    });
    const legend = document.createElement("p");
    legend.className = "legend";
    const accuracy = (p) => p.accuracy === null ? "–" : `${p.accuracy.toFixed(1)}%`;
    legend.textContent = `Black's expected score · accuracy: Black ${accuracy(data.review.black)}, ` +
      `White ${accuracy(data.review.white)} · red: blunders`;
    graph.appendChild(legend);
  }

  buttons.first.addEventListener("click", () => show(0));
  buttons.prev.addEventListener("click", () => show(ply - 1));
  buttons.next.addEventListener("click", () => show(ply + 1));
  buttons.last.addEventListener("click", () => show(positions.length - 1));
  document.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: positions.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  show(data.live ? positions.length - 1 : 0);

  // a game being played: follow it
  async function follow() {
    try {
      const response = await fetch(`./${encodeURIComponent(data.id)}.json`, {cache: "no-store"});
      if (response.ok) {
        const fresh = await response.json();
        if (fresh.version !== data.version) {
          const newest = ply === positions.length - 1;
          data = fresh;
          positions = fresh.replay.positions;
          listMoves();
          document.getElementById("end").textContent = fresh.end || "";
          document.getElementById("result").textContent = fresh.result || "*";
          document.getElementById("pdn").textContent = fresh.pdn;
          show(newest ? positions.length - 1 : ply);
        }
        if (!fresh.live) return;
      }
    } catch (error) {
      // not reachable now: ask again later
    }
    setTimeout(follow, FOLLOW_EVERY);
  }
  if (data.live) setTimeout(follow, FOLLOW_EVERY);
})();

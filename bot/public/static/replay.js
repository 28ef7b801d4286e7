// The replay of a finished game: draws the positions the server read from the game's PDN (with the rules engine),
// one at a time. First, previous, next and last buttons; the arrow keys, Home and End do the same.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const replay = data.replay;
  const positions = replay.positions;
  const size = replay.size;
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
  for (let i = 1; i < positions.length; i++) {
    const p = positions[i];
    const span = document.createElement("span");
    span.className = "mv";
    span.textContent = p.move;
    span.dataset.ply = String(i);
    span.addEventListener("click", () => show(i));
    moveItems.push(span);
    const li = document.createElement("li");
    li.appendChild(span);
    li.value = Math.ceil(i / 2);
    if (i % 2 === 0 && moveList.lastChild) {
      moveList.lastChild.appendChild(span);
    } else {
      moveList.appendChild(li);
    }
  }

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
      : `Move ${ply} of ${total}: ${p.mover} played ${p.move}` + (ply === total && data.end ? ` · ${data.end}` : "");
    moveItems.forEach((item, index) => item.classList.toggle("current", index + 1 === ply));
    const current = moveItems[ply - 1];
    if (current) {
      const top = current.offsetTop - moveList.clientHeight / 2;
      moveList.scrollTop = Math.max(0, top);
    } else {
      moveList.scrollTop = 0;
    }
    buttons.first.disabled = buttons.prev.disabled = ply === 0;
    buttons.next.disabled = buttons.last.disabled = ply === total;
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
  show(0);
})();

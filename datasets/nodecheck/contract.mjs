// The dataset contract (docs/format.md) as the outside-reader checks test
// it, written once in JavaScript from the page and shared by every reader's
// check (check.mjs with DuckDB, hypcheck.mjs with hyparquet): the planes of
// a FEN, the policy index of a move (checked against the page's examples),
// the flags of a best move, and the file metadata; for chess (§1, §2) and
// for Italian draughts (§1d, §2d: a dataset whose expect.json says
// "game": "dama").

import { readFileSync } from 'node:fs';

// The required columns, in order (docs/format.md, "Columns").
export const requiredColumns = ['game_id', 'ply', 'fen', 'planes', 'move', 'best_move', 'policy', 'score_cp', 'result'];

// Failures counts what check found wrong and prints each.
export class Failures {
  constructor(reader) {
    this.reader = reader;
    this.count = 0;
  }

  // check records a failure described by what unless ok.
  check(ok, what) {
    if (!ok) {
      this.count++;
      console.error(`nodecheck (${this.reader}): FAIL: ${what}`);
    }
    return ok;
  }
}

// planesFromFEN returns the 18x8x8 planes of a position, flat in C order,
// with plane 12 (repetitions, which needs the game's history) left 0.
export function planesFromFEN(fen) {
  const p = new Float32Array(1152);
  const [place, side, castle, ep, half] = fen.split(' ');
  let r = 7, f = 0;
  for (const ch of place) {
    if (ch === '/') { r--; f = 0; continue; }
    if (ch >= '1' && ch <= '8') { f += Number(ch); continue; }
    p['PNBRQKpnbrqk'.indexOf(ch) * 64 + r * 8 + f] = 1;
    f++;
  }
  const whole = (plane, v) => p.fill(v, plane * 64, plane * 64 + 64);
  if (side === 'w') whole(13, 1);
  whole(14, (castle.includes('K') + castle.includes('Q')) / 2);
  whole(15, (castle.includes('k') + castle.includes('q')) / 2);
  if (ep !== '-') p[16 * 64 + square(ep)] = 1;
  whole(17, Math.min(Math.fround(Number(half) / 100), 1));
  return p;
}

// square returns the index (rank*8 + file) of a square such as "e4".
function square(s) {
  return (s.charCodeAt(1) - 49) * 8 + (s.charCodeAt(0) - 97);
}

const uciMove = /^[a-h][1-8][a-h][1-8][nbrq]?$/;

// Queen-like directions (dfile, drank) in index order: N NE E SE S SW W NW.
const directions = [[0, 1], [1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1]];
// Knight moves (dfile, drank) in index order.
const knightMoves = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];

// policyIndex returns the 73x8x8 policy index of a UCI move, or -1 for a
// move no piece can make.
export function policyIndex(uci) {
  if (!uciMove.test(uci)) return -1;
  const from = square(uci.slice(0, 2)), to = square(uci.slice(2, 4));
  const df = (to % 8) - (from % 8), dr = Math.floor(to / 8) - Math.floor(from / 8);
  const promo = uci[4];
  if (promo && promo !== 'q') {
    if (Math.abs(df) > 1) return -1;
    return (64 + 'nbr'.indexOf(promo) * 3 + df + 1) * 64 + from;
  }
  const k = knightMoves.findIndex(([f, r]) => f === df && r === dr);
  if (k >= 0) return (56 + k) * 64 + from;
  const dist = Math.max(Math.abs(df), Math.abs(dr));
  if (dist === 0 || (df !== 0 && dr !== 0 && Math.abs(df) !== Math.abs(dr))) return -1;
  const dir = directions.findIndex(([f, r]) => f === Math.sign(df) && r === Math.sign(dr));
  return (dir * 7 + dist - 1) * 64 + from;
}

// bestFlags returns whether a move from a position captures (en passant
// included) and whether it promotes.
export function bestFlags(fen, uci) {
  const planes = planesFromFEN(fen);
  const to = square(uci.slice(2, 4)), from = square(uci.slice(0, 2));
  let occupied = false, pawn = false;
  for (let piece = 0; piece < 12; piece++) {
    occupied ||= planes[piece * 64 + to] === 1;
    pawn ||= (piece === 0 || piece === 6) && planes[piece * 64 + from] === 1;
  }
  const enPassant = pawn && planes[16 * 64 + to] === 1;
  return { capture: occupied || enPassant, promotion: uci.length === 5 };
}

// The planes values per row of each game.
export const planesSize = { chess: 1152, dama: 448 };

// damaGrid returns the grid index r*8 + f of draughts square n (1-32):
// squares 1-4 on rank 8 at files a, c, e, g, 5-8 on rank 7 at b, d, f, h, ...
function damaGrid(n) {
  const row = Math.floor((n - 1) / 4);
  return (7 - row) * 8 + 2 * ((n - 1) % 4) + (row % 2);
}

// damaPieces returns the pieces of a PDN FEN: a map from square number to
// 'w', 'W' (king), 'b' or 'B', and the side to move.
function damaPieces(fen) {
  const [side, ...fields] = fen.split(':');
  const pieces = new Map();
  for (const field of fields) {
    const color = field[0] === 'W' ? 'w' : 'b';
    for (let item of field.slice(1).split(',').filter((x) => x)) {
      const king = item.startsWith('K');
      if (king) item = item.slice(1);
      const [lo, hi] = item.split('-').map(Number);
      for (let n = lo; n <= (hi || lo); n++) pieces.set(n, king ? color.toUpperCase() : color);
    }
  }
  return { side, pieces };
}

// damaPlanesFromFEN returns the 7x8x8 draughts planes of a PDN FEN, with
// planes 4 (repetitions) and 6 (quiet plies), which need the game's
// history, left 0.
export function damaPlanesFromFEN(fen) {
  const p = new Float32Array(448);
  const { side, pieces } = damaPieces(fen);
  for (const [n, piece] of pieces) p['wWbB'.indexOf(piece) * 64 + damaGrid(n)] = 1;
  if (side === 'W') p.fill(1, 5 * 64, 6 * 64);
  return p;
}

const damaMove = /^\d+(-\d+|(x\d+)+)$/;
const diagonal = [[1, 1], [1, -1], [-1, -1], [-1, 1]]; // NE SE SW NW as (df, dr)

// damaPolicyIndex returns the 200x8x8 policy index of a draughts move in
// standard notation ("22-18", "27x18x9"), or -1.
export function damaPolicyIndex(move) {
  if (!damaMove.test(move)) return -1;
  const sq = move.split(/[-x]/).map((n) => damaGrid(Number(n)));
  const from = sq[0];
  const df = (sq[1] % 8) - (from % 8), dr = Math.floor(sq[1] / 8) - Math.floor(from / 8);
  if (move.includes('-')) {
    const d = diagonal.findIndex(([x, y]) => x === df && y === dr);
    return d < 0 ? -1 : d * 64 + from;
  }
  const d = diagonal.findIndex(([x, y]) => 2 * x === df && 2 * y === dr);
  const last = sq[sq.length - 1];
  const ef = (last % 8) - (from % 8), er = Math.floor(last / 8) - Math.floor(from / 8);
  if (d < 0) return -1;
  return (4 + d * 49 + (er / 2 + 3) * 7 + (ef / 2 + 3)) * 64 + from;
}

// damaFlags returns whether a draughts move captures and whether it crowns
// a man (a man ending on the far row: 1-4 for White, 29-32 for Black).
export function damaFlags(fen, move) {
  const { pieces } = damaPieces(fen);
  const sq = move.split(/[-x]/).map(Number);
  const piece = pieces.get(sq[0]), to = sq[sq.length - 1];
  const crowns = (piece === 'w' && to <= 4) || (piece === 'b' && to >= 29);
  return { capture: move.includes('x'), promotion: crowns };
}

// checkDamaRow checks a draughts row as checkRow does a chess one: planes
// 0-3 and 5 bit for bit against the FEN, planes 4 (repetitions: 0, 0.5 or
// 1) and 6 (quiet plies: k/80 for a whole k below 80) each one valid value
// over the whole plane, the moves and the policy index. It returns whether
// the repetition plane is set.
function checkDamaRow(f, row) {
  const want = damaPlanesFromFEN(row.fen);
  const got = row.planes;
  f.check(got.length === 448, `${row.fen}: ${got.length} planes values, want 448`);
  const rep = got[4 * 64], quiet = Math.fround(got[6 * 64]);
  f.check([0, 0.5, 1].includes(rep), `${row.fen}: repetition plane ${rep}`);
  const k = Math.round(quiet * 80);
  f.check(k >= 0 && k < 80 && Math.fround(k / 80) === quiet, `${row.fen}: quiet plane ${quiet}`);
  for (let i = 0; i < 448; i++) {
    const plane = Math.floor(i / 64);
    const w = plane === 4 ? rep : plane === 6 ? quiet : want[i];
    if (!f.check(Math.fround(got[i]) === w, `${row.fen}: plane ${plane} square ${i % 64} is ${got[i]}, want ${w}`)) break;
  }
  f.check(damaMove.test(row.move), `${row.fen}: move ${row.move} is not draughts notation`);
  f.check(damaMove.test(row.best_move), `${row.fen}: best move ${row.best_move} is not draughts notation`);
  const policy = damaPolicyIndex(row.best_move);
  f.check(Number(row.policy) === policy, `${row.fen}: policy ${row.policy}, best move ${row.best_move} has index ${policy}`);
  return rep !== 0;
}

// bestFlagsOf returns bestFlags or damaFlags, by game.
export function bestFlagsOf(game, fen, move) {
  return game === 'dama' ? damaFlags(fen, move) : bestFlags(fen, move);
}

// checkRow checks a row's planes against its FEN, bit for bit but for the
// repetition plane (one value of 0, 0.5 or 1 over the whole plane), and its
// moves and policy index, by the game's layout (chess when game is
// absent). It returns whether the repetition plane is set.
export function checkRow(f, row, game) {
  if (game === 'dama') return checkDamaRow(f, row);
  const want = planesFromFEN(row.fen);
  const got = row.planes;
  f.check(got.length === 1152, `${row.fen}: ${got.length} planes values, want 1152`);
  const rep = got[12 * 64];
  f.check([0, 0.5, 1].includes(rep), `${row.fen}: repetition plane ${rep}`);
  for (let i = 0; i < 1152; i++) {
    if (Math.floor(i / 64) === 12) {
      if (!f.check(got[i] === rep, `${row.fen}: repetition plane not uniform`)) break;
      continue;
    }
    if (!f.check(Math.fround(got[i]) === want[i], `${row.fen}: plane ${Math.floor(i / 64)} square ${i % 64} is ${got[i]}, want ${want[i]}`)) break;
  }
  f.check(uciMove.test(row.move), `${row.fen}: move ${row.move} is not UCI`);
  f.check(uciMove.test(row.best_move), `${row.fen}: best move ${row.best_move} is not UCI`);
  const policy = policyIndex(row.best_move);
  f.check(Number(row.policy) === policy, `${row.fen}: policy ${row.policy}, best move ${row.best_move} has index ${policy}`);
  return rep !== 0;
}

// checkMetadata checks a file's key-value metadata, given as an object.
export function checkMetadata(f, name, m, expect) {
  const dama = expect.game === 'dama';
  const want = {
    'chessforge.schema_version': '1',
    'chessforge.game': dama ? 'dama' : undefined, // chess files have no such key
    'chessforge.planes': dama ? 'dama-7x8x8-v1' : '18x8x8-v1',
    'chessforge.policy': dama ? 'dama-200x8x8-v1' : '73x8x8-v1',
    'chessforge.format': 'docs/format.md',
  };
  for (const [k, v] of Object.entries(want)) {
    f.check(m[k] === v, `${name}: ${k} is ${m[k]}, want ${v}`);
  }
  f.check(!!m['chessforge.engine_version'], `${name}: no chessforge.engine_version`);
  let cfg = {};
  try { cfg = JSON.parse(m['chessforge.config']); } catch { f.check(false, `${name}: config is not JSON`); }
  f.check(cfg.seed === expect.seed, `${name}: config seed ${cfg.seed}, want ${expect.seed}`);
  f.check(!!m['ARROW:schema'], `${name}: no ARROW:schema`);
}

// checkPageExamples checks policyIndex against the policy examples of
// docs/format.md (which docs/format_test.go checks against the Go encoder),
// under-promotions included, which a small dataset may lack. It returns how
// many examples it checked.
export function checkPageExamples(f) {
  const page = readFileSync(new URL('../../docs/format.md', import.meta.url), 'utf8');
  let n = 0;
  for (const line of page.split('\n')) {
    const m = /^\| `([a-h][1-8][a-h][1-8][nbrq]?)` \| (\d+) \| (\d+) .*\| (\d+) \|$/.exec(line);
    if (!m) continue;
    n++;
    f.check(policyIndex(m[1]) === Number(m[4]), `docs/format.md: ${m[1]} has policy ${m[4]}, policyIndex gives ${policyIndex(m[1])}`);
  }
  f.check(n >= 4, `docs/format.md: ${n} policy examples, want at least 4`);
  let d = 0;
  for (const line of page.split('\n')) {
    const m = /^\| `(\d+[-x][\dx]+)` \| `[WB]:[^`]+` \| (\d+) \| (\d+) .*\| (\d+) \|$/.exec(line);
    if (!m) continue;
    d++;
    f.check(damaPolicyIndex(m[1]) === Number(m[4]), `docs/format.md: ${m[1]} has policy ${m[4]}, damaPolicyIndex gives ${damaPolicyIndex(m[1])}`);
  }
  f.check(d >= 6, `docs/format.md: ${d} draughts policy examples, want at least 6`);
  return n + d;
}

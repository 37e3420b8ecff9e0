// The dataset contract (docs/format.md) as the outside-reader checks test
// it, written once in JavaScript from the page and shared by every reader's
// check (check.mjs with DuckDB, hypcheck.mjs with hyparquet): the planes of
// a FEN, the policy index of a move (checked against the page's examples),
// the flags of a best move, and the file metadata.

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

// checkRow checks a row's planes against its FEN, bit for bit but for the
// repetition plane (one value of 0, 0.5 or 1 over the whole plane), and its
// moves and policy index. It returns whether the repetition plane is set.
export function checkRow(f, row) {
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
  const want = {
    'chessforge.schema_version': '1',
    'chessforge.planes': '18x8x8-v1',
    'chessforge.policy': '73x8x8-v1',
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
  return n;
}

// Reads a chessforge dataset written by the Go code with hyparquet (a
// Parquet reader in plain JavaScript, with hyparquet-compressors for zstd;
// nothing shared with arrow-go or DuckDB) and checks it against the format
// of docs/format.md: every column of every file read whole, the row and
// game counts of expect.json, no nulls, the planes and policy index of every
// row re-derived from its FEN and best move (contract.mjs, shared with
// check.mjs), the best move's flags, each game's result and termination the
// same on all its rows, and the file metadata.
//
//   node hypcheck.mjs DIR     check the dataset in DIR (expect.json beside it)
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Failures, bestFlagsOf, checkMetadata, checkPageExamples, checkRow, requiredColumns } from './contract.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node hypcheck.mjs DIR');
  process.exit(2);
}
const expect = JSON.parse(readFileSync(join(dir, 'expect.json'), 'utf8'));
const f = new Failures('hyparquet');
checkPageExamples(f);

// Parquet types of the required columns; planes is a list of FLOAT.
const physical = ['INT64', 'INT32', 'BYTE_ARRAY', 'FLOAT', 'BYTE_ARRAY', 'BYTE_ARRAY', 'INT32', 'INT32', 'FLOAT'];
// Checks of the columns the writer adds after the required ones.
const extra = {
  in_check: (v) => typeof v === 'boolean',
  best_is_capture: (v) => typeof v === 'boolean',
  best_is_promotion: (v) => typeof v === 'boolean',
  depth: (v) => Number.isInteger(v) && v >= 0,
  nodes: (v) => typeof v === 'bigint' && v >= 0n,
  termination: (v) => typeof v === 'string' && v !== '' && v !== 'unknown',
};

// leafType returns the physical type of a column's leaf (a list's element).
function leafType(node) {
  while (node.children.length > 0) node = node.children[0];
  return node.element.type;
}

let rows = 0, checked = 0, repeated = 0, columns = 0;
const games = new Map(); // game_id -> {result, termination}
for (const name of expect.files) {
  const path = join(dir, name);
  let file, metadata, data;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
    data = await parquetReadObjects({ file, metadata, compressors });
  } catch (e) {
    f.check(false, `${name}: ${e.name}: ${e.message}`);
    continue;
  }
  const schema = parquetSchema(metadata).children;
  const names = schema.map((c) => c.element.name);
  columns = names.length;
  requiredColumns.forEach((col, i) => {
    f.check(names[i] === col, `${name}: column ${i} is ${names[i]}, want ${col}`);
    f.check(schema[i] && leafType(schema[i]) === physical[i], `${name}: column ${col} is ${schema[i] && leafType(schema[i])}, want ${physical[i]}`);
  });
  f.check(data.length === Number(metadata.num_rows), `${name}: read ${data.length} rows, footer says ${metadata.num_rows}`);
  rows += data.length;
  const kv = Object.fromEntries((metadata.key_value_metadata || []).map((x) => [x.key, x.value]));
  checkMetadata(f, name, kv, expect);

  for (const row of data) {
    const nulls = names.filter((col) => row[col] === null || row[col] === undefined);
    if (!f.check(nulls.length === 0, `${name}: ${row.fen}: null in ${nulls}`)) continue;
    f.check(typeof row.game_id === 'bigint' && Number.isInteger(row.ply) && row.ply >= 0, `${row.fen}: game_id ${row.game_id} ply ${row.ply}`);
    f.check(Number.isInteger(row.score_cp) && Math.abs(row.score_cp) <= 32000, `${row.fen}: score_cp ${row.score_cp}`);
    if (expect.game === 'dama') f.check(row.in_check === false, `${row.fen}: a draughts row in check`);
    f.check([0, 0.5, 1].includes(row.result), `${row.fen}: result ${row.result}`);
    if (checkRow(f, row, expect.game)) repeated++;
    for (const [col, ok] of Object.entries(extra)) {
      if (col in row) f.check(ok(row[col]), `${row.fen}: ${col} ${row[col]}`);
    }
    if ('best_is_capture' in row) {
      const want = bestFlagsOf(expect.game, row.fen, row.best_move);
      f.check(row.best_is_capture === want.capture && row.best_is_promotion === want.promotion,
        `${row.fen}: best move ${row.best_move} capture ${row.best_is_capture} promotion ${row.best_is_promotion}, want ${want.capture} ${want.promotion}`);
    }
    const game = games.get(row.game_id);
    if (game) {
      f.check(game.result === row.result && game.termination === row.termination,
        `game ${row.game_id}: result ${row.result} ${row.termination}, earlier rows ${game.result} ${game.termination}`);
    } else {
      games.set(row.game_id, { result: row.result, termination: row.termination });
    }
    checked++;
  }
}
f.check(rows === expect.rows, `row count ${rows}, want ${expect.rows}`);
f.check(games.size === expect.games, `games ${games.size}, want ${expect.games}`);

if (f.count > 0) {
  console.error(`nodecheck: hyparquet: ${f.count} failures`);
  process.exit(1);
}
console.log(`nodecheck: hyparquet read ${rows} rows (all ${columns} columns), ${games.size} games from ${expect.files.length} files; ` +
  `planes and policy of ${checked} rows match their FEN and best move (${repeated} with a repetition); metadata ok`);

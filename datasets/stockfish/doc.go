// Package stockfish writes and reads the training-data formats of
// Stockfish's tools (the tools branch's gensfen, convert and the
// nnue-pytorch and bullet loaders): the .plain text format and the compact
// .binpack format, and converts between them and this project's datasets
// (SPEC §3).
//
// # What an entry holds
//
// Both formats record one entry per position: the position, one move, a
// score, a ply and a result. Following Stockfish's generator, an export
// writes for every dataset row:
//
//   - the position (the row's fen);
//   - the move: the search's best move (best_move), not the move played;
//   - the score: score_cp seen from the side to move (the dataset's is
//     White's view), a mate as ±(32000 − plies) as in both projects;
//   - the ply: the row's ply (half-moves since the game's first position);
//   - the result: the game's result from the side to move, 1, 0 or −1.
//
// # Binpack chains
//
// A binpack file is a sequence of chunks ("BINP", a 32-bit little-endian
// size, then whole chains). A chain is a 32-byte stem (the packed position,
// the move, the score, the ply with the result, the halfmove clock) and a
// count of further plies, each stored as the index of the moving piece among
// the side's pieces and of the move among that piece's destinations, in as
// few bits as the counts need, followed by the score's change in 4-bit
// groups. An entry continues the chain, exactly as in Stockfish's writer,
// when its position is the previous entry's position after the previous
// entry's move, its ply is one more and its result the opposite; this
// package also asks for the halfmove clock the replay gives, so that every
// entry's clock comes back. Because the stored move is the best move, a
// game's rows form one chain while the move played is the best move, and a
// new stem (34 bytes) starts after each position where another move was
// played (self-play's random and MultiPV openings, a write window's start).
// The chunks are cut where Stockfish cuts them (the first chain boundary at
// or past 1 MiB), so this package and Stockfish's writer produce the same
// bytes for the same entries.
//
// # Positions
//
// Stockfish's position keeps an en-passant square only when an en-passant
// capture is legal, and its .plain FENs are written that way; so are this
// package's. A dataset FEN names the square after every double push (SPEC
// §1); an import recovers it for every row reached by a move from the row
// before, that is for all rows but each game's first. A binpack position
// has no fullmove number: Stockfish derives it from the ply as ply/2 + 1,
// and so does an import for a game's first row (exact for games played from
// the start position; later rows follow by replay).
//
// # Import
//
// An import rebuilds a dataset from entries: consecutive entries belong to
// one game when the second is the first's position after one legal move,
// one ply later, with the opposite result; that move is the first row's
// move played. Planes and policy are re-derived by the encoder, replaying
// each game from its first row. What neither format carries comes back as
// follows:
//
//   - game_id: games are numbered 0, 1, 2, ... in file order; a game whose
//     rows have a gap (a dataset written with a write-time score cap, before
//     games were kept whole) comes back as two games;
//   - move of a game's last row: the position it led to has no entry, so it
//     is taken to be the best move;
//   - termination: the rules' ending when the last row's best move ends the
//     game by the rules (checkmate, stalemate, threefold repetition, the
//     fifty-move rule, insufficient material), otherwise an adjudicated win
//     or draw according to the result (a ply cap cannot be told apart);
//   - depth and nodes: 0;
//   - the repetition plane of a game whose rows start after its first
//     position counts repetitions among the recorded rows only;
//   - the en-passant field and (binpack only) the fullmove number of a
//     game's first row, as said above;
//   - the dataset metadata (engine version, generation config): the import
//     records its own.
//
// Everything the formats carry survives a round trip: export, import and
// export again give the same file, byte for byte.
package stockfish

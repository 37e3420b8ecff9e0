// Package dama holds the rules of Italian draughts (Dama Italiana): the
// board as 32-bit boards, precomputed step and jump tables, the position with
// make/unmake and a fixed-seed Zobrist hash, legal move generation with the
// Italian capture-priority rules, PDN FEN and move notation, the draw rules,
// perft, and random positions from material signatures for generated
// endgame starts.
//
// # Board and numbering
//
// The board lies as the Federazione Italiana Dama sets it: each player has a
// dark square at the bottom-right corner; White sits at the bottom and
// moves first. Only the 32 dark squares are used, numbered 1..32 in rows of
// four from White's far side: 1 = a8, 2 = c8, 3 = e8, 4 = g8, 5 = b7, ...,
// 29 = b1, 32 = h1 as White sees the board. At the start Black's men stand
// on 1-12 and White's on 21-32. A Square is the number less one (0..31).
//
//	  a b c d e f g h
//	8 .   .   .   .       1- 4   (White crowns here)
//	7   .   .   .   .     5- 8
//	...
//	1   .   .   .   .    29-32   (Black crowns here)
//
// # Why 32-bit boards
//
// Each side's men and kings are a uint32 with bit i for square i+1: only the
// playing squares, in the order of the notation. Men, Kings, FEN and move
// notation then read the boards directly, and every per-square table has 32
// entries. The cost is that a one-square step is not one uniform shift: it is
// a shift by 4 for every square and by 3 or 5 for the squares of one row
// parity (the rows alternate between files a,c,e,g and b,d,f,h), so a step in
// one direction takes two shifts and two masks. The founding design's 64-bit
// boards step by a uniform 7 or 9 with a file mask, but half their bits are
// light squares that are never used and every square number would need a
// mapping between 64 and 32. All simple moves of a direction still come from
// one shifted board; capture chains are searched per piece with tables of each
// square's neighbour and landing square in each direction.
//
// # The rules chosen
//
//   - Men move and capture one square diagonally forward only (White
//     up, toward 1-4; Black down, toward 29-32). Kings move and capture one
//     square in every diagonal direction: they do not fly.
//   - A man may not capture a king.
//   - Capturing is compulsory, and a chain continues while a capture is
//     possible. A piece is jumped at most once; the captured pieces leave
//     the board only when the move ends (until then they cannot be jumped
//     again); the capturing piece's own starting square counts as empty
//     during its chain.
//   - A man that reaches the last row is crowned and its move ends there.
//   - Among the captures available the player must choose one that (1)
//     captures the most pieces, then (2) is made by a king, then (3)
//     captures the most kings, then (4) meets a king earliest: the
//     positions of the kings in the capture order are compared in turn
//     (first king earliest, then the second, ...). Captures equal under
//     all four are free choices.
//   - Each capture route is its own move, even when two routes share their
//     start and end (the draughts perft convention); a route is named by
//     all its landing squares, "27x18x9x2", a simple move as "22-18".
//   - The side to move with no legal move (no pieces, or all blocked)
//     loses. The game is drawn after QuietLimit = 80 plies (forty moves
//     each) without a capture, and at the third occurrence of a position
//     (placement and side to move).
//
// # Moves, values and allocation
//
// A Move is a 12-byte value: the start and end squares, the captured
// squares as a board, the direction of each jump (the landing squares follow
// from them) and the crowning flag; two moves are the same move exactly when
// they are ==. A MoveList holds MaxMoves moves on the caller's stack.
// CountMoves counts the legal moves without listing them (perft's last ply).
//
// A Position carries its undo stack (for UnmakeMove and repetition), so it
// is passed by pointer and duplicated with Copy. GenerateMoves, CountMoves,
// MakeMove and UnmakeMove allocate nothing (the undo stack is preallocated
// for games far longer than draughts games run).
//
// # Perft
//
// From the start position, capture routes counted apart: 7, 49, 302, 1469,
// 7361, 36473, 177532, 828783, 3860875, 17761384, 81647058 for depths 1 to
// 11 (the tests check depths 1 to 8, and the simple implementation in the
// tests agrees to depth 6).
package dama

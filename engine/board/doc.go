// Package board holds the rules of chess: bitboards, magic attack tables, the
// position with make/unmake and Zobrist hashing, exact legal move generation,
// FEN and move notation, and the draw rules.
//
// # Performance idioms
//
// The hot code (move generation, make and unmake, attack look-ups) is
// written so that the compiler leaves out index checks and keeps the loops'
// values in registers. `go build -gcflags=-d=ssa/check_bce/debug=1
// ./engine/board` lists the index checks that remain.
//
//   - Bare masks on an index: s&63 on a Square, c&1 on a Color, pc&15 on a
//     Piece and pt&7 on a PieceType, used on tables of 64, 2, 16 and 8
//     entries. The value is in range anyway and the mask changes nothing,
//     but it proves the range to the compiler, which then drops the index
//     check (a Square is a signed int8, so unmasked it would be checked
//     against both ends). Take one away and its check shows up in the
//     listing above.
//   - A move list is written as ml[n], ml a *[256]Move and n a uint8: no
//     index check (a position has at most 218 legal moves), and one
//     `_ = ml[0]` before the loops stands for a nil check at every move.
//     The generators pass the count in and out (n = addPawnPushes(ml, n,
//     ...)) rather than through MoveList.N, so that it stays in a register.
//   - A set is walked as
//     `for ; b != 0; b &= b - 1 { s := uint(bits.TrailingZeros64(uint64(b))); ... }`:
//     b is not empty inside the loop, so the compiler knows that s is below
//     64 and looks it up in a 64-entry table unchecked (on a set that may be
//     empty the count can be 64, and it is checked); b &= b - 1 clears the
//     lowest square without waiting for the count. Colder code walks sets
//     as `for b != 0 { s := b.PopLSB(); ... }`, the same loop with a Square
//     in hand (masked with &63 where it indexes a table).
//   - The generators are leaves where they can be: Go's calling convention
//     has no callee-saved registers, so every value live across a call is
//     stored and reloaded. Their callers hand them the bitboards they need
//     rather than keep them across the call.
package board

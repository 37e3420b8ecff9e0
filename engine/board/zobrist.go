package board

// Zobrist keys, drawn once from a fixed-seed generator so that every build
// hashes every position alike.
var (
	// zobristPiece[pc][s] is the key of piece pc on s. The rows past the
	// twelve pieces (NoPiece and up) stay zero, so that the key of whatever
	// stands on a square, nothing included, is one look-up.
	zobristPiece    [16][64]uint64
	zobristCastling [16]uint64
	zobristEPFile   [8]uint64
	zobristSide     uint64
)

func init() {
	rng := xorshift64star(0x9E3779B97F4A7C15)
	for p := range zobristPiece[:NoPiece] {
		for s := range zobristPiece[p] {
			zobristPiece[p][s] = rng.next()
		}
	}
	// Castling keys are the XOR of one key per right, so that updates by
	// XOR-ing old and new rights stay consistent.
	var rights [4]uint64
	for i := range rights {
		rights[i] = rng.next()
	}
	for c := range zobristCastling {
		for i := range rights {
			if c&(1<<i) != 0 {
				zobristCastling[c] ^= rights[i]
			}
		}
	}
	for f := range zobristEPFile {
		zobristEPFile[f] = rng.next()
	}
	zobristSide = rng.next()
}

// KeyAfter returns the hash the position will have after the legal move m,
// without making it. It is exact for every move that leaves the castling
// rights and en passant alone and close otherwise (those terms are left
// out): a search uses it to start loading a hash-table entry early.
// The captured piece's key comes without a branch from the zero row of an
// empty square (a castling king's destination is always empty).
func (p *Position) KeyAfter(m Move) uint64 {
	from, to := m.From(), m.To()
	pc := p.board[from] & 15
	k := p.st.hash ^ zobristSide ^ zobristPiece[pc][from] ^ zobristPiece[pc][to] ^
		zobristPiece[p.board[to]&15][to]
	if p.st.epHashed {
		k ^= zobristEPFile[p.st.ep&7]
	}
	return k
}

// KeyAfterNull returns the hash the position will have after MakeNullMove.
func (p *Position) KeyAfterNull() uint64 {
	k := p.st.hash ^ zobristSide
	if p.st.epHashed {
		k ^= zobristEPFile[p.st.ep.File()]
	}
	return k
}

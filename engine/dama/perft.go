package dama

// Perft counts the legal move sequences of the given depth from the
// position (capture routes counted apart), with make and unmake; the last
// ply's moves are counted (CountMoves), not made.
func (p *Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	if depth == 1 {
		return uint64(p.CountMoves())
	}
	var l MoveList
	p.GenerateMoves(&l)
	var n uint64
	for i := 0; i < l.N; i++ {
		p.MakeMove(l.Moves[i])
		n += p.Perft(depth - 1)
		p.UnmakeMove()
	}
	return n
}

// Divide calls fn with each legal move and the perft count below it
// (depth-1), in generation order, and returns the total.
func (p *Position) Divide(depth int, fn func(Move, uint64)) uint64 {
	if depth <= 0 {
		return 1
	}
	var l MoveList
	p.GenerateMoves(&l)
	var total uint64
	for _, m := range l.Slice() {
		p.MakeMove(m)
		n := p.Perft(depth - 1)
		p.UnmakeMove()
		fn(m, n)
		total += n
	}
	return total
}

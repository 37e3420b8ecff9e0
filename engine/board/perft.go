package board

// Perft counts the leaf nodes of the legal move tree to the given depth,
// counting the last ply in bulk from the size of the move list.
func (p *Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	// One move list per ply, allocated once: a list declared in each call
	// would be zeroed at every node.
	lists := make([]MoveList, depth)
	return p.perft(depth, lists)
}

// perft is Perft for depth >= 1 with lists[d-1] the move list of depth d.
func (p *Position) perft(depth int, lists []MoveList) uint64 {
	list := &lists[depth-1]
	p.GenerateLegal(list)
	if depth == 1 {
		return uint64(list.N)
	}
	var n uint64
	for _, m := range list.Slice() {
		p.MakeMove(m)
		n += p.perft(depth-1, lists)
		p.UnmakeMove()
	}
	return n
}

// DivideEntry is one root move and the leaf count below it.
type DivideEntry struct {
	Move  Move
	Nodes uint64
}

// Divide returns the perft count below each root move, in generation order.
func (p *Position) Divide(depth int) []DivideEntry {
	var list MoveList
	p.GenerateLegal(&list)
	out := make([]DivideEntry, 0, list.N)
	for _, m := range list.Slice() {
		p.MakeMove(m)
		out = append(out, DivideEntry{m, p.Perft(depth - 1)})
		p.UnmakeMove()
	}
	return out
}

package search

// The numbers that shape the draughts search's tree, declared once. Depths
// are in plies, margins in centi-men (a man is 100).
const (
	// Aspiration windows: from aspirationMinDepth on, an iteration starts
	// with a window of ±aspirationDelta around the previous score; after
	// each failure the step doubles, and past aspirationMaxDelta the window
	// opens fully.
	aspirationMinDepth = 4
	aspirationDelta    = 30
	aspirationMaxDelta = 600

	// Late-move reductions: from lmrMinDepth on, quiet moves after the
	// first lmrMinMove moves of a node (killers and the TT move excepted)
	// are searched a ply shallower, two plies from lmrDeepMove moves on at
	// lmrDeepDepth or more; a reduced move that beats alpha is searched
	// again at full depth.
	lmrMinDepth  = 3
	lmrMinMove   = 4
	lmrDeepMove  = 9
	lmrDeepDepth = 6

	// A node with a single legal move (often a forced capture) is searched
	// a ply deeper, while its ply is below MaxPly/2.
	singleReplyExtension = 1

	// History: a quiet move that causes a cutoff at depth d earns d², the
	// quiet moves tried before it lose as much; scores stay within
	// ±historyLimit by gravity.
	historyLimit = 1 << 14

	// The limits (time, stop) are polled every pollInterval nodes (a power
	// of two).
	pollInterval = 1024
)

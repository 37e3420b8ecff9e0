package dama

// QuietLimit is the number of plies without a capture after which the game
// is drawn: forty moves by each side.
const QuietLimit = 80

// Outcome is the state of the game in a position.
type Outcome uint8

// The outcomes the rules decide.
const (
	Ongoing        Outcome = iota
	NoMoves                // the side to move has no legal move (no pieces, or all blocked) and has lost
	DrawQuiet              // QuietLimit plies without a capture
	DrawRepetition         // the position occurs for the third time
)

// String names the outcome: "no moves", "forty-move" (QuietLimit plies,
// forty moves each, without a capture), "threefold" (repetition, named as
// chess's board.ThreefoldRepetition is). These are the names that a
// dataset's termination column and a match's Termination tag use.
func (o Outcome) String() string {
	switch o {
	case Ongoing:
		return "ongoing"
	case NoMoves:
		return "no moves"
	case DrawQuiet:
		return "forty-move"
	case DrawRepetition:
		return "threefold"
	}
	return "unknown"
}

// Outcome reports whether the game is over in the position. A side that
// cannot move has lost, even on the ply that would complete a draw; then a
// third occurrence of the position, then QuietLimit quiet plies, draw.
func (p *Position) Outcome() Outcome {
	switch {
	case !p.HasMoves():
		return NoMoves
	case p.Repetitions() >= 2:
		return DrawRepetition
	case p.quiet >= QuietLimit:
		return DrawQuiet
	}
	return Ongoing
}

package nnue

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// The architecture and quantization this package implements (format
// version 4; versions 1 to 3 are read too).
const (
	Inputs = 768 // features per perspective: 2 colours × 6 piece types × 64 squares

	// A network's accumulator width per perspective (its Hidden) is a
	// multiple of HiddenStep, a vector's lanes, from HiddenStep to
	// MaxHidden; the networks trained for play so far have DefaultHidden.
	// Up to MaxHidden the vector output layer's int32 lanes cannot
	// overflow.
	HiddenStep    = 16
	MaxHidden     = 1024
	DefaultHidden = 256

	// MaxOutputs is the most output buckets a network may have. A network
	// has 1, 2, 4 or 8 (its Outputs); a position's bucket is chosen by the
	// number of pieces on the board (see Bucket).
	MaxOutputs = 8

	// ActivationSCReLU is the activation code of SCReLU, clamp(x, 0, QA)².
	ActivationSCReLU = 1

	// FeaturesPlain and FeaturesMirrored are the feature sets a file may
	// name: the 768 features as they are, or king-mirrored (768hm): a
	// perspective whose own king stands on files e–h sees every square
	// file-mirrored (sq^7). Version 1 files are always plain.
	FeaturesPlain    = 0
	FeaturesMirrored = 1

	QA    = 255 // scale of the feature transformer's weights and biases
	QB    = 64  // scale of the output weights
	Scale = 400 // output-to-centipawn factor

	// Version is the file format version this package writes, whose
	// hash covers the whole file but the hash itself; it reads it,
	// version 3 (the same file, its hash the payload's alone), version 2
	// (whose payload has no pawn table either: the engine gives it
	// legacyPawnScale) and version 1 (whose header has no feature set
	// either).
	Version = 4

	// MaxW1 bounds |W1| and |B1|, MaxW2 bounds |W2| (the trainer clips
	// the float weights to ±1.98): within them no accumulator overflows
	// int16 and the vector output layer is exact. Parse rejects files
	// beyond them.
	MaxW1 = 505
	MaxW2 = 127
)

// Magic opens every network file.
const Magic = "CFNN"

const (
	headerSize   = 76 // magic, version, architecture, feature set, quantization, hash, provenance length
	headerSizeV1 = 72 // version 1: no feature set
	hashAt       = 40 // the hash's offset from version 2 on
	// maxProvenance bounds the provenance, so that a corrupt length is
	// reported instead of allocating gigabytes.
	maxProvenance = 1 << 20
)

// Network is a loaded network: the quantized weights, the pawn table and
// what the file says about where they came from. A network built in memory
// gets its table from Random or SetPawnScale; Write refuses one without.
// It is read-only once loaded and safe for concurrent use; each search
// thread keeps its own accumulators.
type Network struct {
	// W1 holds the feature transformer's rows, feature-major: the weight
	// of feature i for hidden unit j is W1[i·Hidden()+j].
	W1 []int16
	// B1 is the feature transformer's bias, Hidden() of them.
	B1 []int16
	// W2[b] are the output weights of bucket b: [0, Hidden()) for the
	// side to move's accumulator, [Hidden(), 2·Hidden()) for the other
	// side's. Buckets from Outputs() on are zero.
	W2 [MaxOutputs][]int16
	// B2[b] is the output bias of bucket b, scaled by QA·QB.
	B2 [MaxOutputs]int32
	// Provenance is the file's provenance, a JSON object (the command,
	// seed, positions, epochs, losses, dataset, creation time).
	Provenance []byte

	hash [sha256.Size]byte
	// hidden is the accumulator width (Hidden).
	hidden int
	// mirrored: the king-mirrored feature set (FeaturesMirrored).
	mirrored bool
	// outputs is the number of output buckets (1, 2, 4 or 8); bucketOf
	// maps a piece count (0–64) to its bucket.
	outputs  int
	bucketOf [65]uint8
	// pawnScale is the pawn table (see PawnScale).
	pawnScale [PawnGroups]int
}

// ValidOutputs reports whether a network may have k output buckets: 1, 2, 4
// or 8.
func ValidOutputs(k int) bool { return k == 1 || k == 2 || k == 4 || k == 8 }

// ValidHidden reports whether a network may have accumulators h wide: a
// multiple of HiddenStep from HiddenStep to MaxHidden (widthRule).
func ValidHidden(h int) bool { return h >= HiddenStep && h <= MaxHidden && h%HiddenStep == 0 }

// widthRule says which widths ValidHidden accepts, for error messages.
var widthRule = fmt.Sprintf("a multiple of %d from %d to %d", HiddenStep, HiddenStep, MaxHidden)

// New returns a network with accumulators hidden wide and outputs output
// buckets (see ValidHidden and ValidOutputs; other numbers panic), its
// weights zero and its feature set plain. Set its weights, then its pawn
// table (SetPawnScale) and Seal it.
func New(hidden, outputs int) *Network {
	if !ValidHidden(hidden) {
		panic(fmt.Sprintf("nnue: accumulators %d wide, want %s", hidden, widthRule))
	}
	n := &Network{hidden: hidden, W1: make([]int16, Inputs*hidden), B1: make([]int16, hidden)}
	w2 := make([]int16, MaxOutputs*2*hidden)
	for b := range n.W2 {
		n.W2[b] = w2[b*2*hidden : (b+1)*2*hidden : (b+1)*2*hidden]
	}
	n.SetOutputs(outputs)
	return n
}

// Hidden returns the accumulator width per perspective.
func (n *Network) Hidden() int { return n.hidden }

// payloadSize is the size of the payload of a network with accumulators h
// wide and k outputs in a file of the given format version: the weights,
// then (from version 3) the pawn table.
func payloadSize(h, k int, version uint32) int {
	size := Inputs*h*2 + h*2 + k*(2*h*2+4)
	if version >= 3 {
		size += PawnGroups * 2
	}
	return size
}

// SetOutputs sets the number of output buckets of a network built in memory
// (1, 2, 4 or 8; other numbers panic): buckets from k on are cleared.
func (n *Network) SetOutputs(k int) {
	if !ValidOutputs(k) {
		panic(fmt.Sprintf("nnue: %d output buckets, want 1, 2, 4 or 8", k))
	}
	n.outputs = k
	for pieces := range n.bucketOf {
		n.bucketOf[pieces] = uint8(min(max(pieces-2, 0)/(32/k), k-1))
	}
	for b := k; b < MaxOutputs; b++ {
		clear(n.W2[b])
		n.B2[b] = 0
	}
}

// Outputs returns the number of output buckets.
func (n *Network) Outputs() int { return n.outputs }

// Mirrored reports whether the network's features are king-mirrored
// (FeaturesMirrored).
func (n *Network) Mirrored() bool { return n.mirrored }

// SetMirrored sets the feature set of a network built in memory:
// king-mirrored (true) or plain.
func (n *Network) SetMirrored(on bool) { n.mirrored = on }

// Architecture returns the network's name as the trainer's provenance
// writes it, e.g. 768x2-256-8-screlu, or 768hmx2-256-8-screlu king-mirrored.
func (n *Network) Architecture() string {
	in := "768"
	if n.mirrored {
		in = "768hm"
	}
	return fmt.Sprintf("%sx2-%d-%d-screlu", in, n.hidden, n.outputs)
}

// Bucket returns the output bucket of a position with the given number of
// pieces on the board (kings included): (pieces − 2) / (32 / Outputs), kept
// within [0, Outputs). With 8 buckets, 2–5 pieces use bucket 0 and 30–32
// bucket 7.
func (n *Network) Bucket(pieces int) int { return int(n.bucketOf[min(uint(pieces), 64)]) }

// ID returns the network's id: the first 16 hex digits of the SHA-256 of
// its payload (the weights and the pawn table as stored in the file), in
// every version; a version 4 file's stored hash covers the rest of the
// file too, and is not the id.
func (n *Network) ID() string { return hex.EncodeToString(n.hash[:8]) }

// Hash returns the SHA-256 of the network's payload, whose first 8 bytes
// are its ID.
func (n *Network) Hash() [sha256.Size]byte { return n.hash }

// FormatError is the error of a network file that cannot be used: Name names
// the file, Problem says what is wrong with it.
type FormatError struct {
	Name    string
	Problem string
}

func (e *FormatError) Error() string { return "nnue: " + e.Name + ": " + e.Problem }

// ErrFormat is matched by every FormatError with errors.Is.
var ErrFormat = errors.New("nnue: bad network file")

// Is reports whether target is ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func formatErr(name, format string, args ...any) error {
	return &FormatError{Name: name, Problem: fmt.Sprintf(format, args...)}
}

//go:embed default.nnue
var defaultNet []byte

// DefaultName is the name the embedded default network's errors and
// reports use.
const DefaultName = "default.nnue (embedded)"

// Default returns the network embedded in the binary (engine/nnue/default.nnue).
// Each call decodes it afresh; callers keep the result.
func Default() (*Network, error) {
	return Parse(defaultNet, DefaultName)
}

// LoadFile reads the network file at path.
func LoadFile(path string) (*Network, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("nnue: %w", err)
	}
	return Parse(data, path)
}

// Load reads a network from r; name names the source in errors. It reads r
// to its end: a file must end exactly after its payload.
func Load(r io.Reader, name string) (*Network, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("nnue: %s: %w", name, err)
	}
	return Parse(data, name)
}

// Parse decodes a network file held in data; name names it in errors.
func Parse(data []byte, name string) (*Network, error) {
	if len(data) < 4 || string(data[:4]) != Magic {
		head := data[:min(len(data), 4)]
		return nil, formatErr(name, "not a chessforge network: magic %q, want %q", head, Magic)
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	size := headerSize
	if len(data) >= 8 && u32(4) == 1 {
		size = headerSizeV1
	}
	if len(data) < size {
		return nil, formatErr(name, "truncated header: expected at least %d bytes, got %d", size, len(data))
	}
	version := u32(4)
	if version < 1 || version > Version {
		return nil, formatErr(name, "unsupported format version %d (this engine reads versions 1 to %d)", version, Version)
	}
	arch := [4]uint32{u32(8), u32(12), u32(16), u32(20)}
	if arch[0] != Inputs || !ValidHidden(int(arch[1])) || arch[3] != ActivationSCReLU || !ValidOutputs(int(arch[2])) {
		return nil, formatErr(name, "other architecture: inputs %d, hidden %d, outputs %d, activation %d; this engine runs %d, %s, 1, 2, 4 or 8, %d (SCReLU)",
			arch[0], arch[1], arch[2], arch[3], Inputs, widthRule, ActivationSCReLU)
	}
	hidden, outputs := int(arch[1]), int(arch[2])
	at := 24 // after the architecture: the feature set (from version 2), then the quantization
	features := uint32(FeaturesPlain)
	if size == headerSize {
		features = u32(at)
		at += 4
		if features != FeaturesPlain && features != FeaturesMirrored {
			return nil, formatErr(name, "unknown feature set %d (this engine runs %d, plain, and %d, king-mirrored)",
				features, FeaturesPlain, FeaturesMirrored)
		}
	}
	quant := [3]uint32{u32(at), u32(at + 4), u32(at + 8)}
	if quant != [3]uint32{QA, QB, Scale} {
		return nil, formatErr(name, "other quantization: QA %d, QB %d, SCALE %d; this engine uses %d, %d, %d",
			quant[0], quant[1], quant[2], QA, QB, Scale)
	}
	hashOff := at + 12
	var want [sha256.Size]byte
	copy(want[:], data[hashOff:hashOff+sha256.Size])
	provLen := u32(at + 44)
	if provLen > maxProvenance {
		return nil, formatErr(name, "provenance length %d exceeds %d bytes", provLen, maxProvenance)
	}
	total := size + int(provLen) + payloadSize(hidden, outputs, version)
	if len(data) < total {
		return nil, formatErr(name, "truncated: expected %d bytes, got %d", total, len(data))
	}
	if len(data) > total {
		return nil, formatErr(name, "%d trailing bytes after the payload (expected %d bytes, got %d)", len(data)-total, total, len(data))
	}
	provenance, payload := data[size:size+int(provLen)], data[size+int(provLen):]
	weights := sha256.Sum256(payload)
	if version >= 4 {
		if fileHash(data) != want {
			return nil, formatErr(name, "hash does not match its contents (damaged file)")
		}
		if !isObject(provenance) {
			return nil, formatErr(name, "provenance is not a JSON object")
		}
	} else if weights != want {
		return nil, formatErr(name, "hash does not match its payload (damaged file)")
	}
	n := New(hidden, outputs)
	n.mirrored = features == FeaturesMirrored
	n.hash = weights
	n.Provenance = bytes.Clone(provenance)
	off := 0
	i16 := func() int16 {
		v := int16(binary.LittleEndian.Uint16(payload[off:]))
		off += 2
		return v
	}
	for i := range n.W1 {
		n.W1[i] = i16()
	}
	for j := range n.B1 {
		n.B1[j] = i16()
	}
	for b := range outputs {
		for j := range n.W2[b] {
			n.W2[b][j] = i16()
		}
	}
	for b := range outputs {
		n.B2[b] = int32(binary.LittleEndian.Uint32(payload[off:]))
		off += 4
	}
	if err := n.checkRanges(); err != nil {
		return nil, formatErr(name, "%v", err)
	}
	n.pawnScale = legacyPawnScale
	if version >= 3 {
		for i := range n.pawnScale {
			n.pawnScale[i] = int(binary.LittleEndian.Uint16(payload[off:]))
			off += 2
		}
		if err := checkPawnScale(n.pawnScale); err != nil {
			return nil, formatErr(name, "%v", err)
		}
	}
	return n, nil
}

// fileHash returns the hash a version 4 file stores: the SHA-256 of all of
// data but the hash field.
func fileHash(data []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(data[:hashAt])
	h.Write(data[hashAt+sha256.Size:])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// isObject reports whether b is a JSON object, as a provenance must be.
func isObject(b []byte) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(b, &obj) == nil && obj != nil
}

// checkShape reports a network whose weights are not as long as its width
// says (one not made by New, or whose slices were replaced).
func (n *Network) checkShape() error {
	h := n.hidden
	if !ValidHidden(h) {
		return fmt.Errorf("accumulators %d wide, want %s (New)", h, widthRule)
	}
	if len(n.W1) != Inputs*h || len(n.B1) != h {
		return fmt.Errorf("W1 has %d weights and b1 %d, want %d and %d for accumulators %d wide", len(n.W1), len(n.B1), Inputs*h, h, h)
	}
	for b, w := range n.W2 {
		if len(w) != 2*h {
			return fmt.Errorf("W2[%d] has %d weights, want %d for accumulators %d wide", b, len(w), 2*h, h)
		}
	}
	return nil
}

// checkRanges reports the first weight beyond MaxW1 or MaxW2.
func (n *Network) checkRanges() error {
	for i, w := range n.W1 {
		if w < -MaxW1 || w > MaxW1 {
			return fmt.Errorf("weight out of range: W1[%d][%d] = %d, the format allows |w| <= %d", i/n.hidden, i%n.hidden, w, MaxW1)
		}
	}
	for j, w := range n.B1 {
		if w < -MaxW1 || w > MaxW1 {
			return fmt.Errorf("weight out of range: b1[%d] = %d, the format allows |b| <= %d", j, w, MaxW1)
		}
	}
	for b := range n.outputs {
		for j, w := range n.W2[b] {
			if w < -MaxW2 || w > MaxW2 {
				return fmt.Errorf("weight out of range: W2[%d][%d] = %d, the format allows |w| <= %d", b, j, w, MaxW2)
			}
		}
	}
	return nil
}

// payload returns the weights and the pawn table as a file of this
// version stores them.
func (n *Network) payload() []byte {
	b := make([]byte, 0, payloadSize(n.hidden, n.outputs, Version))
	for _, w := range n.W1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(w))
	}
	for _, w := range n.B1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(w))
	}
	for k := range n.outputs {
		for _, w := range n.W2[k] {
			b = binary.LittleEndian.AppendUint16(b, uint16(w))
		}
	}
	for k := range n.outputs {
		b = binary.LittleEndian.AppendUint32(b, uint32(n.B2[k]))
	}
	for _, s := range n.pawnScale {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// Seal computes the network's hash from its weights and pawn table; call it
// after setting the weights of a Network built in memory, before using ID.
func (n *Network) Seal() { n.hash = sha256.Sum256(n.payload()) }

// Write writes the network in the file format (Version), with its
// Provenance, to w, and sets its hash to the payload's. Weights beyond MaxW1
// or MaxW2, a pawn table SetPawnScale would refuse, or a Provenance that is
// not a JSON object are an error: no reader would take the file.
func (n *Network) Write(w io.Writer) error {
	if !ValidOutputs(n.outputs) {
		return fmt.Errorf("nnue: %d output buckets, want 1, 2, 4 or 8 (SetOutputs)", n.outputs)
	}
	if err := n.checkShape(); err != nil {
		return fmt.Errorf("nnue: %w", err)
	}
	if err := n.checkRanges(); err != nil {
		return fmt.Errorf("nnue: %w", err)
	}
	if err := checkPawnScale(n.pawnScale); err != nil {
		return fmt.Errorf("nnue: %w", err)
	}
	if !isObject(n.Provenance) {
		return fmt.Errorf("nnue: provenance %.40q is not a JSON object", n.Provenance)
	}
	if len(n.Provenance) > maxProvenance {
		return fmt.Errorf("nnue: provenance of %d bytes exceeds %d", len(n.Provenance), maxProvenance)
	}
	payload := n.payload()
	n.hash = sha256.Sum256(payload)
	features := uint32(FeaturesPlain)
	if n.mirrored {
		features = FeaturesMirrored
	}
	data := make([]byte, 0, headerSize+len(n.Provenance)+len(payload))
	data = append(data, Magic...)
	for _, v := range []uint32{Version, Inputs, uint32(n.hidden), uint32(n.outputs), ActivationSCReLU, features, QA, QB, Scale} {
		data = binary.LittleEndian.AppendUint32(data, v)
	}
	data = append(data, make([]byte, sha256.Size)...) // the hash, once the rest is there
	data = binary.LittleEndian.AppendUint32(data, uint32(len(n.Provenance)))
	data = append(data, n.Provenance...)
	data = append(data, payload...)
	sum := fileHash(data)
	copy(data[hashAt:], sum[:])
	_, err := w.Write(data)
	return err
}

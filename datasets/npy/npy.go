// Package npy reads and writes NumPy's .npy array files (format version
// 1.0: a magic string, a Python-literal header giving dtype, order and
// shape, then the raw little-endian data in C order), so that Go can hand
// arrays to NumPy's np.load, memory-mapped, without any Python code.
package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// The dtypes this package writes and reads, as NumPy spells them.
const (
	Uint8   = "|u1"
	Int32   = "<i4"
	Int64   = "<i8"
	Float32 = "<f4"
)

// magic opens every .npy file.
const magic = "\x93NUMPY"

// TempSuffix is appended to a file's name while it is being written.
const TempSuffix = ".tmp"

// ItemSize returns the bytes per element of a dtype this package knows, or
// 0 for any other.
func ItemSize(descr string) int {
	switch descr {
	case Uint8:
		return 1
	case Int32, Float32:
		return 4
	case Int64:
		return 8
	}
	return 0
}

// Header is the description at the start of a .npy file.
type Header struct {
	Descr        string // dtype, such as "<f4"
	FortranOrder bool   // false: C order
	Shape        []int  // dimensions; the first counts the rows
}

// Len returns the number of elements the header describes.
func (h *Header) Len() int {
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// text returns the header's Python literal, unpadded.
func (h *Header) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{'descr': '%s', 'fortran_order': %s, 'shape': (", h.Descr, pyBool(h.FortranOrder))
	for i, d := range h.Shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(h.Shape) == 1 {
		b.WriteString(",")
	}
	b.WriteString("), }")
	return b.String()
}

func pyBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

// encode returns the header's bytes (magic, version 1.0, length, literal)
// padded with spaces to size bytes, or to the next multiple of 64 when size
// is 0. It fails if the header does not fit in size.
func (h *Header) encode(size int) ([]byte, error) {
	text := h.text()
	need := len(magic) + 4 + len(text) + 1
	if size == 0 {
		size = (need + 63) / 64 * 64
	}
	if need > size || size-len(magic)-4 > math.MaxUint16 {
		return nil, fmt.Errorf("npy: header %q does not fit in %d bytes", text, size)
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(size-len(magic)-4))
	b = append(b, text...)
	for len(b) < size-1 {
		b = append(b, ' ')
	}
	return append(b, '\n'), nil
}

// ReadHeader reads a .npy header (format 1.0, 2.0 or 3.0) from r and returns
// it with the number of bytes it took, the offset of the data.
func ReadHeader(r io.Reader) (Header, int64, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return Header{}, 0, fmt.Errorf("npy: reading the header: %w", err)
	}
	if string(pre[:6]) != magic {
		return Header{}, 0, errors.New("npy: not a .npy file (bad magic string)")
	}
	var n, off int
	switch pre[6] {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return Header{}, 0, fmt.Errorf("npy: reading the header: %w", err)
		}
		n, off = int(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return Header{}, 0, fmt.Errorf("npy: reading the header: %w", err)
		}
		n, off = int(binary.LittleEndian.Uint32(l[:])), 12
		if n > 1<<20 {
			return Header{}, 0, fmt.Errorf("npy: header length %d is implausible", n)
		}
	default:
		return Header{}, 0, fmt.Errorf("npy: format version %d.%d is unknown", pre[6], pre[7])
	}
	text := make([]byte, n)
	if _, err := io.ReadFull(r, text); err != nil {
		return Header{}, 0, fmt.Errorf("npy: reading the header: %w", err)
	}
	h, err := parseHeader(string(text))
	return h, int64(off + n), err
}

// parseHeader reads the header's Python dict literal.
func parseHeader(s string) (Header, error) {
	var h Header
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return h, fmt.Errorf("npy: header %q is not a dict literal", s)
	}
	descr, err := field(t, "descr")
	if err != nil {
		return h, err
	}
	if len(descr) < 2 || (descr[0] != '\'' && descr[0] != '"') || descr[len(descr)-1] != descr[0] {
		return h, fmt.Errorf("npy: header: descr %s is not a plain dtype string", descr)
	}
	h.Descr = descr[1 : len(descr)-1]
	order, err := field(t, "fortran_order")
	if err != nil {
		return h, err
	}
	switch order {
	case "True":
		h.FortranOrder = true
	case "False":
	default:
		return h, fmt.Errorf("npy: header: fortran_order %q", order)
	}
	shape, err := field(t, "shape")
	if err != nil {
		return h, err
	}
	if !strings.HasPrefix(shape, "(") || !strings.HasSuffix(shape, ")") {
		return h, fmt.Errorf("npy: header: shape %q is not a tuple", shape)
	}
	h.Shape = []int{}
	for _, d := range strings.Split(shape[1:len(shape)-1], ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSuffix(d, "L"))
		if err != nil || v < 0 {
			return h, fmt.Errorf("npy: header: bad dimension %q in shape %s", d, shape)
		}
		h.Shape = append(h.Shape, v)
	}
	return h, nil
}

// field returns the value text of key in a dict literal: up to the next
// top-level comma or the closing brace.
func field(t, key string) (string, error) {
	i := -1
	for _, q := range []string{"'", `"`} {
		if j := strings.Index(t, q+key+q); j >= 0 {
			i = j + len(key) + 2
			break
		}
	}
	if i < 0 {
		return "", fmt.Errorf("npy: header has no %q key", key)
	}
	rest := strings.TrimLeft(t[i:], " ")
	if !strings.HasPrefix(rest, ":") {
		return "", fmt.Errorf("npy: header: no ':' after %q", key)
	}
	rest = strings.TrimLeft(rest[1:], " ")
	depth := 0
	for j, c := range rest {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',', '}':
			if depth == 0 {
				return strings.TrimSpace(rest[:j]), nil
			}
		}
	}
	return "", fmt.Errorf("npy: header: value of %q is not terminated", key)
}

// Array is a whole .npy file in memory.
type Array struct {
	Header
	Data []byte // raw little-endian elements, C order
}

// Load reads a whole .npy file, checking that its data has the length its
// header gives. Errors name the file.
func Load(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	h, _, err := ReadHeader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	size := ItemSize(h.Descr)
	if size == 0 {
		return nil, fmt.Errorf("npy: %s: dtype %q is not one of %s %s %s %s", path, h.Descr, Uint8, Int32, Int64, Float32)
	}
	if h.FortranOrder && len(h.Shape) > 1 {
		return nil, fmt.Errorf("npy: %s: Fortran order is not supported", path)
	}
	want := h.Len() * size
	data := make([]byte, want)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, fmt.Errorf("npy: %s: data shorter than the header's shape %v: %w", path, h.Shape, err)
	}
	if n, _ := br.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("npy: %s: data longer than the header's shape %v", path, h.Shape)
	}
	return &Array{Header: h, Data: data}, nil
}

func (a *Array) want(descr string) error {
	if a.Descr != descr {
		return fmt.Errorf("npy: array has dtype %s, not %s", a.Descr, descr)
	}
	return nil
}

// Float32s returns the elements of a float32 array.
func (a *Array) Float32s() ([]float32, error) {
	if err := a.want(Float32); err != nil {
		return nil, err
	}
	out := make([]float32, len(a.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return out, nil
}

// Int32s returns the elements of an int32 array.
func (a *Array) Int32s() ([]int32, error) {
	if err := a.want(Int32); err != nil {
		return nil, err
	}
	out := make([]int32, len(a.Data)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return out, nil
}

// Int64s returns the elements of an int64 array.
func (a *Array) Int64s() ([]int64, error) {
	if err := a.want(Int64); err != nil {
		return nil, err
	}
	out := make([]int64, len(a.Data)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(a.Data[8*i:]))
	}
	return out, nil
}

// Uint8s returns the elements of a uint8 array.
func (a *Array) Uint8s() ([]byte, error) {
	if err := a.want(Uint8); err != nil {
		return nil, err
	}
	return a.Data, nil
}

// Writer streams rows of one array into a .npy file whose first dimension,
// the row count, is only known at the end: the header is written with room
// for any count and rewritten by Close. The file is written as
// path+TempSuffix and renamed to path by Close.
type Writer struct {
	path    string
	f       *os.File
	bw      *bufio.Writer
	h       Header
	hsize   int
	rowLen  int // elements per row
	written int // elements written
	scratch []byte
	err     error
}

// Create starts a .npy file at path holding rows of shape rowShape (empty
// for a 1-d array) of dtype descr.
func Create(path, descr string, rowShape ...int) (*Writer, error) {
	if ItemSize(descr) == 0 {
		return nil, fmt.Errorf("npy: %s: dtype %q is not one of %s %s %s %s", path, descr, Uint8, Int32, Int64, Float32)
	}
	w := &Writer{path: path, h: Header{Descr: descr, Shape: append([]int{0}, rowShape...)}, rowLen: 1}
	for _, d := range rowShape {
		if d <= 0 {
			return nil, fmt.Errorf("npy: %s: row shape %v has a dimension below 1", path, rowShape)
		}
		w.rowLen *= d
	}
	// Room for the largest row count: the header at Close is padded to
	// the same size.
	big := Header{Descr: descr, Shape: append([]int{math.MaxInt64}, rowShape...)}
	hb, err := big.encode(0)
	if err != nil {
		return nil, err
	}
	w.hsize = len(hb)
	if hb, err = w.h.encode(w.hsize); err != nil {
		return nil, err
	}
	w.f, err = os.Create(path + TempSuffix)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	w.bw = bufio.NewWriterSize(w.f, 1<<16)
	if _, err := w.bw.Write(hb); err != nil {
		w.Abort()
		return nil, fmt.Errorf("npy: %s: %w", path, err)
	}
	return w, nil
}

// Path returns the final name of the file.
func (w *Writer) Path() string { return w.path }

// Rows returns the number of whole rows written so far.
func (w *Writer) Rows() int { return w.written / w.rowLen }

func (w *Writer) check(descr string, n int) error {
	if w.err != nil {
		return w.err
	}
	if descr != w.h.Descr {
		return fmt.Errorf("npy: %s: writing %s values to a %s array", w.path, descr, w.h.Descr)
	}
	w.written += n
	return nil
}

func (w *Writer) put(b []byte) error {
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("npy: %s: %w", w.path, err)
	}
	return w.err
}

// WriteUint8 appends uint8 elements.
func (w *Writer) WriteUint8(v []byte) error {
	if err := w.check(Uint8, len(v)); err != nil {
		return err
	}
	return w.put(v)
}

// WriteFloat32 appends float32 elements.
func (w *Writer) WriteFloat32(v []float32) error {
	if err := w.check(Float32, len(v)); err != nil {
		return err
	}
	b := w.scratch[:0]
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	w.scratch = b
	return w.put(b)
}

// WriteInt32 appends int32 elements.
func (w *Writer) WriteInt32(v []int32) error {
	if err := w.check(Int32, len(v)); err != nil {
		return err
	}
	b := w.scratch[:0]
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	w.scratch = b
	return w.put(b)
}

// WriteInt64 appends int64 elements.
func (w *Writer) WriteInt64(v []int64) error {
	if err := w.check(Int64, len(v)); err != nil {
		return err
	}
	b := w.scratch[:0]
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	w.scratch = b
	return w.put(b)
}

// Close writes the final header, syncs the file and renames it to its
// final name. It fails if the elements written do not make whole rows.
func (w *Writer) Close() error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	if w.written%w.rowLen != 0 {
		w.Abort()
		return fmt.Errorf("npy: %s: %d elements are not whole rows of %d", w.path, w.written, w.rowLen)
	}
	w.h.Shape[0] = w.written / w.rowLen
	hb, err := w.h.encode(w.hsize)
	if err == nil {
		err = w.bw.Flush()
	}
	if err == nil {
		_, err = w.f.WriteAt(hb, 0)
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err == nil {
		err = os.Rename(w.path+TempSuffix, w.path)
	}
	if err != nil {
		os.Remove(w.path + TempSuffix)
		w.err = fmt.Errorf("npy: %s: %w", w.path, err)
		return w.err
	}
	w.err = fmt.Errorf("npy: %s: writer is closed", w.path)
	return nil
}

// Abort drops the file being written.
func (w *Writer) Abort() error {
	if w.f == nil {
		return nil
	}
	w.f.Close()
	w.f = nil
	if w.err == nil {
		w.err = fmt.Errorf("npy: %s: writer is aborted", w.path)
	}
	return os.Remove(w.path + TempSuffix)
}

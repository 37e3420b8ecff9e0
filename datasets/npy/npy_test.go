package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteLoadRoundTripsEveryDtype(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		descr string
		shape []int
		write func(w *Writer) error
		check func(a *Array) (any, error)
		want  any
	}{
		{"u8", Uint8, []int{2, 3}, func(w *Writer) error {
			if err := w.WriteUint8([]byte{1, 2, 3, 4, 5, 6}); err != nil {
				return err
			}
			return w.WriteUint8([]byte{7, 8, 9, 10, 11, 255})
		}, func(a *Array) (any, error) { return a.Uint8s() }, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255}},
		{"f32", Float32, []int{5}, func(w *Writer) error {
			return w.WriteFloat32([]float32{0, 0.5, 1, -2.25, 0.37})
		}, func(a *Array) (any, error) { return a.Float32s() }, []float32{0, 0.5, 1, -2.25, 0.37}},
		{"i32", Int32, nil, func(w *Writer) error {
			return w.WriteInt32([]int32{-31999, 0, 4671})
		}, func(a *Array) (any, error) { return a.Int32s() }, []int32{-31999, 0, 4671}},
		{"i64", Int64, nil, func(w *Writer) error {
			return w.WriteInt64([]int64{-1 << 40, 7})
		}, func(a *Array) (any, error) { return a.Int64s() }, []int64{-1 << 40, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".npy")
			w, err := Create(path, c.descr, c.shape...)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.write(w); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("%s exists before Close", path)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path + TempSuffix); !os.IsNotExist(err) {
				t.Fatalf("temporary file left behind")
			}
			a, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.check(a)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("read %v, want %v", got, c.want)
			}
			elems := reflect.ValueOf(c.want).Len()
			rowLen := 1
			for _, d := range c.shape {
				rowLen *= d
			}
			if want := append([]int{elems / rowLen}, c.shape...); !reflect.DeepEqual(a.Shape, want) {
				t.Errorf("shape %v, want %v", a.Shape, want)
			}
		})
	}
}

func TestHeaderIsVersion1PaddedTo64AndEndsInNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.npy")
	w, err := Create(path, Uint8, 13, 8)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteUint8(make([]byte, 3*13*8))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	hlen := int(data[8]) | int(data[9])<<8
	total := 10 + hlen
	if total%64 != 0 || data[total-1] != '\n' || data[6] != 1 || data[7] != 0 {
		t.Fatalf("header of %d bytes, version %d.%d, last byte %q", total, data[6], data[7], data[total-1])
	}
	want := "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 13, 8), }"
	if got := strings.TrimRight(string(data[10:total]), " \n"); got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if len(data) != total+3*13*8 {
		t.Errorf("file of %d bytes, want %d", len(data), total+3*13*8)
	}
}

func TestReadHeaderParsesNumPyHeaders(t *testing.T) {
	cases := []struct {
		text string
		want Header
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", Header{Float32, false, []int{3, 5}}},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (10,), }", Header{Uint8, false, []int{10}}},
		{"{'descr': '<i8', 'fortran_order': True, 'shape': (), }", Header{Int64, true, []int{}}},
		{"{'shape': (2, 2), 'fortran_order': False, 'descr': '<i4'}", Header{Int32, false, []int{2, 2}}},
	}
	for _, c := range cases {
		raw := append([]byte(magic), 1, 0, byte(len(c.text)+1), 0)
		raw = append(raw, c.text+"\n"...)
		got, off, err := ReadHeader(bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if off != int64(len(raw)) || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v at %d, want %+v at %d", c.text, got, off, c.want, len(raw))
		}
	}
}

func TestBadFilesGiveErrorsNamingThem(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.npy")
	w, _ := Create(good, Int32)
	w.WriteInt32([]int32{1, 2, 3})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	cases := map[string][]byte{
		"short.npy":   data[:len(data)-2],
		"long.npy":    append(append([]byte{}, data...), 0),
		"magic.npy":   append([]byte("PK"), data[2:]...),
		"version.npy": append(append([]byte{}, data[:6]...), append([]byte{9, 0}, data[8:]...)...),
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v does not name the file", name, err)
		}
	}
	if _, err := Create(filepath.Join(dir, "x.npy"), "<f8"); err == nil {
		t.Error("Create accepted an unknown dtype")
	}
	w, _ = Create(filepath.Join(dir, "part.npy"), Float32, 4)
	w.WriteFloat32([]float32{1, 2, 3})
	if err := w.Close(); err == nil {
		t.Error("Close accepted a partial row")
	}
	if _, err := os.Stat(filepath.Join(dir, "part.npy")); !os.IsNotExist(err) {
		t.Error("a failed Close left the file")
	}
	if err := w.WriteFloat32([]float32{1}); err == nil {
		t.Error("write after Close succeeded")
	}
}

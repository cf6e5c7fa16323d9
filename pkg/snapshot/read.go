package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// This file reads a snapshot's bytes: from a file or a reader, gzip or not, within MaxSize.
// decode.go turns them into a Snapshot.

// MaxSize bounds a snapshot's size once decompressed (and a plain snapshot's size): 512 MiB.
//
// Real snapshots are far under it. The benchmarks' largest — three servers serving 100,000
// group/version/resources between them, with their recorded /apis documents — is 165 MB of
// indented JSON (86 MB of YAML), where real control planes serve hundreds of GVRs, CRD-heavy
// ones a few thousand; the limit leaves three times that. It keeps a hostile or mistaken input
// — a 4 MB gzip that expands to 4 GiB — from taking gigabytes of memory and minutes before it
// fails: reading stops at MaxSize+1 bytes, about half a second of gunzip. (Decoding takes
// about 6× the input in memory for JSON, 30× for YAML: docs/performance.md.)
const MaxSize = 512 << 20

// maxSize is MaxSize; tests lower it.
var maxSize int64 = MaxSize

// LoadFile reads and validates a snapshot file (YAML or JSON, optionally gzip). Errors name the
// file and, where there is one, the offending field.
func LoadFile(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	return load(f, path)
}

// Load reads and validates a snapshot from r; name is used in errors ("-" for stdin). At most
// MaxSize bytes are read.
func Load(r io.Reader, name string) (*Snapshot, error) {
	return load(r, name)
}

func load(r io.Reader, name string) (*Snapshot, error) {
	data, err := readLimited(r, false)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, unwrapPathError(err))
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return s, nil
}

// TooLargeError is returned for input larger than MaxSize.
type TooLargeError struct {
	Limit int64
	// Decompressed: the input is gzip, and too large once decompressed.
	Decompressed bool
}

func (e *TooLargeError) Error() string {
	if e.Decompressed {
		return fmt.Sprintf("larger than %s once decompressed — not a snapshot mvpctl wrote? (a decompression bomb?)", sizeString(e.Limit))
	}
	return fmt.Sprintf("larger than %s — not a snapshot mvpctl wrote?", sizeString(e.Limit))
}

func errTooLarge(decompressed bool) error {
	return &TooLargeError{Limit: maxSize, Decompressed: decompressed}
}

// readLimited reads all of r but at most maxSize bytes; more is a *TooLargeError. A regular
// file's size is checked before reading. Otherwise the input is read in chunks, joined once at
// the end: an input that turns out too large (a decompression bomb) costs at most maxSize bytes
// of memory, not the 2–3× that growing one buffer by copying would.
func readLimited(r io.Reader, decompressed bool) ([]byte, error) {
	lr := io.LimitReader(r, maxSize+1)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > maxSize {
				return nil, errTooLarge(decompressed)
			}
			// One read into a buffer of the file's size (+1 to see EOF). Should the file grow
			// meanwhile, the chunks below read the rest, still up to the limit.
			buf, eof, err := fill(lr, make([]byte, fi.Size()+1))
			if err != nil || eof {
				return buf, err
			}
			return readChunks(lr, [][]byte{buf}, int64(len(buf)), decompressed)
		}
	}
	return readChunks(lr, nil, 0, decompressed)
}

// readChunks reads the rest of lr (limited to maxSize+1) after chunks, which hold total bytes.
func readChunks(lr io.Reader, chunks [][]byte, total int64, decompressed bool) ([]byte, error) {
	for size, eof := 64<<10, false; !eof; size = min(2*size, 8<<20) {
		if total > maxSize {
			return nil, errTooLarge(decompressed)
		}
		var chunk []byte
		var err error
		if chunk, eof, err = fill(lr, make([]byte, size)); err != nil {
			return nil, err
		}
		chunks = append(chunks, chunk)
		total += int64(len(chunk))
	}
	if total > maxSize {
		return nil, errTooLarge(decompressed)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	data := make([]byte, 0, total)
	for _, c := range chunks {
		data = append(data, c...)
	}
	return data, nil
}

// fill reads r into buf until buf is full or r ends (eof). Errors other than io.EOF are
// returned: io.ErrUnexpectedEOF from a truncated gzip stream among them.
func fill(r io.Reader, buf []byte) (_ []byte, eof bool, err error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return buf, false, nil
}

// sizeString formats a byte count the way the limit is documented: "512 MiB".
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

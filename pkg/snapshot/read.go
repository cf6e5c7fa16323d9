package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
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
// fails: a gzip stream is counted before it is stored (gunzip), and refused at MaxSize+1 bytes,
// about half a second of gunzip. (Decoding takes
// at most about 2.5× the input in memory at 100 MB, JSON and YAML: docs/performance.md.)
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
	var reread func() ([]byte, error)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		reread = func() ([]byte, error) { return ReadFile(path) }
	}
	return load(f, path, reread)
}

// ReadFile reads a file's bytes, at most MaxSize (gzip stays compressed: Decode expands it,
// also within MaxSize). Errors do not name the file: the caller names it as what it reads
// (a snapshot, a version profile).
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	data, err := readLimited(f)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	return data, nil
}

// Load reads and validates a snapshot from r; name is used in errors ("-" for stdin). At most
// MaxSize bytes are read.
func Load(r io.Reader, name string) (*Snapshot, error) {
	return load(r, name, nil)
}

// load reads r and decodes it; reread, when not nil, reads the same bytes again (input), else
// the bytes read are kept as keptInput keeps them.
func load(r io.Reader, name string, reread func() ([]byte, error)) (*Snapshot, error) {
	data, err := readLimited(r)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, unwrapPathError(err))
	}
	var settle func()
	if reread == nil {
		reread, settle = keptInput(data)
	}
	s, err := decodeInput(&input{data: data, reread: reread, settle: settle})
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
// the end: an input that turns out too large (an endless stdin) costs at most maxSize bytes of
// memory, not the 2–3× that growing one buffer by copying would.
func readLimited(r io.Reader) ([]byte, error) {
	lr := io.LimitReader(r, maxSize+1)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > maxSize {
				return nil, errTooLarge(false)
			}
			// One read into a buffer of the file's size (+1 to see EOF). Should the file grow
			// meanwhile, the chunks below read the rest, still up to the limit.
			buf, eof, err := fill(lr, make([]byte, fi.Size()+1))
			if err != nil || eof {
				return buf, err
			}
			return readChunks(lr, [][]byte{buf}, int64(len(buf)))
		}
	}
	return readChunks(lr, nil, 0)
}

// readChunks reads the rest of lr (limited to maxSize+1) after chunks, which hold total bytes.
func readChunks(lr io.Reader, chunks [][]byte, total int64) ([]byte, error) {
	for size, eof := 64<<10, false; !eof; size = min(2*size, 8<<20) {
		if total > maxSize {
			return nil, errTooLarge(false)
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
		return nil, errTooLarge(false)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	data := make([]byte, 0, total)
	for i, c := range chunks {
		data = append(data, c...)
		chunks[i] = nil
	}
	if total >= collectAfter {
		// Collect the chunks now, while they are the only garbage, so that what decoding
		// allocates next reuses their memory (decode does the same between its stages).
		runtime.GC()
	}
	return data, nil
}

// gunzipHintMax is the largest decompressed size that gunzip takes from a gzip file's trailer
// without counting first: the most memory a file that lies about its size can make it fill
// before it is found out. Snapshots are far smaller (docs/performance.md: 14 MB for 10 servers
// × 2,000 GVRs); a larger one is counted, then decompressed. Tests lower it.
var gunzipHintMax int64 = 64 << 20

// gunzip decompresses a gzip file, at most maxSize bytes, into one buffer of the decompressed
// size; more is a *TooLargeError. A stream longer than maxSize (a decompression bomb) is
// counted, not stored: refusing it costs the memory of the compressed file and the gzip
// window, not maxSize.
//
// The trailer's last four bytes hold the decompressed size of the last gzip member modulo
// 4 GiB: for a file gzip wrote, the size. Up to gunzipHintMax it is trusted as far as filling a
// buffer of that size goes; a stream that turns out longer (several members, a trailer that
// lies), or a larger hint, is counted first and then decompressed a second time into a buffer
// of the counted size.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("bad gzip: %w", err)
	}
	badGzip := func(err error) error { return fmt.Errorf("bad gzip (truncated?): %w", err) }
	if hint := int64(binary.LittleEndian.Uint32(data[len(data)-4:])); hint <= min(maxSize, gunzipHintMax) {
		buf, eof, err := fill(zr, make([]byte, hint+1))
		if err != nil {
			return nil, badGzip(err)
		}
		if eof {
			return buf, nil
		}
	}
	restart := func() error { return zr.Reset(bytes.NewReader(data)) }
	if err := restart(); err != nil {
		return nil, badGzip(err)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, maxSize+1))
	if err != nil {
		return nil, badGzip(err)
	}
	if n > maxSize {
		return nil, errTooLarge(true)
	}
	if err := restart(); err != nil {
		return nil, badGzip(err)
	}
	buf, _, err := fill(zr, make([]byte, n+1))
	if err != nil {
		return nil, badGzip(err)
	}
	return buf, nil
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

// CheckRegular returns an error unless path is a regular file (or a symlink to one). A file
// mvpctl finds rather than is given — a profile directory's *.json, the current directory's
// accept file — is read only then: opening a named pipe waits for a writer that may never
// come, a device may never end. A file the user names (a snapshot, --profile, an audit log)
// may be a pipe: `<(zcat audit.log.gz)` is one.
func CheckRegular(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return unwrapPathError(err)
	}
	kind := ""
	switch m := info.Mode(); {
	case m.IsRegular():
		return nil
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m.IsDir():
		kind = "a directory"
	default:
		kind = "not a regular file"
	}
	return fmt.Errorf("%s, not a regular file", kind)
}

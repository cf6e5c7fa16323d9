package snapshot

import (
	"bytes"
	"compress/flate"
	"io"
)

// A snapshot read from a pipe (stdin) cannot be read again, as a file is (LoadFile), for the
// wording of an error: its bytes are kept instead, in a form that costs a fraction of them, so
// that a large YAML snapshot's bytes can be let go once converted to JSON, as a file's are.

// keepCompressedFrom is the size from which a YAML document read from a pipe is kept
// compressed: collectAfter, from which decode collects garbage between its stages. Tests lower it.
var keepCompressedFrom = collectAfter

// keptInput returns how to read data (the whole input of a reader) again, and a function that
// waits until data is no longer needed for that. gzip input is kept as it came; a large YAML
// document is compressed (flate, fastest: about 20× for a snapshot, 0.7 s per 100 MB) on
// another goroutine while it is decoded. Other input is not kept (nil): JSON is decoded without
// letting its bytes go, and a small YAML document's bytes cost little.
func keptInput(data []byte) (reread func() ([]byte, error), settle func()) {
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		return func() ([]byte, error) { return data, nil }, nil
	}
	if len(data) < keepCompressedFrom || firstByte(data) == '{' {
		return nil, nil
	}
	var z bytes.Buffer
	var zerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, _ := flate.NewWriter(&z, flate.BestSpeed)
		if _, zerr = w.Write(data); zerr == nil {
			zerr = w.Close()
		}
	}()
	size := len(data)
	reread = func() ([]byte, error) {
		<-done
		if zerr != nil {
			return nil, zerr
		}
		out := make([]byte, size)
		if _, err := io.ReadFull(flate.NewReader(&z), out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return reread, func() { <-done }
}

// firstByte is data's first byte that is not white space (0 when there is none).
func firstByte(data []byte) byte {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 {
		return t[0]
	}
	return 0
}

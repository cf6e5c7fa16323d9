//go:build !snapdecode

package snapshot

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
)

// This file is the generated decoder's "servers" array: a large snapshot's servers decoded
// side by side (fastdecode.go has the decoder's reading of values).

// parallelMin is the size from which a JSON snapshot's servers are decoded side by side: below
// it, one decode takes a few milliseconds and goroutines would not pay off.
const parallelMin = 1 << 20

// servers decodes the "servers" array; in a large snapshot (parallelMin), its elements side by
// side: this goroutine finds where each element ends (a quick pass over brackets and strings)
// and hands it to workers, one per CPU, which decode the elements found while it looks for the
// next, each with a decoder of its own.
func (d *fastDecoder) servers(v *[]Server) bool {
	if len(d.data) < parallelMin || runtime.GOMAXPROCS(0) < 2 {
		return d.decodeSliceOfServer(v)
	}
	if !d.arrayStart() {
		return false
	}
	if d.arrayEnd() {
		*v = []Server{}
		return true
	}
	d.ws()
	if d.serversAsIndented(v) {
		return true
	}
	type element struct {
		start, end int
		out        *Server
	}
	found := make(chan element, 64)
	var failed, unplain atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One decoder per worker: its scratch slices and interned strings serve every
			// server the worker decodes.
			ed := &fastDecoder{strs: new(internCache), refused: d.refused}
			for e := range found {
				if failed.Load() {
					continue
				}
				ed.data, ed.pos = d.data[:e.end], e.start
				if !ed.decodeServer(e.out) || !ed.atEnd() {
					failed.Store(true)
				}
			}
			if ed.unplain {
				unplain.Store(true)
			}
		}()
	}
	var out []*Server
	scanned := func() bool {
		for {
			d.ws()
			end := objectEnd(d.data, d.pos)
			if end < 0 {
				return false
			}
			e := element{start: d.pos, end: end, out: new(Server)}
			out = append(out, e.out)
			found <- e
			d.pos = end
			more, ok := d.more(']')
			if !ok {
				return false
			}
			if !more {
				return true
			}
		}
	}()
	close(found)
	wg.Wait()
	if !scanned || failed.Load() {
		return false
	}
	d.unplain = d.unplain || unplain.Load()
	servers := make([]Server, len(out))
	for i, srv := range out {
		servers[i] = *srv
	}
	*v = servers
	return true
}

// indentedServerBoundary is what separates two servers in a snapshot as mvpctl writes it
// (json.MarshalIndent, two spaces): the first server's closing brace and the next one's opening
// brace, four spaces in. JSON strings hold no raw newline, so it occurs nowhere else there.
var indentedServerBoundary = []byte("\n    },\n    {\n")

// serversAsIndented decodes the servers of a snapshot indented as mvpctl writes it side by side
// without a pass to find where each ends: each server is taken to start after an
// indentedServerBoundary, all are decoded at once, and then it is checked that each ends
// exactly where the next was taken to start (after a ',' and white space), and the last before
// the array's ']'. A decoder is deterministic, so each server is then decoded from exactly
// where a decoder going through the array one server after the other would start it. Any
// other layout (compact JSON, a boundary that is not one) reports false, with d unmoved.
func (d *fastDecoder) serversAsIndented(v *[]Server) bool {
	starts := []int{d.pos}
	for i := d.pos; ; {
		j := bytes.Index(d.data[i:], indentedServerBoundary)
		if j < 0 {
			break
		}
		if len(starts) == 1<<12 {
			return false // not servers
		}
		i += j + len(indentedServerBoundary)
		starts = append(starts, i-2)
	}
	if len(starts) < 2 {
		return false
	}
	servers := make([]Server, len(starts))
	ends := make([]int, len(starts)) // -1: not a server
	var next atomic.Int64
	var unplain atomic.Bool // a server decoded (or taken for one) held text that is not plain
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(starts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ed := &fastDecoder{data: d.data, strs: new(internCache), refused: d.refused}
			for i := int(next.Add(1) - 1); i < len(starts); i = int(next.Add(1) - 1) {
				ed.pos, ends[i] = starts[i], -1
				if ed.decodeServer(&servers[i]) {
					ends[i] = ed.pos
				}
			}
			if ed.unplain {
				unplain.Store(true)
			}
		}()
	}
	wg.Wait()
	d.unplain = d.unplain || unplain.Load()
	for i := 0; ends[i] >= 0; i++ {
		e := fastDecoder{data: d.data, pos: ends[i], refused: d.refused}
		switch more, ok := e.more(']'); {
		case !ok:
			return false
		case !more:
			d.pos = e.pos
			*v = servers[: i+1 : i+1]
			return true
		}
		if e.ws(); i+1 == len(starts) || e.pos != starts[i+1] {
			return false
		}
	}
	return false
}

// objectEnd returns the end of the object that starts at i, or -1 when data[i] does not start
// one or it is not closed. Only brackets and strings are looked at: the element's decoder
// checks the rest.
func objectEnd(data []byte, i int) int {
	if i >= len(data) || data[i] != '{' {
		return -1
	}
	depth := 0
	for ; i < len(data); i++ {
		if !jsonSpecial[data[i]] {
			for i+9 <= len(data) && binary.LittleEndian.Uint64(data[i+1:]) == 0x2020202020202020 {
				i += 8
			}
			continue
		}
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			i = stringEnd(data, i+1)
		}
	}
	return -1
}

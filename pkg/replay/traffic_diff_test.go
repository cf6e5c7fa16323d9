package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/test/fake/auditevents"
)

// readResult is everything a traffic reader tells Replay.
type readResult struct {
	Reqs      []TrafficRequest
	Malformed int64
	Examples  []string
	Skipped   int64
	Err       string
}

func readAllNew(t *testing.T, data []byte, name, format string) readResult {
	t.Helper()
	tr, err := NewReader(bytes.NewReader(data), name, format)
	if err != nil {
		return readResult{Err: err.Error()}
	}
	defer tr.Close()
	var r readResult
	for {
		q, err := tr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.Err = err.Error()
			}
			break
		}
		r.Reqs = append(r.Reqs, TrafficRequest{Method: q.Method, Path: q.Path, UserAgent: q.UserAgent, Received: q.Received})
	}
	r.Malformed, r.Examples, r.Skipped = tr.Malformed, tr.Examples, tr.Skipped
	return r
}

func readAllRef(t *testing.T, data []byte, name, format string) readResult {
	t.Helper()
	tr, err := newRefReader(bytes.NewReader(data), name, format)
	if err != nil {
		return readResult{Err: err.Error()}
	}
	var r readResult
	for {
		q, err := tr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.Err = err.Error()
			}
			break
		}
		r.Reqs = append(r.Reqs, q)
	}
	r.Malformed, r.Examples, r.Skipped = tr.Malformed, tr.Examples, tr.Skipped
	return r
}

func diffReaders(t *testing.T, what string, data []byte, format string) readResult {
	t.Helper()
	want := readAllRef(t, data, "log", format)
	got := readAllNew(t, data, "log", format)
	if !reflect.DeepEqual(got, want) {
		if len(got.Reqs) == len(want.Reqs) {
			for i := range got.Reqs {
				if got.Reqs[i] != want.Reqs[i] {
					t.Errorf("%s: request %d: got %+v, want %+v", what, i, got.Reqs[i], want.Reqs[i])
					break
				}
			}
		}
		got.Reqs, want.Reqs = got.Reqs[:min(3, len(got.Reqs))], want.Reqs[:min(3, len(want.Reqs))]
		t.Errorf("%s: new reader differs from the reference:\n got %+v\nwant %+v", what, got, want)
	}
	return want
}

func generated(t *testing.T, o auditevents.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := auditevents.Write(&buf, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipped(data []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// TestTrafficReaderMatchesReference compares the parallel field-scanning reader with the old
// one-line-at-a-time encoding/json reader on generated logs and edge cases.
func TestTrafficReaderMatchesReference(t *testing.T) {
	n := 20000 // several blocks
	if testing.Short() {
		n = 3000
	}
	base := auditevents.Options{Seed: 3, Requests: n, Stages: true, MalformedEvery: 97}
	variants := map[string]auditevents.Options{"plain": base}
	o := base
	o.CRLF = true
	variants["crlf"] = o
	o = base
	o.NoTrailingNewline = true
	variants["no trailing newline"] = o
	o = base
	o.Stages, o.MalformedEvery, o.Seed = false, 0, 9
	variants["clean"] = o
	for name, o := range variants {
		data := generated(t, o)
		want := diffReaders(t, name, data, FormatAuditLog)
		diffReaders(t, name+", gzip", gzipped(data), FormatAuditLog)
		if want.Malformed == 0 && o.MalformedEvery > 0 {
			t.Errorf("%s: no malformed lines injected", name)
		}
		// Cut the gzip stream short: the error and its line number must match too.
		gz := gzipped(data)
		diffReaders(t, name+", truncated gzip", gz[:len(gz)*2/3], FormatAuditLog)
	}

	line := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"get","requestURI":"/api/v1/pods","userAgent":"ua"}`
	edge := map[string]string{
		"empty":               "",
		"newline":             "\n",
		"one line, no eol":    line,
		"blank lines and crs": "\r\n\r\n" + line + "\r\n  \n\t\n# comment\n" + line,
		"duplicate stages":    strings.Replace(line, `"stage":"ResponseComplete"`, `"stage":"RequestReceived","stage":"ResponseComplete"`, 1) + "\n" + strings.Replace(line, `"stage":"ResponseComplete"`, `"stage":"ResponseComplete","stage":"ResponseStarted"`, 1),
		"case and escapes":    `{"Kind":"Event","APIVERSION":"audit.k8s.io/v1","verb":"get","requestURI":"/api/v1/pods?a=1\u0026b=\u00e9","userAgent":"\ud83d\ude00 \xff"}` + "\n" + `{"kind":"Event","apiVersion":"audit.k8s.io/v1","verb":"list","verb":null,"requestURI":"/apis/apps/v1/deployments"}`,
		"not objects":         "[]\nnull\n\"x\"\n5\n{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"verb\":5}\n",
		"unknown verbs":       strings.Replace(line, `"get"`, `"GET"`, 1) + "\n" + strings.Replace(line, `"/api/v1/pods"`, `""`, 1),
		"panic stage":         strings.Replace(line, "ResponseComplete", "Panic", 1),
	}
	for name, in := range edge {
		diffReaders(t, name, []byte(in), FormatAuditLog)
		diffReaders(t, name+", gzip", gzipped([]byte(in)), FormatAuditLog)
	}
	diffReaders(t, "requests", []byte("# c\nGET /api/v1/pods\r\n\nbad line here\npost /apis/batch/v1/namespaces/x/jobs"), FormatRequests)

	// Lines at and just over the length limit, between ordinary lines.
	for _, size := range []int{maxLine - 1, maxLine, maxLine + 1} {
		if testing.Short() {
			break
		}
		pad := size - len(line) - 1 // with its newline the padded line is size bytes long
		long := strings.Replace(line, `"userAgent":"ua"`, `"userAgent":"ua","pad":"`+strings.Repeat("x", pad-len(`,"pad":""`))+`"`, 1)
		in := line + "\n" + long + "\n" + line + "\n"
		diffReaders(t, fmt.Sprintf("line of %d bytes", size), []byte(in), FormatAuditLog)
		diffReaders(t, fmt.Sprintf("last line of %d bytes, no eol", size), []byte(line+"\n"+long), FormatAuditLog)
	}
}

// errReader fails after n bytes.
type errReader struct {
	r io.Reader
	n int
}

func (e *errReader) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	p = p[:min(len(p), e.n)]
	n, err := e.r.Read(p)
	e.n -= n
	return n, err
}

func TestTrafficReaderReadErrorMatchesReference(t *testing.T) {
	data := generated(t, auditevents.Options{Seed: 5, Requests: 3000})
	for _, cut := range []int{0, 1, 1000, len(data) / 2, bytes.IndexByte(data, '\n') + 1, len(data) - 1} {
		ref, _ := newRefReader(&errReader{bytes.NewReader(data), cut}, "log", FormatAuditLog)
		var want readResult
		for {
			q, err := ref.Next()
			if err != nil {
				want.Err = err.Error()
				break
			}
			want.Reqs = append(want.Reqs, q)
		}
		tr, _ := NewReader(&errReader{bytes.NewReader(data), cut}, "log", FormatAuditLog)
		var got readResult
		for {
			q, err := tr.Next()
			if err != nil {
				got.Err = err.Error()
				break
			}
			got.Reqs = append(got.Reqs, TrafficRequest{Method: q.Method, Path: q.Path, UserAgent: q.UserAgent, Received: q.Received})
		}
		if got.Err != want.Err || len(got.Reqs) != len(want.Reqs) {
			t.Errorf("cut at %d: got %d requests, %q; want %d, %q", cut, len(got.Reqs), got.Err, len(want.Reqs), want.Err)
		}
	}
}

// writeGenerated writes a generated audit log of n requests into a temporary directory.
func writeGenerated(b *testing.B, n int, gz bool) (string, int64) {
	b.Helper()
	data := generatedB(b, auditevents.Options{Seed: 1, Requests: n})
	size := int64(len(data))
	name := b.TempDir() + "/audit.log"
	if gz {
		data, name = gzipped(data), name+".gz"
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return name, size
}

func generatedB(b *testing.B, o auditevents.Options) []byte {
	var buf bytes.Buffer
	if err := auditevents.Write(&buf, o); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchmarkReplay replays a generated log of 100,000 requests (≈95 MB) from a file through a
// three-server rolling upgrade; MB/s is of the uncompressed log.
func benchmarkReplay(b *testing.B, old, gz bool) {
	sim := upgradeSimulation(b)
	name, size := writeGenerated(b, 100000, gz)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		var rep *Report
		if old {
			tr, _ := newRefReader(f, name, FormatAuditLog)
			rep, err = replay(sim, tr.Next, func(*Report) {}, name, FormatAuditLog)
		} else {
			tr, _ := NewReader(f, name, FormatAuditLog)
			rep, err = Replay(sim, tr, name, FormatAuditLog)
		}
		f.Close()
		if err != nil || rep.Requests != 100000 {
			b.Fatalf("%v, %d requests", err, rep.Requests)
		}
	}
}

// BenchmarkCountLines is the benchmarks' `wc -l`: the same file as BenchmarkReplayNew's, read
// in blocks as the reader reads it, its newlines counted. The goal for replay is at most five
// times its time (docs/performance.md); run both in one invocation:
// go test ./pkg/simulate -run '^$' -bench 'CountLines|ReplayNew$'.
func BenchmarkCountLines(b *testing.B) {
	name, size := writeGenerated(b, 100000, false)
	b.SetBytes(size)
	buf := make([]byte, blockSize)
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		lines := 0
		for {
			n, err := f.Read(buf)
			lines += bytes.Count(buf[:n], []byte{'\n'})
			if err != nil {
				break
			}
		}
		f.Close()
		if lines != 100000 {
			b.Fatalf("%d lines", lines)
		}
	}
}

func BenchmarkReplayOld(b *testing.B)     { benchmarkReplay(b, true, false) }
func BenchmarkReplayNew(b *testing.B)     { benchmarkReplay(b, false, false) }
func BenchmarkReplayOldGzip(b *testing.B) { benchmarkReplay(b, true, true) }
func BenchmarkReplayNewGzip(b *testing.B) { benchmarkReplay(b, false, true) }

// TestReplayMatchesReference replays a generated log (with every stage, malformed lines, CRLF
// and gzip) through a rolling upgrade with the old reader and the new one: the reports must be
// identical, down to the order of their rows.
func TestReplayMatchesReference(t *testing.T) {
	sim := upgradeSimulation(t)
	o := auditevents.Options{Seed: 11, Requests: 20000, Stages: true, MalformedEvery: 61, CRLF: true}
	if testing.Short() {
		o.Requests = 3000
	}
	plain := generated(t, o)
	for name, data := range map[string][]byte{"plain": plain, "gzip": gzipped(plain)} {
		ref, _ := newRefReader(bytes.NewReader(data), "log", FormatAuditLog)
		want, err := replay(sim, ref.Next, func(rep *Report) {
			rep.Malformed, rep.MalformedExamples, rep.Skipped = ref.Malformed, ref.Examples, ref.Skipped
		}, "log", FormatAuditLog)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := NewReader(bytes.NewReader(data), "log", FormatAuditLog)
		got, err := Replay(sim, tr, "log", FormatAuditLog)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: replay with the new reader differs:\n got %+v\nwant %+v", name, got, want)
		}
		if want.Malformed == 0 || want.Skipped == 0 || want.Unparsable+want.NonResource == 0 {
			t.Errorf("%s: the log exercises too little: %+v", name, want)
		}
	}
}

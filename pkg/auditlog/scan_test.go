package auditlog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/test/fake/auditevents"
)

type ref struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	AuditID    string `json:"auditID"`
	Received   string `json:"requestReceivedTimestamp"`
	Status     struct {
		Code int32 `json:"code"`
	} `json:"responseStatus"`
}

// check fails when Scan accepts a line encoding/json rejects or reads differently. It reports
// whether Scan took the line.
func check(t *testing.T, line []byte) bool {
	t.Helper()
	var f Fields
	if !Scan(line, &f) {
		return false
	}
	var r ref
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("Scan accepted %q; encoding/json: %v", line, err)
	}
	got := ref{Kind: string(f.Kind), APIVersion: string(f.APIVersion), Stage: string(f.Stage), Verb: string(f.Verb), RequestURI: string(f.RequestURI), UserAgent: string(f.UserAgent), AuditID: string(f.AuditID), Received: string(f.RequestReceivedTimestamp)}
	if f.Code != nil {
		c, err := strconv.ParseInt(string(f.Code), 10, 32)
		if err != nil {
			t.Fatalf("Scan read code %q of %q: %v", f.Code, line, err)
		}
		got.Status.Code = int32(c)
	}
	if got != r {
		t.Fatalf("Scan read %q as %+v; encoding/json as %+v", line, got, r)
	}
	return true
}

var cases = []struct {
	line string
	fast bool
}{
	{`{}`, true},
	{` { "verb" : "get" , "kind":"Event"} `, true},
	{`{"verb":"get","verb":null}`, true},
	{`{"verb":"get","verb":"list"}`, true},
	{`{"requestURI":"/a?b=1\u0026c=2\/\"\\\n\t\u00e9\u2028"}`, true},
	{`{"x":[1,-2.5e+3,0,true,false,null,{"a":{}},[]],"y":"\u00e9é","verb":"get"}`, true},
	{`{"Verb":"get"}`, false},
	{`{"VERB":"get"}`, false},
	{`{"ver\u0062":"get"}`, false},
	{`{"verb":7}`, false},
	{`{"verb":"\ud83d\ude00"}`, false},
	{`{"verb":"é"}`, false},
	{`[]`, false},
	{`null`, false},
	{`"x"`, false},
	{`{"verb":"get"`, false},
	{`{"verb":"get"}x`, false},
	{`{"verb":"get",}`, false},
	{`{"x":01}`, false},
	{`{"x":1.}`, false},
	{`{"x":-}`, false},
	{`{"x":"a` + "\x01" + `"}`, false},
	{`{"x":"\x"}`, false},
	{`{"x":"\u12"}`, false},
	{`{"x":tru}`, false},
	{`{"x" 1}`, false},
	{`{"x":[1 2]}`, false},
	{`{"x":{"a" :1,}}`, false},
	{`{"x":"` + "\xff\xfe" + `"}`, true},
	{`{"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-23T09:36:23.013143Z"}`, true},
	{`{"responseStatus":{"code":404},"responseStatus":{"status":"x"}}`, true},
	{`{"responseStatus":{"code":404},"responseStatus":{"code":null}}`, true},
	{`{"responseStatus":null,"responseStatus":{"code":-1}}`, true},
	{`{"responseStatus":{}}`, true},
	{`{"responseStatus":"x"}`, false},
	{`{"responseStatus":{"code":"200"}}`, false},
	{`{"responseStatus":{"code":200.0}}`, false},
	{`{"responseStatus":{"code":2e2}}`, false},
	{`{"responseStatus":{"code":9999999999}}`, false},
	{`{"responseStatus":{"Code":200}}`, false},
	{`{"ResponseStatus":{"code":200}}`, false},
	{`{"requestReceivedTimestamp":5}`, false},
	{`{"responseStatus":{"code":200,}}`, false},
	// Long strings, escapes next to quotes and at the ends of 64-byte chunks (the bitmaps of
	// an earlier scanner), escapes outside strings.
	{`{"annotations":{"a":"` + strings.Repeat("x", 70) + `\\"},"verb":"get","userAgent":"` + strings.Repeat("\\\"", 30) + `"}`, true},
	{`{"x":"` + strings.Repeat("y", 57) + `\"","verb":"g\"et"}`, true},
	{`{"x":"` + strings.Repeat("y", 58) + `\\","verb":"get"}`, true},
	{`{"x":"\\\"\\","requestURI":"/a\\"}`, true},
	{`{"x":\"a"}`, false},
	{`{"x":"a"\,"verb":"get"}`, false},
	{`{"x":"a\"}`, false},
	{`{"x":"\u00"}`, false},
	{`{"x":"a\` + strings.Repeat(" ", 64), false},
	{`{"x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `,"verb":"get"}`, true},
	{`{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false},
	{`{"x":[{"a":[1,{"b":null}]},"c"],"responseStatus":{"x":{"code":"y"},"code":5},"verb":"get"}`, true},
	{`{"x":1e5,"y":-0.5E-2,"z":[true,false,null],"verb":"get"}` + "\r\n", true},
	{`{"x":1"a","verb":"get"}`, false},
	{`{"x":truex}`, false},
	{`{"x":nul}`, false},
	{`{"x":[1,]}`, false},
	{`{"x":{"a":1}]}`, false},
	{`{"x":[1}}`, false},
	{` {"verb":"get"} `, true},
	{"\t{\"verb\":\"get\"}", true},
}

func TestScan(t *testing.T) {
	for _, c := range cases {
		if got := check(t, []byte(c.line)); got != c.fast {
			t.Errorf("Scan(%q) = %v, want %v", c.line, got, c.fast)
		}
	}
}

func TestScanGenerated(t *testing.T) {
	var buf bytes.Buffer
	if err := auditevents.Write(&buf, auditevents.Options{Seed: 7, Requests: 20000, Stages: true, MalformedEvery: 50}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	fast, n := 0, 0
	for sc.Scan() {
		n++
		if check(t, bytes.TrimSpace(sc.Bytes())) {
			fast++
		}
	}
	if fast < n*98/100 {
		t.Errorf("fast path took %d of %d lines", fast, n)
	}
}

// TestFoldsToWanted checks foldsToWanted's table of lengths against wanted.
func TestFoldsToWanted(t *testing.T) {
	for _, w := range wanted {
		if !foldsToWanted([]byte(strings.ToUpper(w))) || !foldsToWanted([]byte(w)) {
			t.Errorf("foldsToWanted misses %q", w)
		}
		if foldsToWanted([]byte(w+"x")) || foldsToWanted([]byte(w[1:])) {
			t.Errorf("foldsToWanted takes a key near %q", w)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { check(t, line) })
}

// TestStops8: the lowest byte stops8 flags is the first byte strStop marks, for every pair of
// bytes at every pair of positions in a word (which covers each borrow a lower byte can pass
// up) and for random words.
func TestStops8(t *testing.T) {
	check := func(b [8]byte) {
		x := binary.LittleEndian.Uint64(b[:])
		want := 8
		for i, c := range b {
			if strStop[c] {
				want = i
				break
			}
		}
		got := 8
		if m := stops8(x); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want {
			t.Fatalf("stops8(% x): first stop at %d, want %d", b, got, want)
		}
	}
	for p1 := range 8 {
		for p2 := p1; p2 < 8; p2++ {
			for c1 := range 256 {
				for c2 := range 256 {
					b := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
					b[p1], b[p2] = byte(c1), byte(c2)
					check(b)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1 << 20 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], rng.Uint64())
		check(b)
	}
}

// BenchmarkScan reads the fields of 10,000 generated events; BenchmarkCountLines counts the
// newlines of the same bytes, the floor any line reader is measured against.
func BenchmarkScan(b *testing.B) {
	lines := benchLines(b)
	var f Fields
	for b.Loop() {
		for _, l := range lines {
			if !Scan(l, &f) {
				b.Fatalf("Scan declined %s", l)
			}
		}
	}
}

func BenchmarkCountLines(b *testing.B) {
	lines := benchLines(b)
	n := 0
	for b.Loop() {
		for _, l := range lines {
			n += bytes.Count(l, []byte{'\n'})
		}
	}
	_ = n
}

func benchLines(b *testing.B) [][]byte {
	var buf bytes.Buffer
	if err := auditevents.Write(&buf, auditevents.Options{Seed: 1, Requests: 10000}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	return bytes.SplitAfter(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), []byte{'\n'})
}

package snapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gzipBomb returns a gzip stream of n MiB of zeros: n concatenated gzip members of 1 MiB each
// (about 1 KiB each), which gzip.Reader reads as one stream. 4096 MiB is 4 MiB on disk,
// built in milliseconds.
func gzipBomb(t testing.TB, n int) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), n)
}

func withMaxSize(t *testing.T, n int64) {
	old := maxSize
	maxSize = n
	t.Cleanup(func() { maxSize = old })
}

// TestDecompressionBomb: a small gzip that expands to 4 GiB fails fast, with one error naming
// the limit, having counted the decompressed bytes rather than stored them: the memory it takes
// is the file's and gzip's own, whatever the limit.
func TestDecompressionBomb(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
		// last: a last member of this many MiB, whose trailer (the file's last four bytes)
		// then asks for a buffer that large.
		last int
		want string
	}{
		// A lowered limit: cheap enough for every run.
		{"16 MiB limit", 16 << 20, 0, "larger than 16 MiB once decompressed"},
		{"trailer asks for 12 MiB", 16 << 20, 12, "larger than 16 MiB once decompressed"},
		// The real one: decompresses 512 MiB of zeros, about 1 s.
		{"MaxSize", MaxSize, 0, "larger than 512 MiB once decompressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.limit == MaxSize && testing.Short() {
				t.Skip("reads 512 MiB")
			}
			withMaxSize(t, tc.limit)
			old := gunzipHintMax
			gunzipHintMax = 1 << 20 // the size of the bomb's members: the bound below holds it
			defer func() { gunzipHintMax = old }()
			bomb := gzipBomb(t, 4096)
			if tc.last > 0 {
				var last bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&last, gzip.BestCompression)
				zw.Write(make([]byte, tc.last<<20))
				zw.Close()
				bomb = append(bomb, last.Bytes()...)
			}
			path := filepath.Join(t.TempDir(), "bomb.yaml.gz")
			if err := os.WriteFile(path, bomb, 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := LoadFile(path)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			want := "snapshot " + path + ": " + tc.want + " — not a snapshot mvpctl wrote? (a decompression bomb?)"
			if err == nil || err.Error() != want {
				t.Fatalf("error = %v\nwant %s", err, want)
			}
			var tooLarge *TooLargeError
			if !errors.As(err, &tooLarge) || !tooLarge.Decompressed || tooLarge.Limit != tc.limit {
				t.Errorf("error is not a *TooLargeError for the decompressed size: %#v", err)
			}
			allocated := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("%d KiB gzip of 4 GiB: rejected after %v, %d MiB allocated", len(bomb)>>10, elapsed.Round(time.Millisecond), allocated>>20)
			// The bound: the file itself, the buffer its trailer asks for (up to
			// gunzipHintMax), gzip's window and slack; storing up to the limit would be 16 MiB
			// or more, trusting the trailer 12 MiB.
			if allocated > int64(len(bomb))+(4<<20) {
				t.Errorf("allocated %d MiB to reject a bomb with a %s limit", allocated>>20, sizeString(tc.limit))
			}
			if elapsed > 20*time.Second {
				t.Errorf("took %v to reject a bomb", elapsed)
			}
		})
	}
}

// TestGunzip: what gunzip returns is the decompressed file, whether the trailer's size is
// taken (one member), found short (two members: the trailer gives the last one's size) or not
// trusted (above gunzipHintMax); a damaged stream is a "bad gzip" error.
func TestGunzip(t *testing.T) {
	want, err := valid().Marshal(false)
	if err != nil {
		t.Fatal(err)
	}
	gz := func(parts ...[]byte) []byte {
		var out bytes.Buffer
		for _, p := range parts {
			zw := gzip.NewWriter(&out)
			zw.Write(p)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		return out.Bytes()
	}
	one := gz(want)
	lyingTrailer := append([]byte{}, one...)
	lyingTrailer[len(lyingTrailer)-4]-- // the size one byte short: the stream is longer than it says
	for _, tc := range []struct {
		name    string
		in      []byte
		hintMax int64
		wantErr string
	}{
		{"one member", one, 64 << 20, ""},
		{"two members", gz(want[:10], want[10:]), 64 << 20, ""},
		{"size not trusted", one, 0, ""},
		{"trailer one byte short", lyingTrailer, 64 << 20, "bad gzip (truncated?): gzip: invalid checksum"},
		{"truncated", one[:len(one)-10], 64 << 20, "bad gzip (truncated?): unexpected EOF"},
		{"truncated, size not trusted", one[:len(one)-10], 0, "bad gzip (truncated?): unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := gunzipHintMax
			gunzipHintMax = tc.hintMax
			defer func() { gunzipHintMax = old }()
			got, err := gunzip(tc.in)
			switch {
			case tc.wantErr != "":
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("error = %v, want %s", err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("error = %v", err)
			case !bytes.Equal(got, want):
				t.Errorf("got %d bytes, want the %d of the snapshot", len(got), len(want))
			}
		})
	}
}

// TestSizeLimit runs with a lowered limit: the same checks, for plain input, stdin and gzip.
func TestSizeLimit(t *testing.T) {
	withMaxSize(t, 64<<10)
	data, _ := valid().Marshal(false)
	big := append(append([]byte{}, data...), bytes.Repeat([]byte("# padding\n"), 7000)...)

	if _, err := Load(bytes.NewReader(data), "<stdin>"); err != nil {
		t.Fatalf("a snapshot under the limit: %v", err)
	}
	for _, tc := range []struct {
		name string
		load func() error
		want string
	}{
		{"stdin", func() error { _, err := Load(bytes.NewReader(big), "<stdin>"); return err },
			"snapshot <stdin>: larger than 64 KiB — not a snapshot mvpctl wrote?"},
		{"endless stdin", func() error { _, err := Load(endless{}, "<stdin>"); return err },
			"snapshot <stdin>: larger than 64 KiB — not a snapshot mvpctl wrote?"},
		{"Decode", func() error { _, err := Decode(big); return err },
			"larger than 64 KiB — not a snapshot mvpctl wrote?"},
		{"gzip", func() error { _, err := Load(bytes.NewReader(gzipBomb(t, 1)), "s.gz"); return err },
			"snapshot s.gz: larger than 64 KiB once decompressed — not a snapshot mvpctl wrote? (a decompression bomb?)"},
		{"file", func() error {
			path := filepath.Join(t.TempDir(), "big.yaml")
			os.WriteFile(path, big, 0o644)
			_, err := LoadFile(path)
			return err
		}, "big.yaml: larger than 64 KiB — not a snapshot mvpctl wrote?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.load(); err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

var _ io.Reader = endless{}

func TestOneDocument(t *testing.T) {
	yml, _ := valid().Marshal(false)
	js, _ := valid().Marshal(true)
	lines := func(b []byte) int { return bytes.Count(b, []byte("\n")) }
	cat := func(parts ...string) []byte { return []byte(strings.Join(parts, "")) }
	for _, tc := range []struct {
		name string
		in   []byte
		want string // "" = loads
	}{
		{"yaml", yml, ""},
		{"json", js, ""},
		{"json with trailing white space", cat(string(js), "\n\n  \t\n"), ""},
		{"compact json", cat(strings.Join(strings.Fields(string(js)), "")), ""},
		{"yaml with leading ---", cat("---\n", string(yml)), ""},
		{"yaml with comments and ---", cat("# taken by mvpctl\n---\n", string(yml), "---\n# nothing more\n"), ""},
		{"yaml with trailing ---", cat(string(yml), "---\n"), ""},
		{"yaml ended by ...", cat(string(yml), "...\n"), ""},
		{"yaml flow mapping", []byte(`{apiVersion: mvpctl.io/v1alpha1, kind: Snapshot, servers: [{name: a, version: v1.36.3, reachable: true}]}`), ""},
		{"block scalar holding dashes", cat(strings.Replace(string(yml), "  error: connection refused\n", "  error: |\n    ---\n    refused\n", 1)), ""},

		{"two yaml documents", cat(string(yml), "---\n", string(yml)),
			"more than one document (a second one starts at line " + itoa(lines(yml)+1) + ")"},
		{"yaml then --- text", cat(string(yml), "--- foo\n"),
			"more than one document (a second one starts at line " + itoa(lines(yml)+1) + ")"},
		{"yaml, ..., more", cat(string(yml), "...\n\nkind: Snapshot\n"),
			"more than one document (a second one starts at line " + itoa(lines(yml)+3) + ")"},
		{"two json documents", cat(string(js), string(js)),
			"more than one document (a second one starts at line " + itoa(lines(js)+1) + ")"},
		{"json then ---", cat(string(js), "---\n", string(yml)),
			"more than one document (a second one starts at line " + itoa(lines(js)+1) + ")"},
		{"json then junk", cat(string(js), "\n}junk"),
			"trailing data after the snapshot (line " + itoa(lines(js)+2) + ")"},
		{"json unknown field", cat(`{"apiVersion":"mvpctl.io/v1alpha1","kind":"Snapshot","servers":[{"name":"a","reachabel":true}]}`),
			`cannot parse: unknown field "reachabel"`},
		{"json wrong type", cat(`{"apiVersion":"mvpctl.io/v1alpha1","kind":"Snapshot","servers":{}}`),
			`cannot parse: cannot unmarshal object into Go struct field Snapshot.servers of type []snapshot.Server`},
		{"json duplicate key", cat(`{"apiVersion":"mvpctl.io/v1alpha1","kind":"Snapshot",`, "\n", `"servers":[{"name":"a","version":"v1.36.3","reachable":true,"version":"v1.37.0"}]}`),
			`cannot parse: line 2: key "version" appears twice in one object`},
		{"json same key in sibling objects", cat(`{"apiVersion":"mvpctl.io/v1alpha1","kind":"Snapshot","servers":[{"name":"a","version":"v1.36.3","reachable":true},{"name":"b","error":"x\\\"name\\\"","version":"v1.36.3","reachable":true}]}`), ""},
		{"truncated json", js[:len(js)/2], "not a complete document (truncated?): yaml: line 19: found unexpected end of stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

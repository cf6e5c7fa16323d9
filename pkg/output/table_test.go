package output

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestTableInChunks: a table long enough to be rendered in chunks (here on four goroutines)
// prints exactly what one tablewriter table of all its rows prints: cells of every kind of
// width (ASCII, wide characters, an ANSI colour, empty, two lines), ragged rows, with and
// without headers.
func TestTableInChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	kinds := []string{"", "local", "proxy→kas-b", "日本語", "\x1b[31mred\x1b[0m", "two\nlines", strings.Repeat("w", 40)}
	headers := []string{"NAME", "KAS-A", "KAS-B", "VIA-LB"}
	var rows [][]string
	for i := range 4*minRowsPerChunk + 17 {
		row := []string{fmt.Sprintf("r%d.example.com/v1", i)}
		for j := range 1 + i%4 {
			row = append(row, kinds[(i*7+j*3)%len(kinds)])
		}
		rows = append(rows, row)
	}
	rows[len(rows)-1][0] = strings.Repeat("n", 90) // the widest cell in the last chunk
	for _, noHeaders := range []bool{false, true} {
		var got bytes.Buffer
		if err := Table(&got, headers, rows, noHeaders); err != nil {
			t.Fatal(err)
		}
		h := headers
		if noHeaders {
			h = nil
		}
		cells := make([][]string, len(rows))
		for i, r := range rows {
			cells[i] = append([]string(nil), r...)
			for j, c := range cells[i] {
				if c == "" {
					cells[i][j] = "<none>"
				}
			}
		}
		want := renderTablewriter(h, cells, nil) // one table, its widths its own
		if !bytes.Equal(got.Bytes(), want) {
			g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("noHeaders=%t: line %d is\n%q, want\n%q", noHeaders, i+1, g[i], w[i])
				}
			}
			t.Fatalf("noHeaders=%t: %d lines, want %d", noHeaders, len(g), len(w))
		}
	}
}

// TestDisplayWidth: the fast path (printable ASCII: its length) and tablewriter's measure
// agree wherever the fast path is taken, and the rest is tablewriter's.
func TestDisplayWidth(t *testing.T) {
	for _, c := range []struct {
		cell string
		want int
	}{{"", 0}, {"local", 5}, {"日本", 4}, {"\x1b[31mred\x1b[0m", 3}, {"ab\ncdef", 4}, {"a\tb", 2}, {"~ ~", 3}, {"a\x7fb", 2}} {
		if got := displayWidth(c.cell); got != c.want {
			t.Errorf("displayWidth(%q) = %d, want %d", c.cell, got, c.want)
		}
	}
}

// TestRenderPlainIsTablewriters: wherever renderPlain takes a table, it prints what
// tablewriter prints, byte for byte; it declines every table it cannot print so.
func TestRenderPlainIsTablewriters(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cellOf := func() string {
		const alphabet = "abz09 -/<>→~\x7f\t日"
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
		}
		if rng.IntN(3) > 0 { // mostly plain cells, so that whole tables are plain too
			return strings.Map(func(r rune) rune {
				if r < 0x20 || r >= 0x7f {
					return 'x'
				}
				return r
			}, b.String())
		}
		return b.String()
	}
	taken := 0
	for i := range 3000 {
		cols := 1 + rng.IntN(5)
		var headers []string
		if i%2 == 0 {
			for range cols {
				headers = append(headers, strings.ToUpper(cellOf()))
			}
		}
		rows := make([][]string, rng.IntN(6))
		for r := range rows {
			n := cols
			if rng.IntN(20) == 0 {
				n = rng.IntN(cols + 2) // ragged
			}
			for range n {
				rows[r] = append(rows[r], cellOf())
			}
		}
		widths := columnWidths(headers, rows)
		want := renderTablewriter(headers, rows, widths)
		got, ok := renderPlain(headers, rows, widths)
		if !ok {
			continue
		}
		taken++
		if !bytes.Equal(got, want) {
			t.Fatalf("headers %q rows %q:\n%q\nwant (tablewriter)\n%q", headers, rows, got, want)
		}
	}
	if taken < 300 {
		t.Errorf("renderPlain took %d of 3000 tables: the comparison says little", taken)
	}
	for _, c := range []struct {
		name    string
		headers []string
		rows    [][]string
	}{
		{"wide character", []string{"NAME"}, [][]string{{"日本"}}},
		{"ANSI colour", nil, [][]string{{"\x1b[31mred\x1b[0m", "b"}}},
		{"two lines", nil, [][]string{{"a\nb", "c"}}},
		{"DEL", nil, [][]string{{"a\x7f"}}},
		{"ragged", []string{"A", "B"}, [][]string{{"a"}}},
	} {
		if _, ok := renderPlain(c.headers, c.rows, columnWidths(c.headers, c.rows)); ok {
			t.Errorf("%s: renderPlain took the table", c.name)
		}
	}
}

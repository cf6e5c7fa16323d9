package apiclient

import "testing"

func TestOneLineEscapesControlCharacters(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain message", "plain message"},
		{"two\nlines\t here", "two lines here"},
		{"title \x1b]0;pwned\x07 set", `title \x1b]0;pwned\x07 set`},
		{"clear \x1b[2J screen", `clear \x1b[2J screen`},
		{"c1 \u009b31m csi", `c1 \x9b31m csi`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"ünïcode — fine", "ünïcode — fine"},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

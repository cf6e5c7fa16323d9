// Package jsonstr holds what JSON says about the escapes in a string, for mvpctl's own JSON
// readers (pkg/snapshot's generated decoder, pkg/auditlog's scanner, pkg/discover's Helm
// release records), so that the table is written once.
package jsonstr

// Unescape returns the byte the two-character escape \e stands for: \" \\ \/ \b \f \n \r \t.
// ok is false for 'u' (\uXXXX, which the caller decodes by its own rules) and for every byte
// JSON does not allow after a backslash.
func Unescape(e byte) (b byte, ok bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
